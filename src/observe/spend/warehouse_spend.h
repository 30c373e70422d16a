// What the warehouses' queries cost, totalled as a data team asks: by dbt model, by user, by label
// (query tag or job labels), or ours against everyone else's. Read from each warehouse's own
// accounting (warehouse/spend.h): Snowflake's credits, BigQuery's bytes billed and slot time.
#pragma once

#include <string>
#include <vector>

#include "base/clock.h"
#include "base/http.h"
#include "base/json.h"
#include "base/status.h"
#include "config/workspace.h"
#include "warehouse/spend.h"

namespace dw::observe::spend {

// One group's total.
struct SpendGroup {
  std::string key;
  int64_t queries = 0;
  double credits = 0;
  int64_t bytes_billed = 0;
  int64_t slot_ms = 0;
};

struct WarehouseSpendReport {
  std::string warehouse, type, unit, source;
  std::vector<SpendGroup> groups;  // the largest first
  SpendGroup total;
  SpendGroup ours;                 // the queries Data Workers itself ran (tagged or labelled dw)
  std::vector<std::string> notes;
  std::string error;               // set when the warehouse's accounting could not be read
};

struct SpendReport {
  TimePoint since, until;
  std::string by;
  std::vector<WarehouseSpendReport> warehouses;  // every warehouse that bills per query
  Json ToJson() const;
};

// The JSON Schema of SpendReport::ToJson (the MCP tool's outputSchema).
Json SpendReportSchema();

// "model", "user", "label" or "dw".
bool IsSpendDimension(const std::string& by);

// The spend of every warehouse of `ws` that bills per query, for queries started in
// [since, until), grouped `by`. A warehouse whose accounting cannot be read is reported with its
// error; the others are still read. kInvalidArgument for an unknown dimension. The warehouses'
// accounting is read through `http`.
Result<SpendReport> ReportSpend(const config::Workspace& ws, HttpClient& http, TimePoint since, TimePoint until,
                                const std::string& by);

// The dbt node a query ran for ("model.shop.fct_orders"): from dbt's query comment
// (/* {"app": "dbt", ..., "node_id": ...} */ at the start of its text), or a node_id in its tag or
// labels; "" when it names none.
std::string DbtNodeOf(const warehouse::QuerySpend& q);
// Whether Data Workers ran it: its tag or labels carry the key "dw".
bool RanByUs(const warehouse::QuerySpend& q);

}  // namespace dw::observe::spend
