// Catch-up after downtime: a monitor with `series_sql` (time-bucketed (bucket, value) rows) whose
// runs were missed gets the missed buckets from ONE series query over the gap, instead of one
// replayed run per missed slot. Used by `dw watch` on its first run of each monitor (the process
// was down) and whenever the loop reports missed slots (the machine slept).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/clock.h"
#include "base/http.h"
#include "base/status.h"
#include "config/workspace.h"
#include "observe/metrics/metric_batch.h"
#include "observe/metrics/metric_service.h"
#include "store/state_store.h"

namespace dw::observe::metrics {

struct CatchUpReport {
  bool ran = false;        // a backfill query ran
  int missed_runs = 0;     // whole `every` periods between the latest stored point and now, less one
  int64_t window_start_ms = 0;  // :window_start of the backfill (the latest stored point, or
                                // now − training_window when nothing is stored)
  int64_t window_end_ms = 0;    // :window_end (now)
  int queries = 0;              // warehouse queries run (1 when ran)
  RecordReport recorded;        // the buckets stored
};

// When monitor `name` has `series_sql` and its latest stored point is older than twice its
// `every` (or nothing is stored), runs series_sql once over [latest point, now] and stores every
// (bucket, value) row; otherwise does nothing (ran = false). NotFound for an unknown monitor;
// InvalidArgument for bad settings, a NULL or unparsable bucket (nothing stored); the query's or
// store's error otherwise. `http` carries a REST warehouse's calls (BigQuery, Snowflake); the runs
// below pass theirs on.
Result<CatchUpReport> CatchUpMonitor(const config::Workspace& ws, store::StateStore& store,
                                     const std::string& name, const Clock& clock, HttpClient* http = nullptr);

// One scheduled run of monitor `name` as `dw watch` does it: when `check_catch_up` (first run
// after start, or slots missed), CatchUpMonitor first; then the monitor's `sql` for the current
// window when it has one, else (series_sql only) the full evaluation unless the catch-up already
// fetched up to now, in which case the latest point is judged from the store.
struct MonitorRun {
  MetricJudgement judgement;
  std::optional<CatchUpReport> catch_up;  // set when a backfill query ran
  int queries = 0;                        // warehouse queries this run made
};
// `unlearnt`: the windows kept out of training (see ReplayMetric).
Result<MonitorRun> RunMonitorOnce(const config::Workspace& ws, store::StateStore& store,
                                  const std::string& name, const Clock& clock, bool check_catch_up,
                                  const UnlearntWindows& unlearnt, HttpClient* http = nullptr);

// A monitor due now, and whether its run checks for a catch-up first (as RunMonitorOnce's
// check_catch_up).
struct MonitorDue {
  std::string name;
  bool check_catch_up = false;
};
// RunMonitorOnce of every monitor in `due`, with the state store's traffic batched: each
// monitor's catch-up check and warehouse query run in turn (one query each, as before; they go to
// its warehouse, not to the store), then every value is recorded through RecordMetricPointsOfMany
// and every monitor judged through JudgeLatestPoints (metric_batch.h), `unlearnt` asked once.
// out[i] is monitor i's run or its own error (unknown name, bad settings, its query's error, no
// value, no point), as RunMonitorOnce would have answered; one failing never stops the others.
std::vector<Result<MonitorRun>> RunMonitorsOnce(const config::Workspace& ws, store::StateStore& store,
                                                const std::vector<MonitorDue>& due, const Clock& clock,
                                                const UnlearntWindowsOfMany& unlearnt, HttpClient* http = nullptr);

}  // namespace dw::observe::metrics
