#include "warehouse/read_only_count.h"

#include "warehouse/backends.h"
#include "warehouse/named_params.h"
#include "warehouse/warehouse.h"

namespace dw::warehouse {

Result<SqlValue> RunTrustedScalar(const config::WarehouseConfig& config, const std::string& sql,
                                  const std::map<std::string, SqlValue>& params,
                                  std::chrono::milliseconds timeout, HttpClient* http) {
  Result<PositionalSql> bound = BindNamedParameters(sql, params, FindDialect(config.type));
  if (!bound.ok()) return InvalidArgument("warehouse " + config.name + ": " + bound.status().message());
  Result<std::unique_ptr<Warehouse>> wh = OpenWarehouse(config, http);
  if (!wh.ok()) return wh.status();
  Result<QueryOutcome> out = (*wh)->Query(bound->sql, bound->params, {timeout});
  if (!out.ok()) return out.status();
  if (out->rows.empty() || out->rows[0].empty())
    return InvalidArgument("warehouse " + config.name + ": the query returned no row");
  return out->rows[0][0];
}

Result<int64_t> RunReadOnlyCount(const config::WarehouseConfig& warehouse, const std::string& sql,
                                 const std::map<std::string, std::string>& params,
                                 std::chrono::milliseconds timeout, HttpClient* http) {
  std::map<std::string, SqlValue> values(params.begin(), params.end());
  Result<SqlValue> v = RunTrustedScalar(warehouse, sql, values, timeout, http);
  if (!v.ok()) return v.status();
  if (const auto* n = std::get_if<int64_t>(&*v)) return *n;
  return InvalidArgument("warehouse " + warehouse.name + ": the query's first column is not an integer");
}

}  // namespace dw::warehouse
