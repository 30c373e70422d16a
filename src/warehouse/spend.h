// What the queries run on a warehouse cost, from the warehouse's own accounting: a sibling
// interface of Warehouse for the engines that keep it (Snowflake's QUERY_ATTRIBUTION_HISTORY,
// BigQuery's INFORMATION_SCHEMA.JOBS). observe/spend totals it by dbt model, user, label and
// "ours or theirs"; nothing outside warehouse/ asks which engine keeps what.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/http.h"
#include "base/status.h"
#include "config/workspace.h"

namespace dw::warehouse {

// One query's cost.
struct QuerySpend {
  std::string query_id;
  int64_t started_ms = 0;
  std::string user;
  std::string tag;         // Snowflake's QUERY_TAG; BigQuery's labels as a JSON array of {key, value}
  std::string query_text;  // its first 2,000 characters (dbt names its model in a leading comment)
  double credits = 0;      // Snowflake: compute credits attributed to the query
  int64_t bytes_billed = 0;  // BigQuery
  int64_t slot_ms = 0;       // BigQuery
};

class WarehouseSpend {
 public:
  virtual ~WarehouseSpend() = default;
  // The queries that started in [since_ms, until_ms), oldest first, at most `limit`.
  virtual Result<std::vector<QuerySpend>> QueriesBetween(int64_t since_ms, int64_t until_ms, size_t limit) = 0;
  // What a query's cost is counted in: "credits" (Snowflake) or "bytes" (BigQuery).
  virtual std::string unit() const = 0;
  // Where it comes from, and what it leaves out, for reports.
  virtual std::string source() const = 0;
};

// The spend reader of the configured warehouse; kFailedPrecondition, saying why, for an engine
// that keeps no per-query cost (SQLite, PostgreSQL: nothing is billed per query).
Result<std::unique_ptr<WarehouseSpend>> OpenWarehouseSpend(const config::WarehouseConfig& config,
                                                           HttpClient* http = nullptr);

}  // namespace dw::warehouse
