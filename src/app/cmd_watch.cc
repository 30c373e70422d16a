// `dw watch [--once]`: the long-running loop that runs the workspace's watch jobs (which jobs and
// how often: observe/watch/watch_jobs.h, assembled in workspace/watch_jobs.h; jitter, per-warehouse
// serial runs, catch-up and retries: observe/watch/watch_loop.h). This file only wires the loop to
// the process: signals, waiting, and the report lines.
#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <memory>
#include <thread>

#include "app/command_start.h"
#include "app/commands.h"
#include "observe/watch/watch_jobs.h"
#include "workspace/watch_jobs.h"

namespace dw::app {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void OnStopSignal(int) { g_stop = true; }

}  // namespace

int CmdWatch(const GlobalOptions& g, bool once) {
  StartedCommand start = StartCommand(g, "watch", {.clock_runs = !once});
  if (!start) return start.exit_code;
  const auto& services = start.services;
  observe::watch::WatchLoop loop(services->clock(), {});
  auto env = workspace::WatchEnvironmentFor(services, [](const std::string& line) { std::cout << line << std::endl; });
  if (Status st = observe::watch::AddWatchJobs(loop, workspace::WatchJobKinds(services), env); !st.ok()) {
    std::cerr << "dw watch: " << st.message() << "\n";
    return 2;
  }
  auto report = [](const observe::watch::RunRecord& r) {
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
