#include "warehouse/backends.h"

#include "warehouse/bigquery_warehouse.h"
#include "warehouse/postgres_warehouse.h"
#include "warehouse/probe_backends.h"
#include "warehouse/snowflake_warehouse.h"
#include "warehouse/sqlite_warehouse.h"

namespace dw::warehouse {
namespace {

Result<std::unique_ptr<Warehouse>> OpenSqlite(const config::WarehouseConfig& c, HttpClient* /*http*/) {
  return OpenSqliteWarehouse(c.name, c.path, c.query_timeout);
}

Result<std::unique_ptr<Warehouse>> OpenPostgres(const config::WarehouseConfig& c, HttpClient* /*http*/) {
  return OpenPostgresWarehouse(c.name, c.dsn);
}

std::string SqliteDatabase(const config::WarehouseConfig&) { return "main"; }
std::string BigQueryDatabase(const config::WarehouseConfig& c) { return c.project; }
std::string SnowflakeDatabase(const config::WarehouseConfig& c) { return c.database; }

// Every back end, one entry each.
const std::vector<WarehouseBackend>& Backends() {
  static const std::vector<WarehouseBackend> kBackends = {
      {"sqlite", OpenSqlite, ProbeSqliteWarehouse, SqliteLocation, SqliteDialect, nullptr,
       "SQLite keeps no record of the statements that wrote a table", nullptr, SqliteDatabase, /*schemas=*/false,
       ReadSqliteCatalog},
      {"postgres", OpenPostgres, ProbePostgresWarehouse, PostgresLocation, PostgresDialect, nullptr,
       "PostgreSQL keeps no per-statement history: pg_stat_statements sums statements without their time, user "
       "or target table, and the server log holds them only with log_statement = 'mod'",
       nullptr, PostgresDatabase, /*schemas=*/true, ReadPostgresCatalog},
      {"bigquery", OpenBigQueryWarehouse, ProbeBigQueryWarehouse, BigQueryLocation, BigQueryDialect,
       OpenBigQueryHistory, "", OpenBigQuerySpend, BigQueryDatabase},
      {"snowflake", OpenSnowflakeWarehouse, ProbeSnowflakeWarehouse, SnowflakeLocation, SnowflakeRegistryDialect,
       OpenSnowflakeHistory, "", OpenSnowflakeSpend, SnowflakeDatabase},
  };
  return kBackends;
}

}  // namespace

const WarehouseBackend* FindWarehouseBackend(std::string_view type) {
  for (const WarehouseBackend& b : Backends())
    if (b.type == type) return &b;
  return nullptr;
}

const Dialect* FindDialect(std::string_view type) {
  const WarehouseBackend* b = FindWarehouseBackend(type);
  return b == nullptr ? nullptr : &b->dialect();
}

std::string WarehouseDatabase(const config::WarehouseConfig& config) {
  const WarehouseBackend* b = FindWarehouseBackend(config.type);
  return b == nullptr || b->database == nullptr ? std::string() : b->database(config);
}

bool NamesTablesWithSchemas(std::string_view type) {
  const WarehouseBackend* b = FindWarehouseBackend(type);
  return b == nullptr || b->schemas;
}

std::string WarehouseBackendNames() {
  std::string out;
  for (const WarehouseBackend& b : Backends()) out += (out.empty() ? "" : ", ") + std::string(b.type);
  return out;
}

}  // namespace dw::warehouse
