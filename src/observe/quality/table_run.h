// Runs a planned table: the one aggregate scan, one duplicate-key count per key set, the catalog
// comparison for schema drift, the row-count comparison, the custom queries, and a narrow sample
// for each failed check. Reports every check, in declaration order, as pass, fail, error or
// skipped, with what was measured; a warehouse failure is an error carrying the warehouse's words.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "observe/quality/check_outcome.h"
#include "observe/quality/table_plan.h"
#include "warehouse/warehouse.h"

namespace dw::observe::quality {

struct TableRunContext {
  int64_t now_ms = 0;                        // from the Clock
  std::chrono::milliseconds timeout{60000};  // per query
  std::optional<Json> previous_schema;       // observed value of the last schema check
  std::optional<int64_t> previous_rows;      // row count at the last row_count_change check
  bool record = true;  // the results will be stored: a first run's counts become the baseline
  int sample_limit = 10;  // rows per failed check's sample; 0: no sample query at all
  int scan_partitions = 1;            // > 1: split a large SQLite scan across that many connections
  int64_t partition_min_rows = 1'000'000;
  // Attached to every statement (warehouse::QueryOptions::labels): the run and the table.
  std::vector<std::pair<std::string, std::string>> labels;
};

struct TableRunResult {
  std::vector<CheckOutcome> outcomes;
  std::optional<int64_t> rows;  // rows the aggregate scan read (the filtered rows when incremental)
  int queries = 0;              // statements sent to the warehouse
  std::optional<int64_t> bytes_billed;  // their total, where the warehouse bills by bytes
};

// Runs `plan` on `wh`. Never fails as a whole: every problem lands in the outcome it concerns.
TableRunResult RunTablePlan(warehouse::Warehouse& wh, const TablePlan& plan,
                            const TableRunContext& context);

// The statements RunTablePlan sends for `plan` at `now_ms` whatever the verdicts: the aggregate scan
// (when a check needs it), one duplicate-key count per unique key, and each custom check's SQL
// (failed-row samples come on top, only for failures). For pricing a run before it runs.
std::vector<BoundQuery> PlannedStatements(const warehouse::Dialect& d, const TablePlan& plan, int64_t now_ms);

}  // namespace dw::observe::quality
