#include "warehouse/warehouse.h"

#include "warehouse/postgres_warehouse.h"
#include "warehouse/sqlite_warehouse.h"

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
  if (config.type == "sqlite") return OpenSqliteWarehouse(config.name, config.path);
  if (config.type == "postgres") return OpenPostgresWarehouse(config.name, config.dsn);
  return InvalidArgument("warehouse '" + config.name + "' has unsupported type '" + config.type +
                         "' (supported: sqlite, postgres)");
}

}  // namespace dw::warehouse
