// Automatic monitors: every table and view of every warehouse watched from its catalog alone, with
// no line of configuration (docs/auto-monitors.md). A metadata pass reads each warehouse's catalog
// (warehouse/table_catalog.h) and, per table: volume (the rows each load wrote, seen as the
// catalog's counters moving between passes), freshness (when it last changed, and how late that
// is against the load cadence learnt from the changes seen: load_cadence.h) and schema (columns
// added, removed or retyped since the last pass). Each is a metric series (auto_series.h) judged by
// the product's detector, so an alarm becomes an incident signal as a declared monitor's does. A
// table's first `auto_monitor.learning` (a week) is learning: its points are recorded, never
// signalled, and every answer says so. What was learnt per table is kept in the state store
// (store/table_watch_states.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/http.h"
#include "base/json.h"
#include "base/status.h"
#include "config/workspace.h"
#include "observe/auto_monitor/load_cadence.h"
#include "observe/metrics/metric_batch.h"
#include "store/state_store.h"

namespace dw::observe::auto_monitor {

// One table as the automatic monitors see it.
struct WatchedTable {
  std::string asset_id;   // table://<warehouse>/<schema>.<table>
  std::string warehouse;
  std::string name;       // "<warehouse>.<schema>.<table>" (SQLite: "<warehouse>.<table>"), what patterns match
  bool view = false;
  bool gone = false;      // no longer in the catalog (dropped): kept, said
  std::vector<std::string> monitors;  // "volume", "freshness", "schema": what its metadata allows
  std::optional<int64_t> row_count;
  bool row_count_exact = false;
  int64_t first_seen_ms = 0;
  int64_t learning_until_ms = 0;
  bool learning = true;
  size_t loads_seen = 0;
  std::optional<int64_t> last_load_ms;        // the pass that saw the latest change
  std::optional<int64_t> rows_last_load;      // what it wrote
  LoadCadence cadence;
  std::optional<double> lateness;             // in cadences, at the last pass (once a cadence is learnt)
  std::optional<int64_t> next_due_ms;
  // "learning", "on_time", "late", "schema_changed", "volume_anomaly", "no_loads_seen", "gone".
  std::string verdict;
  std::string sentence;   // one sentence a person can read
  int64_t verdict_at_ms = 0;
  std::vector<std::string> declared;  // the workspace's checks and monitors on this table, beside
};

// What one pass did on one warehouse.
struct WarehousePass {
  std::string warehouse;
  Status status;  // kFailedPrecondition for an engine without a catalog reader; the warehouse's error
  std::string source;
  int statements = 0;
  size_t tables = 0, excluded = 0;
  std::vector<std::string> problems;  // missing grants, each once
  std::vector<std::string> vanished;  // dropped between listing and reading
  std::vector<std::string> events;    // "main.orders: load of 1,000 rows", "main.orders: column x removed"
  size_t points = 0;                  // metric points recorded
};

struct PassReport {
  std::vector<WarehousePass> warehouses;
  std::vector<WatchedTable> tables;  // every table of the warehouses that could be read
};

// Whether `name` matches the glob `pattern` (`*` any run of characters, `?` one).
bool GlobMatches(const std::string& pattern, const std::string& name);

struct PassOptions {
  std::string only;  // the one warehouse to read; "" for every warehouse
  HttpClient* http = nullptr;  // a REST warehouse's calls
  // What a volume series' judgement keeps out of training (the incidents' windows); empty: none.
  metrics::UnlearntWindowsOfMany unlearnt;
};

// Runs one metadata pass over the warehouses of `ws` at clock.Now(): reads each catalog, records
// the automatic series' points, judges the new volume points and saves what it learnt per table.
// Off (an empty report) when `auto_monitor` is off. A warehouse that cannot be read has its status
// in the report, never failing the others; the store's error fails the pass (FailedPrecondition
// for a store that keeps no table states).
Result<PassReport> RunAutoMonitorPass(const config::Workspace& ws, store::StateStore& store, const Clock& clock,
                                      const PassOptions& options);

// Every table the automatic monitors know (from the store, no warehouse queried), matching the glob
// `pattern` ("" for all) over WatchedTable::name, by name.
Result<std::vector<WatchedTable>> ListWatchedTables(const config::Workspace& ws, store::StateStore& store,
                                                    const Clock& clock, const std::string& pattern = "");

// When each table's learning ends, by asset id (from the store): what the signal pass holds an
// automatic series' points against. Empty for a store that keeps no table states.
Result<std::map<std::string, int64_t>> LearningUntilByAsset(const config::Workspace& ws, store::StateStore& store);

// What `dw tables` answers: every table the automatic monitors know matching `pattern`, and a
// line per warehouse they cannot watch (an engine without a catalog reader, a pass that failed).
struct TablesAnswer {
  bool enabled = true;  // auto_monitor is on
  std::vector<WatchedTable> tables;
  std::vector<WarehousePass> passes;  // with `refresh`: what the pass did per warehouse
  std::vector<std::string> notes;     // "warehouse sf (snowflake): automatic monitors are not built ..."
  Json ToJson() const;
};
// With `refresh`, runs RunAutoMonitorPass first (options.only and all); then ListWatchedTables.
// The store's error fails it; a warehouse's is in `passes`.
Result<TablesAnswer> AnswerTables(const config::Workspace& ws, store::StateStore& store, const Clock& clock,
                                  const std::string& pattern, bool refresh, const PassOptions& options);

// The JSON of one table (dw tables --format json).
Json WatchedTableJson(const WatchedTable& t);

}  // namespace dw::observe::auto_monitor
