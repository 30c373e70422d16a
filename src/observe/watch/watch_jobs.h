// Which jobs `dw watch` runs and how often: each kind of job adds its jobs for the workspace to
// the loop. The observe stage's kinds are here (monitors on their `every:`, checks hourly, a
// collection pass over the platforms every five minutes, a daily prune of metric points); a later
// stage adds its own kind (the incidents stage's signal evaluation) as one more WatchJobKind in
// the list the workspace layer assembles (workspace/watch_jobs.h). Adding a job is one
// registration: a name, a default period and the function that adds its jobs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "config/workspace.h"
#include "net/http_client.h"
#include "observe/metrics/metric_batch.h"
#include "observe/metrics/metric_service.h"
#include "observe/watch/watch_loop.h"
#include "store/state_store.h"

namespace dw::observe::watch {

// What jobs need from the process that runs them. Lives as long as the loop (jobs share it).
struct WatchEnvironment {
  const config::Workspace* workspace = nullptr;
  std::function<Result<store::StateStore*>()> state;  // the state store, opened on first use
  net::HttpClient* http = nullptr;
  const Clock* clock = nullptr;
  std::function<void(const std::string& line)> say;  // one line per finished run, for the operator
  metrics::UnlearntWindows unlearnt;  // what monitors keep out of training (incidents' windows)
  // The same for many monitors in one read (a batch of monitors); empty: `unlearnt` for each.
  metrics::UnlearntWindowsOfMany unlearnt_many;
  // Called after every successful monitor, check and collection run with the job's name (the
  // incidents stage evaluates the signals it produced there); may be empty. Its failure is its own
  // to report: the run it follows has succeeded.
  std::function<void(const std::string& job)> after_run;
  // The work of the "receipts" job (workspace/watch_jobs.cc: every resolution still without its
  // receipt gets it), run one at a time with after_run's passes; empty: no such job is added.
  std::function<Status()> sweep_receipts;
};

// A kind of job. `add` adds this kind's jobs for env's workspace (none when it configures nothing
// for it), each running every `every_ms` unless the workspace sets its own period (a monitor's
// `every:`). Fails with the workspace's problem (e.g. a monitor whose settings are unusable).
struct WatchJobKind {
  std::string name;
  int64_t every_ms = 0;
  std::function<Status(WatchLoop& loop, const std::shared_ptr<const WatchEnvironment>& env, int64_t every_ms)> add;
};

// The observe stage's kinds, in the order they are added: "monitors", "checks" (hourly),
// "collect" (every 5 minutes), "tables" (the automatic monitors' metadata pass, every
// auto_monitor.every), "prune-metrics" (daily).
std::vector<WatchJobKind> ObserveWatchJobKinds();

// Adds the jobs of every kind in `kinds` to `loop`; stops at the first failure.
Status AddWatchJobs(WatchLoop& loop, const std::vector<WatchJobKind>& kinds,
                    const std::shared_ptr<const WatchEnvironment>& env);

}  // namespace dw::observe::watch
