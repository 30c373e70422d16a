// `dw watch [--once]`: the long-running loop that runs the workspace's monitors on their `every:`
// (see observe/watch/watch_loop.h for jitter, per-warehouse serial runs, catch-up and retries),
// checks, platform collection, and a daily prune of metric points past their retention.
#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <memory>
#include <thread>

#include "app/commands.h"
#include "app/services.h"
#include "app/watch_jobs.h"
#include "config/workspace.h"
#include "observe/watch/watch_loop.h"

namespace dw::app {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void OnStopSignal(int) { g_stop = true; }

}  // namespace

int CmdWatch(const GlobalOptions& g, bool once) {
  auto services = Services::Load(config::ResolveWorkspaceDir(g.workspace), RealClock());
  if (!services->workspace_status().ok()) {
    std::cerr << "dw watch: " << services->workspace_status().message() << "\n";
    return 1;
  }
  watch::WatchLoop loop(services->clock(), {});
  Status st = AddWatchJobs(loop, services, [](const std::string& line) { std::cout << line << std::endl; });
  if (!st.ok()) {
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
