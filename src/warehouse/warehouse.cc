#include "warehouse/warehouse.h"

#include "warehouse/backends.h"

namespace dw::warehouse {

const Column* TableSchema::Find(const std::string& name) const {
  for (const Column& c : columns)
    if (c.name == name) return &c;
  return nullptr;
}

std::vector<std::string> TableSchema::ColumnNames() const {
  std::vector<std::string> names;
  names.reserve(columns.size());
  for (const Column& c : columns) names.push_back(c.name);
  return names;
}

Result<std::unique_ptr<Warehouse>> OpenWarehouse(const config::WarehouseConfig& config) {
  if (const WarehouseBackend* backend = FindWarehouseBackend(config.type)) return backend->open(config);
  return InvalidArgument("warehouse '" + config.name + "' has unsupported type '" + config.type +
                         "' (supported: " + WarehouseBackendNames() + ")");
}

}  // namespace dw::warehouse
