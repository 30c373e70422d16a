// A warehouse's own history of who wrote which table and when: a sibling interface of Warehouse
// for the engines that keep one (Snowflake's ACCESS_HISTORY with QUERY_HISTORY, BigQuery's
// INFORMATION_SCHEMA.JOBS). A team with only
// a warehouse and dbt has no platform API to say what changed before a wrong number; the history
// does ("the 06:41 MERGE by AIRFLOW_SVC inserted 3,000 rows"). The change collector turns each
// write into a `warehouse_write` event (observe/changes/warehouse_writes.h); nothing outside
// warehouse/ asks which engine keeps what.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/http.h"
#include "base/status.h"
#include "config/workspace.h"
#include "warehouse/dialect.h"

namespace dw::warehouse {

// One statement's write to one table.
struct TableWrite {
  std::string query_id;
  TableId table;           // as the catalog names it
  std::string reference;   // as a workspace writes it ("shop.orders" for Snowflake's SHOP.ORDERS)
  int64_t started_ms = 0;
  std::string user;
  std::string statement_type;  // the engine's: INSERT, MERGE, UPDATE, DELETE, CREATE_TABLE_AS_SELECT, ...
  std::optional<int64_t> rows_inserted, rows_updated, rows_deleted;
  std::optional<int64_t> bytes_written;
  std::string query_tag;   // what the writer said it was (dbt, Airflow and our own checks tag)
  std::string query_text;  // the first 2,000 characters
};

class WarehouseHistory {
 public:
  virtual ~WarehouseHistory() = default;

  // The writes that started in [since_ms, until_ms), oldest first, at most `limit`; a write to
  // several tables is one entry per table.
  virtual Result<std::vector<TableWrite>> WritesBetween(int64_t since_ms, int64_t until_ms, size_t limit) = 0;

  // How far behind the statements it records the history can be (Snowflake documents up to three
  // hours for ACCESS_HISTORY): a pass reads again that far back, so a late row is not lost.
  virtual std::chrono::minutes latency() const = 0;

  // Where the history comes from, for reports ("SNOWFLAKE.ACCOUNT_USAGE.ACCESS_HISTORY").
  virtual std::string source() const = 0;
};

// The history of the configured warehouse. kFailedPrecondition, saying what the engine does and
// does not keep, for an engine without one (SQLite; PostgreSQL, whose pg_stat_statements aggregates
// statements without time or table).
Result<std::unique_ptr<WarehouseHistory>> OpenWarehouseHistory(const config::WarehouseConfig& config,
                                                               HttpClient* http = nullptr);

}  // namespace dw::warehouse
