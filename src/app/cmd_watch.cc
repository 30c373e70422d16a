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
#include "config/workspace.h"
#include "observe/changes/collector.h"
#include "observe/metrics/metric_service.h"
#include "observe/metrics/monitor_catch_up.h"
#include "observe/metrics/retention.h"
#include "observe/quality/quality_run.h"
#include "observe/watch/watch_loop.h"
#include "platforms/notify/notify.h"

namespace dw::app {
namespace {

std::atomic<bool> g_stop{false};

// How often `dw watch` runs each table's checks and a collection pass over the platforms.
constexpr int64_t kCheckEveryMs = 60 * 60 * 1000;
constexpr int64_t kCollectEveryMs = 5 * 60 * 1000;
constexpr int64_t kPruneEveryMs = 24 * 60 * 60 * 1000;
constexpr int64_t kDeliverEveryMs = 30 * 1000;
extern "C" void OnStopSignal(int) { g_stop = true; }

// One job per monitor, grouped by warehouse so one warehouse runs one query at a time.
Status AddMonitorJobs(watch::WatchLoop& loop, const std::shared_ptr<Services>& services) {
  for (const auto& m : services->workspace().monitors) {
    auto settings = metrics::SettingsFromMonitor(m);
    if (!settings.ok()) return settings.status();
    std::string name = m.name;
    // The first run after start checks for runs missed while dw watch was down (the store says
    // when the metric was last measured); later runs do when the loop reports missed slots.
    auto first = std::make_shared<bool>(true);
    DW_RETURN_IF_ERROR(loop.AddJob(
        {"monitor:" + name, "warehouse:" + m.warehouse, settings->every_ms,
         [services, name, first](int64_t, int missed) -> Status {
           auto store = services->state();
           if (!store.ok()) return store.status();
           auto run = metrics::RunMonitorOnce(services->workspace(), **store, name,
                                              services->clock(), *first || missed > 0);
           if (!run.ok()) return run.status();
           *first = false;
           const metrics::Verdict& v = run->judgement.latest;
           std::string caught_up;
           if (run->catch_up)
             caught_up = " (caught up: " + std::to_string(run->catch_up->recorded.stored) +
                         " bucket(s) from one series_sql query over the " +
                         std::to_string(run->catch_up->missed_runs) + " missed run(s))";
           else if (missed > 0)
             caught_up = " (" + std::to_string(missed) + " runs missed while down; no series_sql to backfill them)";
           std::cout << FormatRfc3339(services->clock().Now()) << " monitor " << name << ": "
                     << metrics::VerdictKindName(v.kind) << ": " << v.explanation << caught_up
                     << std::endl;
           return Status::Ok();
         }}));
  }
  return Status::Ok();
}

// One job per checked table, in its warehouse's group (so checks and monitors on one warehouse
// never run at the same time). Each run is a full `dw check` of that table, recorded.
Status AddCheckJobs(watch::WatchLoop& loop, const std::shared_ptr<Services>& services) {
  for (const auto& c : services->workspace().checks) {
    std::string table = c.asset_id;
    DW_RETURN_IF_ERROR(loop.AddJob(
        {"check:" + table, "warehouse:" + c.warehouse, kCheckEveryMs,
         [services, table](int64_t, int) -> Status {
           auto store = services->state();
           if (!store.ok()) return store.status();
           quality::QualityRequest req;
           req.tables = {table};
           auto report = quality::RunQuality(services->workspace(), *store, services->clock(), req);
           if (!report.ok()) return report.status();
           std::cout << FormatRfc3339(services->clock().Now()) << " check " << table << ": "
                     << report->Count(quality::Verdict::kPass) << " passed, "
                     << report->Count(quality::Verdict::kFail) << " failed, "
                     << report->Count(quality::Verdict::kError) << " errors" << std::endl;
           return Status::Ok();
         }}));
  }
  return Status::Ok();
}

// One collection pass over every platform, in its own group.
Status AddCollectJob(watch::WatchLoop& loop, const std::shared_ptr<Services>& services) {
  if (services->workspace().platforms.empty()) return Status::Ok();
  return loop.AddJob({"collect", "platforms", kCollectEveryMs, [services](int64_t, int) -> Status {
                        auto store = services->state();
                        if (!store.ok()) return store.status();
                        auto report = observe::changes::CollectChanges(
                            services->workspace(), services->http(), **store, services->clock());
                        if (!report.ok()) return report.status();
                        std::cout << FormatRfc3339(services->clock().Now()) << " collect: "
                                  << report->new_events() << " new change event(s)" << std::endl;
                        return Status::Ok();
                      }});
}

// Once a day, metric points older than their retention are deleted (observe/metrics/retention.h).
Status AddPruneJob(watch::WatchLoop& loop, const std::shared_ptr<Services>& services) {
  return loop.AddJob({"prune-metrics", "state", kPruneEveryMs, [services](int64_t, int) -> Status {
                        auto store = services->state();
                        if (!store.ok()) return store.status();
                        auto report = metrics::PruneMetricPoints(services->workspace(), **store,
                                                                 services->clock());
                        if (!report.ok()) return report.status();
                        std::cout << FormatRfc3339(services->clock().Now()) << " prune: deleted "
                                  << report->deleted << " metric point(s) older than their retention"
                                  << std::endl;
                        return Status::Ok();
                      }});
}

// Every 30 s, the notification outbox is delivered: what an earlier process wrote and did not get
// to send (it was killed, the service was down) goes out on the next pass.
Status AddDeliveryJob(watch::WatchLoop& loop, const std::shared_ptr<Services>& services) {
  if (platforms::notify::ChannelNames(services->workspace()).empty()) return Status::Ok();
  auto mail = std::shared_ptr<net::MailClient>(net::MakeCurlMailClient());
  return loop.AddJob({"notify", "notify", kDeliverEveryMs, [services, mail](int64_t, int) -> Status {
                        auto store = services->state();
                        if (!store.ok()) return store.status();
                        auto report = platforms::notify::DeliverDue(services->workspace(), **store,
                                                                    services->http(), *mail,
                                                                    services->clock());
                        if (!report.ok()) return report.status();
                        if (report->sent + report->retried + report->failed > 0)
                          std::cout << FormatRfc3339(services->clock().Now()) << " notify: "
                                    << report->sent << " sent, " << report->retried
                                    << " to retry, " << report->failed << " failed" << std::endl;
                        return Status::Ok();
                      }});
}

}  // namespace

int CmdWatch(const GlobalOptions& g, bool once) {
  auto services = Services::Load(config::ResolveWorkspaceDir(g.workspace), RealClock());
  if (!services->workspace_status().ok()) {
    std::cerr << "dw watch: " << services->workspace_status().message() << "\n";
    return 1;
  }
  watch::WatchLoop loop(services->clock(), {});
  Status st = AddMonitorJobs(loop, services);
  if (st.ok()) st = AddCheckJobs(loop, services);
  if (st.ok()) st = AddCollectJob(loop, services);
  if (st.ok()) st = AddPruneJob(loop, services);
  if (st.ok()) st = AddDeliveryJob(loop, services);
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
