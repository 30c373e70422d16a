// One quality run: resolves the tables a caller names to the workspace's check blocks (or an inline
// check), plans every table against its warehouse's catalog, refuses the run when the estimated
// rows to scan exceed the budget, runs each table's checks with as few queries as it can, and
// records every result that ran in the state store so monitoring can build baselines from them.
// Read-only towards the warehouses.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/http.h"
#include "base/json.h"
#include "base/status.h"
#include "config/workspace.h"
#include "observe/quality/check_outcome.h"
#include "observe/quality/dbt_tests.h"
#include "store/state_store.h"

namespace dw::observe::quality {

struct QualityRequest {
  std::vector<std::string> tables;       // as written by the caller; empty: every configured table
  std::vector<std::string> checks;       // which configured checks ("not_null", "freshness", ...)
  std::optional<Json> inline_check;      // checks in the workspace vocabulary, without SQL
  std::optional<TimePoint> since;        // incremental: only rows with time_column >= since
  std::optional<int64_t> max_scan_rows;  // the run's budget (the warehouses' own still apply)
  // The run's budget in bytes billed, priced by dry runs before anything runs, where a warehouse
  // bills by bytes (BigQuery); the warehouses' own max_scan_bytes still apply.
  std::optional<int64_t> max_scan_bytes;
  bool record = true;                    // store the results
  // At most this many tables at once on one warehouse (it also bounds itself: one on a SQLite or
  // PostgreSQL connection); unset: the warehouse's own bound.
  std::optional<int> max_parallel;
  // The HTTP client a REST warehouse (BigQuery, Snowflake) calls through; it must outlive the
  // run. Without one such a warehouse's checks are errors saying so; SQLite and PostgreSQL need none.
  HttpClient* http = nullptr;
};

struct TableReport {
  std::string asset_id;   // table://warehouse/schema.table
  std::string warehouse;
  std::string table;      // as the warehouse names it, for display
  std::vector<CheckOutcome> outcomes;
  std::optional<int64_t> rows;  // rows the aggregate scan read
  std::optional<int64_t> estimated_rows;
  std::optional<int64_t> estimated_bytes;  // priced before the run (a byte budget applied)
  std::optional<int64_t> bytes_billed;     // what its statements billed, where the warehouse says
  int queries = 0;
  int64_t duration_ms = 0;
  std::vector<std::string> notes;
};

// What a run took from the dbt manifest (lineage.dbt_tests): every test imported or listed with why
// not.
struct DbtReport {
  std::string manifest;
  std::string project;
  int tests = 0;     // test nodes in the manifest
  int imported = 0;  // run as checks (those a table or check selection kept out included)
  std::vector<DbtTestNotImported> not_imported;
};

struct QualityReport {
  std::string run_id;
  TimePoint started_at;
  bool incremental = false;
  std::vector<TableReport> tables;
  std::optional<std::string> record_error;  // set when results could not be stored
  std::optional<DbtReport> dbt;             // set when the workspace imports dbt tests

  // {run_id, started_at, incremental, tables: [...], summary: {checks, passed, failed, errors,
  // skipped, warned}, dbt?: {manifest, project, tests, imported, not_imported: [...]}}.
  Json ToJson() const;
  // 0 when every check that ran passed (or only warned), 1 when one failed, 2 when one could not
  // run (error).
  int ExitCode() const;
  // Counts per verdict.
  int Count(Verdict v) const;
};

// Called after each table: (tables done, tables in all, the table just done).
using QualityProgress = std::function<void(size_t, size_t, const TableReport&)>;

// Runs `request`. Fails as a whole (nothing run, nothing stored) when a named table or warehouse is
// unknown (the message names it and the closest existing names), the inline check is malformed,
// there is nothing to check, or the estimated scan exceeds a budget. A warehouse that cannot be
// reached or a query that fails makes the affected checks `error` with the warehouse's message.
// `store` may be null (nothing recorded, no previous run known).
Result<QualityReport> RunQuality(const config::Workspace& workspace, store::StateStore* store,
                                 const Clock& clock, const QualityRequest& request,
                                 const QualityProgress& progress = nullptr);

// The JSON Schema of QualityReport::ToJson (the MCP tool's outputSchema).
const Json& QualityReportSchema();

}  // namespace dw::observe::quality
