// Snowflake as a warehouse (`type: snowflake`), reached through its SQL API v2 (POST
// /api/v2/statements, GET /api/v2/statements/{handle}) with a key-pair JWT (snowflake_auth.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/http.h"
#include "config/workspace.h"
#include "store/sql_connection.h"
#include "warehouse/history.h"
#include "warehouse/probe.h"
#include "warehouse/spend.h"
#include "warehouse/warehouse.h"

namespace dw::warehouse {

// Opens the warehouse of `config` (account, user, private_key, database, schema, warehouse, role,
// api_url): reads the key; no request is made until the first statement. kNotFound or
// kInvalidArgument for a key that cannot be used (never quoting it). Its calls go through `http`, which must outlive it; without one
// (nullptr) it is kFailedPrecondition. The history, spend and probe below take theirs the same way.
Result<std::unique_ptr<Warehouse>> OpenSnowflakeWarehouse(const config::WarehouseConfig& config, HttpClient* http);

// The account's history of writes to the configured database (snowflake_history.cc).
Result<std::unique_ptr<WarehouseHistory>> OpenSnowflakeHistory(const config::WarehouseConfig& config, HttpClient* http);

// The account's per-query compute credits (snowflake_spend.cc).
Result<std::unique_ptr<WarehouseSpend>> OpenSnowflakeSpend(const config::WarehouseConfig& config, HttpClient* http);

// Signs a token and runs SELECT 1 within `timeout`; never throws.
WarehouseProbe ProbeSnowflakeWarehouse(const config::WarehouseConfig& config, std::chrono::milliseconds timeout, HttpClient* http);
// "snowflake://ACCOUNT/DATABASE (warehouse W, role R) at API_URL": no secret is part of it.
std::string SnowflakeLocation(const config::WarehouseConfig& config);

// Snowflake's dialect, which learns the exact spelling of quoted (mixed-case) names from the
// catalog it is shown (snowflake_dialect.cc).
class SnowflakeDialect : public Dialect {
 public:
  // `name` is an object or column the catalog holds; if it is not the upper-case fold of itself,
  // it is quoted as it is from now on.
  virtual void LearnCatalogName(const std::string& name) const = 0;
};
// The dialect of a warehouse whose tables are in `database`, `schema` being the default.
std::unique_ptr<SnowflakeDialect> MakeSnowflakeDialect(const std::string& database, const std::string& schema);
// The registry's dialect: no database (tables "SCHEMA"."TABLE"), default schema PUBLIC.
const Dialect& SnowflakeRegistryDialect();

// A statement as the SQL API takes it: the dialect's :N parameters replaced by `?` in the order
// they appear (outside string literals, quoted identifiers, comments and :: casts), and the
// values bound to those positions (one value may be bound at several). kInvalidArgument naming a
// :N with no value.
struct PositionalStatement {
  std::string sql;
  std::vector<store::SqlValue> values;
};
Result<PositionalStatement> ToQmarkBindings(const std::string& sql, const std::vector<store::SqlValue>& params);

}  // namespace dw::warehouse
