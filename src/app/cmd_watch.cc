// `dw watch [--once] [--status] [--lease-time D] [--lease-history D]`: the long-running loop that runs the workspace's
// watch jobs (which jobs and how often: observe/watch/watch_jobs.h, assembled in
// workspace/watch_jobs.h; jitter, per-warehouse serial runs, catch-up and retries:
// observe/watch/watch_loop.h). On a PostgreSQL state store this process is one replica among any
// number, sharing the jobs through leases (observe/watch/replica_leases.h); on SQLite it is the
// only one (store/sqlite_watch_lock.h). This file only wires the loop to the process: signals,
// waiting, the replica's start and stop, and the report lines.
#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <memory>
#include <thread>

#include "app/command_start.h"
#include "app/commands.h"
#include "config/duration.h"
#include "config/time_zone.h"
#include "config/watch_settings.h"
#include "observe/watch/replica_leases.h"
#include "observe/watch/watch_jobs.h"
#include "observe/watch/watch_status.h"
#include "store/sqlite_watch_lock.h"
#include "store/state_store.h"
#include "store/watch_leases.h"
#include "workspace/watch_jobs.h"

namespace dw::app {
namespace {

std::atomic<bool> g_stop{false};

// Says on stderr what runs when, before the first run: each job, how often, when it next starts
// (in the workspace's zone with its offset), and which jobs share a group (they never overlap).
void AnnounceSchedule(const observe::watch::WatchLoop& loop, const std::string& timezone, bool once) {
  const config::TimeZone zone = config::ZoneOrUtc(timezone);
  const auto jobs = loop.Schedule();
  std::cerr << "dw watch: " << jobs.size() << " job(s)"
            << (once ? ", each run once now" : ", times in " + zone.name()) << ":\n";
  for (const auto& j : jobs) {
    std::cerr << "  " << j.name << "  every " << config::FormatDuration(std::chrono::milliseconds(j.every_ms));
    if (!once) std::cerr << "  next " << config::FormatWithOffset(FromUnixMillis(j.next_start_ms), zone);
    if (!j.group.empty()) std::cerr << "  (" << j.group << ")";
    std::cerr << "\n";
  }
}

extern "C" void OnStopSignal(int) { g_stop = true; }

int PrintStatus(workspace::Services& services, const std::string& format) {
  auto store = services.state();
  if (!store.ok()) {
    std::cerr << "dw watch: " << store.status().message() << "\n";
    return 2;
  }
  auto status = observe::watch::ReadWatchStatus(**store, services.workspace().state, 10);
  if (!status.ok()) {
    std::cerr << "dw watch: the watch status could not be read: " << status.status().message() << "\n";
    return 2;
  }
  if (format == "json")
    std::cout << status->dump(2) << "\n";
  else
    std::cout << observe::watch::FormatWatchStatus(*status);
  return 0;
}

}  // namespace

int CmdWatch(const GlobalOptions& g, const WatchCommand& cmd) {
  // SIGTERM and SIGINT stop the loop cleanly from the start: a stop that comes while the replica
  // registers or the jobs are assembled (a supervisor's, a test's on a loaded machine) is honoured
  // once they are, rather than killing the process with the replica registered and not stopped.
  if (!cmd.once && !cmd.status) {
    std::signal(SIGTERM, OnStopSignal);
    std::signal(SIGINT, OnStopSignal);
  }
  StartedCommand start = StartCommand(g, "watch", {.clock_runs = !cmd.once && !cmd.status, .records = !cmd.status});
  if (!start) return start.exit_code;
  const auto& services = start.services;
  if (cmd.status) return PrintStatus(*services, cmd.format);
  auto lease_time = config::ParseDuration(cmd.lease_time);
  if (!lease_time.ok() || lease_time->count() < 1000) {
    std::cerr << "dw watch: --lease-time " << cmd.lease_time << " is not a duration of at least 1s (e.g. 30s, 2m)\n";
    return 2;
  }
  // How long finished leases and runs are kept: the command line over the workspace's setting.
  int64_t lease_history_ms = services->workspace().watch_lease_history.count();
  if (!cmd.lease_history.empty()) {
    auto history = config::ParseDuration(cmd.lease_history);
    if (!history.ok() || *history < config::kMinLeaseHistory) {
      std::cerr << "dw watch: --lease-history " << cmd.lease_history
                << " is not a duration of at least 10m (e.g. 6h, 1d): --status and the accounting of each job "
                   "slot's run need recent history\n";
      return 2;
    }
    lease_history_ms = history->count();
  }

  // A replica among several (PostgreSQL) or the only watcher (SQLite). `--once` is an operator's
  // manual pass: it takes neither leases nor the SQLite lock, as before.
  std::unique_ptr<store::StateStore> heartbeat_store;  // the replica's heartbeat's own connection
  std::unique_ptr<observe::watch::ReplicaLeases> replica;
  std::unique_ptr<store::SqliteWatchLock> sqlite_lock;
  if (!cmd.once) {
    auto store = services->state();
    if (!store.ok()) {
      std::cerr << "dw watch: " << store.status().message() << "\n";
      return 2;
    }
    const Clock& clock = services->clock();
    store::WatchReplica self = observe::watch::ThisReplica(clock, lease_time->count());
    if (store::WatchLeases* leases = store::WatchLeasesOf(**store)) {
      // The heartbeat on a connection of its own, so that it never waits behind a job's statement
      // (observe/watch/replica_leases.h, ReplicaOptions::heartbeat_leases).
      auto opened = store::OpenStateStore(services->workspace().state, clock);
      if (!opened.ok()) {
        std::cerr << "dw watch: the replica's heartbeat could not connect to the state store: "
                  << opened.status().message() << "\n";
        return 2;
      }
      heartbeat_store = std::move(opened).value();
      replica = std::make_unique<observe::watch::ReplicaLeases>(
          *leases, clock, self,
          observe::watch::ReplicaOptions{.lease_ms = lease_time->count(),
                                         .keep_history_ms = lease_history_ms,
                                         .heartbeat_leases = store::WatchLeasesOf(*heartbeat_store)},
          [](const std::string& line) { std::cerr << line << std::endl; });
      if (Status st = replica->Start(); !st.ok()) {
        std::cerr << "dw watch: the replica could not register with the state store: " << st.message() << "\n";
        return 2;
      }
      std::cerr << "dw watch: replica " << replica->id() << " shares the jobs through leases on the PostgreSQL state store"
                << " (lease time " << lease_time->count() << " ms)" << std::endl;
    } else {
      auto lock = store::SqliteWatchLock::Take(services->workspace().state,
                                               {self.pid, self.host, FormatRfc3339(clock.Now())});
      if (!lock.ok()) {
        std::cerr << "dw watch: " << lock.status().message() << "\n";
        return 2;
      }
      sqlite_lock = std::move(lock).value();
    }
  }

  // With leases, the slots whose time has come and whose jitter ends within 2 s are claimed with
  // the ones due now, in one statement (observe/watch/watch_loop.h); SQLite's schedule is unchanged.
  observe::watch::WatchLoop loop(services->clock(), {.leases = replica.get(), .claim_ahead_ms = replica ? 2000 : 0});
  auto env = workspace::WatchEnvironmentFor(services, [](const std::string& line) { std::cout << line << std::endl; });
  if (Status st = observe::watch::AddWatchJobs(loop, workspace::WatchJobKinds(services), env); !st.ok()) {
    std::cerr << "dw watch: " << st.message() << "\n";
    return 2;
  }
  // The lease and run history, pruned by one replica at a time (the job's slot is leased).
  if (replica) {
    if (Status st = observe::watch::AddLeaseHistoryJob(loop, *replica, 60'000,
                                                       [](const std::string& line) { std::cout << line << std::endl; });
        !st.ok()) {
      std::cerr << "dw watch: " << st.message() << "\n";
      return 2;
    }
  }
  AnnounceSchedule(loop, services->workspace().timezone, cmd.once);
  auto report = [](const observe::watch::RunRecord& r) {
    // A slot another replica ran (or is running) is no failure; a refusal is said once, by the replica.
    if (!r.ran) return;
    if (!r.status.ok())
      std::cerr << "dw watch: " << r.job << " failed (will retry): " << r.status.message() << std::endl;
  };
  if (cmd.once) {
    int failed = 0;
    for (const auto& r : loop.RunAllNow()) {
      report(r);
      failed += !r.status.ok();
    }
    return failed ? 1 : 0;
  }
  // Waiting sleeps in short slices so that SIGTERM ends the loop within a fraction of a second;
  // a run in progress is finished first.
  auto wait = [](int64_t ms) {
    for (int64_t left = ms; left > 0 && !g_stop; left -= 200)
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min<int64_t>(left, 200)));
  };
  loop.Run(g_stop, wait, report);
  if (replica) {
    if (Status st = replica->Stop(); !st.ok())
      std::cerr << "dw watch: the replica's leases could not be released (they expire after the lease time): "
                << st.message() << std::endl;
  }
  std::cerr << "dw watch: stopped" << std::endl;
  return 0;
}

}  // namespace dw::app
