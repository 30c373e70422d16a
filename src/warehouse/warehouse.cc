#include "warehouse/warehouse.h"

#include <algorithm>
#include <cctype>

#include "warehouse/backends.h"

namespace dw::warehouse {

const Column* TableSchema::Find(const std::string& name) const {
  for (const Column& c : columns)
    if (c.name == name) return &c;
  if (!names_fold) return nullptr;
  auto same = [&](const std::string& a) {
    return a.size() == name.size() && std::equal(a.begin(), a.end(), name.begin(), [](char x, char y) {
             return std::toupper(static_cast<unsigned char>(x)) == std::toupper(static_cast<unsigned char>(y));
           });
  };
  const Column* found = nullptr;
  for (const Column& c : columns) {
    if (!same(c.name)) continue;
    if (found != nullptr) return nullptr;  // "id" and "ID" both exist: only the exact name says which
    found = &c;
  }
  return found;
}

std::vector<std::string> TableSchema::ColumnNames() const {
  std::vector<std::string> names;
  names.reserve(columns.size());
  for (const Column& c : columns) names.push_back(c.name);
  return names;
}

Result<std::optional<int64_t>> Warehouse::EstimateBytesBilled(const std::string&, const std::vector<SqlValue>&) {
  return std::optional<int64_t>();
}

Result<std::unique_ptr<Warehouse>> OpenWarehouse(const config::WarehouseConfig& config, HttpClient* http) {
  if (const WarehouseBackend* backend = FindWarehouseBackend(config.type)) return backend->open(config, http);
  return InvalidArgument("warehouse '" + config.name + "' has unsupported type '" + config.type +
                         "' (supported: " + WarehouseBackendNames() + ")");
}

Result<std::unique_ptr<WarehouseHistory>> OpenWarehouseHistory(const config::WarehouseConfig& config, HttpClient* http) {
  const WarehouseBackend* backend = FindWarehouseBackend(config.type);
  if (backend == nullptr)
    return InvalidArgument("warehouse '" + config.name + "' has unsupported type '" + config.type + "'");
  if (backend->history == nullptr)
    return FailedPrecondition("warehouse '" + config.name + "' (" + config.type + ") has no history of writes: " +
                              std::string(backend->no_history_reason));
  return backend->history(config, http);
}

Result<std::unique_ptr<WarehouseSpend>> OpenWarehouseSpend(const config::WarehouseConfig& config, HttpClient* http) {
  const WarehouseBackend* backend = FindWarehouseBackend(config.type);
  if (backend == nullptr)
    return InvalidArgument("warehouse '" + config.name + "' has unsupported type '" + config.type + "'");
  if (backend->spend == nullptr)
    return FailedPrecondition("warehouse '" + config.name + "' (" + config.type + ") bills nothing per query");
  return backend->spend(config, http);
}

}  // namespace dw::warehouse
