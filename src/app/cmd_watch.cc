// `dw watch [--once]`: the long-running loop that runs the workspace's monitors on their `every:`
// (see observe/watch/watch_loop.h for jitter, per-warehouse serial runs, catch-up and retries).
#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <thread>

#include "app/commands.h"
#include "app/services.h"
#include "config/workspace.h"
#include "observe/metrics/metric_service.h"
#include "observe/watch/watch_loop.h"

namespace dw::app {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void OnStopSignal(int) { g_stop = true; }

// One job per monitor, grouped by warehouse so one warehouse runs one query at a time.
Status AddMonitorJobs(watch::WatchLoop& loop, const std::shared_ptr<Services>& services) {
  for (const auto& m : services->workspace().monitors) {
    auto settings = metrics::SettingsFromMonitor(m);
    if (!settings.ok()) return settings.status();
    std::string name = m.name;
    DW_RETURN_IF_ERROR(loop.AddJob(
        {"monitor:" + name, "warehouse:" + m.warehouse, settings->every_ms,
         [services, name](int64_t, int missed) -> Status {
           auto store = services->state();
           if (!store.ok()) return store.status();
           auto j = metrics::EvaluateMonitor(services->workspace(), **store, name, services->clock(), nullptr);
           if (!j.ok()) return j.status();
           std::cout << FormatRfc3339(services->clock().Now()) << " monitor " << name << ": "
                     << metrics::VerdictKindName(j->latest.kind) << ": " << j->latest.explanation
                     << (missed > 0 ? " (" + std::to_string(missed) + " runs missed while down)" : "")
                     << std::endl;
           return Status::Ok();
         }}));
  }
  // Hook points: checks (the quality issue) and platform collection (the collectors issue) add
  // their jobs to `loop` here the same way, grouped by the warehouse or platform they touch.
  return Status::Ok();
}

}  // namespace

int CmdWatch(const GlobalOptions& g, bool once) {
  auto services = Services::Load(config::ResolveWorkspaceDir(g.workspace), RealClock());
  if (!services->workspace_status().ok()) {
    std::cerr << "dw watch: " << services->workspace_status().message() << "\n";
    return 1;
  }
  watch::WatchLoop loop(services->clock(), {});
  if (Status st = AddMonitorJobs(loop, services); !st.ok()) {
    std::cerr << "dw watch: " << st.message() << "\n";
    return 1;
  }
  auto report = [](const watch::RunRecord& r) {
    if (!r.status.ok())
      std::cerr << "dw watch: " << r.job << " failed (will retry): " << r.status.message() << std::endl;
  };
  if (once) {
    int failed = 0;
    for (const auto& r : loop.RunAllNow()) {
      report(r);
      failed += !r.status.ok();
    }
    return failed ? 1 : 0;
  }
  std::signal(SIGTERM, OnStopSignal);
  std::signal(SIGINT, OnStopSignal);
  // Waiting sleeps in short slices so that SIGTERM ends the loop within a fraction of a second;
  // a run in progress is finished first.
  auto wait = [](int64_t ms) {
    for (int64_t left = ms; left > 0 && !g_stop; left -= 200)
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min<int64_t>(left, 200)));
  };
  loop.Run(g_stop, wait, report);
  std::cerr << "dw watch: stopped" << std::endl;
  return 0;
}

}  // namespace dw::app
