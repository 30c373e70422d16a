// Trusted workspace SQL (impact_sql, monitor queries) names its parameters (`:since`,
// `:window_start`). They are rewritten to the $N placeholders every Warehouse binds, outside
// quoted text, quoted identifiers, comments and `::` casts, so values are bound by the driver and
// never spliced into the text.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "warehouse/warehouse.h"

namespace dw::warehouse {

struct PositionalSql {
  std::string sql;                 // with $1..$N (or the dialect's spelling)
  std::vector<SqlValue> params;    // bound to $1..$N
};

// Rewrites the :name parameters of `sql` to $1..$N (or `dialect`'s Param(1..N) when given, e.g.
// BigQuery's @p1..@pN) and orders `values` to match (a name used twice is one parameter). Fails
// with kInvalidArgument naming a parameter that has no value, and listing the names that do.
Result<PositionalSql> BindNamedParameters(const std::string& sql,
                                          const std::map<std::string, SqlValue>& values,
                                          const Dialect* dialect = nullptr);

// Whether `sql` uses the parameter :`name` outside quoted text, comments and `::` casts (as
// BindNamedParameters reads it).
bool NamesParameter(const std::string& sql, const std::string& name);

}  // namespace dw::warehouse
