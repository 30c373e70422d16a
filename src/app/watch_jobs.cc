// The jobs `dw watch` runs, registered on a WatchLoop: one per monitor on its every:, one per
// checked table hourly, a collection pass over the platforms every 5 minutes, a daily prune; the
// incidents stage's signal pass after every monitor, check and collection run.
// Shared by `dw watch` and `dw replay` (which runs the same jobs on its simulated clock).
#include "app/watch_jobs.h"

#include <mutex>

#include "app/incident_service.h"
#include "incidents/incidents.h"

#include "observe/changes/collector.h"
#include "observe/metrics/metric_service.h"
#include "observe/metrics/monitor_catch_up.h"
#include "observe/metrics/retention.h"
#include "observe/quality/quality_run.h"

namespace dw::app {
namespace {

// The signal job: after every monitor, check and collection run, one incidents pass over what was
// observed since the last (incidents::RunSignalPass). Jobs of different groups may end at once;
// passes are serialised so two never judge the same signals. A pass that fails is logged and
// does not fail the job whose run it followed: the cursor did not move, so the next pass reads the
// same signals again.
class SignalEvaluation {
 public:
  SignalEvaluation(std::shared_ptr<Services> services, WatchLog log) : services_(std::move(services)), log_(std::move(log)) {}

  Status After(const std::string& what) {
    std::lock_guard<std::mutex> lock(mu_);
    std::string now = FormatRfc3339(services_->clock().Now());
    auto fail = [&](const Status& s) {
      log_(now + " incidents pass after " + what + " failed (the next pass retries): " + s.message());
      return Status::Ok();
    };
    auto store = services_->state();
    if (!store.ok()) return fail(store.status());
    auto desk = OpenIncidentDesk(*services_);
    if (!desk.ok()) return fail(desk.status());
    auto r = incidents::RunSignalPass(services_->workspace(), **desk, **store, services_->clock());
    if (!r.ok()) return fail(r.status());
    for (const std::string& id : r->opened) log_(now + " incident opened " + id + " (after " + what + ")");
    for (const std::string& id : r->updated) log_(now + " incident updated " + id + " (after " + what + ")");
    for (const std::string& id : r->resolved) log_(now + " incident resolved (verified) " + id);
    for (const incidents::ObservationGap& g : r->gaps) log_(now + " observation gap " + g.source + ": " + g.message);
    return Status::Ok();
  }

 private:
  std::mutex mu_;
  std::shared_ptr<Services> services_;
  WatchLog log_;
};

// How often `dw watch` runs each table's checks and a collection pass over the platforms.
constexpr int64_t kCheckEveryMs = 60 * 60 * 1000;
constexpr int64_t kCollectEveryMs = 5 * 60 * 1000;
constexpr int64_t kPruneEveryMs = 24 * 60 * 60 * 1000;

// One job per monitor, grouped by warehouse so one warehouse runs one query at a time.
Status AddMonitorJobs(watch::WatchLoop& loop, const std::shared_ptr<Services>& services, const WatchLog& log,
                      const std::shared_ptr<SignalEvaluation>& signals) {
  for (const auto& m : services->workspace().monitors) {
    auto settings = metrics::SettingsFromMonitor(m);
    if (!settings.ok()) return settings.status();
    std::string name = m.name;
    // The first run after start checks for runs missed while dw watch was down (the store says
    // when the metric was last measured); later runs do when the loop reports missed slots.
    auto first = std::make_shared<bool>(true);
    DW_RETURN_IF_ERROR(loop.AddJob(
        {"monitor:" + name, "warehouse:" + m.warehouse, settings->every_ms,
         [services, name, first, log, signals](int64_t, int missed) -> Status {
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
           log(FormatRfc3339(services->clock().Now()) + " monitor " + name + ": " +
               metrics::VerdictKindName(v.kind) + ": " + v.explanation + caught_up);
           return signals->After("monitor " + name);
         }}));
  }
  return Status::Ok();
}

// One job per checked table, in its warehouse's group (so checks and monitors on one warehouse
// never run at the same time). Each run is a full `dw check` of that table, recorded.
Status AddCheckJobs(watch::WatchLoop& loop, const std::shared_ptr<Services>& services, const WatchLog& log,
                      const std::shared_ptr<SignalEvaluation>& signals) {
  for (const auto& c : services->workspace().checks) {
    std::string table = c.asset_id;
    DW_RETURN_IF_ERROR(loop.AddJob(
        {"check:" + table, "warehouse:" + c.warehouse, kCheckEveryMs,
         [services, table, log, signals](int64_t, int) -> Status {
           auto store = services->state();
           if (!store.ok()) return store.status();
           quality::QualityRequest req;
           req.tables = {table};
           auto report = quality::RunQuality(services->workspace(), *store, services->clock(), req);
           if (!report.ok()) return report.status();
           log(FormatRfc3339(services->clock().Now()) + " check " + table + ": " +
               std::to_string(report->Count(quality::Verdict::kPass)) + " passed, " +
               std::to_string(report->Count(quality::Verdict::kFail)) + " failed, " +
               std::to_string(report->Count(quality::Verdict::kError)) + " errors");
           return signals->After("check " + table);
         }}));
  }
  return Status::Ok();
}

// One collection pass over every platform, in its own group.
Status AddCollectJob(watch::WatchLoop& loop, const std::shared_ptr<Services>& services, const WatchLog& log,
                      const std::shared_ptr<SignalEvaluation>& signals) {
  if (services->workspace().platforms.empty() && services->workspace().lineage.dbt_manifest.empty()) return Status::Ok();
  return loop.AddJob({"collect", "platforms", kCollectEveryMs, [services, log, signals](int64_t, int) -> Status {
                        auto store = services->state();
                        if (!store.ok()) return store.status();
                        auto report = observe::changes::CollectChanges(
                            services->workspace(), services->http(), **store, services->clock());
                        if (!report.ok()) return report.status();
                        log(FormatRfc3339(services->clock().Now()) + " collect: " +
                            std::to_string(report->new_events()) + " new change event(s)");
                        return signals->After("collect");
                      }});
}

// Once a day, metric points older than their retention are deleted (observe/metrics/retention.h).
Status AddPruneJob(watch::WatchLoop& loop, const std::shared_ptr<Services>& services, const WatchLog& log) {
  return loop.AddJob({"prune-metrics", "state", kPruneEveryMs, [services, log](int64_t, int) -> Status {
                        auto store = services->state();
                        if (!store.ok()) return store.status();
                        auto report = metrics::PruneMetricPoints(services->workspace(), **store,
                                                                 services->clock());
                        if (!report.ok()) return report.status();
                        log(FormatRfc3339(services->clock().Now()) + " prune: deleted " +
                            std::to_string(report->deleted) + " metric point(s) older than their retention");
                        return Status::Ok();
                      }});
}

}  // namespace

Status AddWatchJobs(watch::WatchLoop& loop, const std::shared_ptr<Services>& services, const WatchLog& log) {
  auto signals = std::make_shared<SignalEvaluation>(services, log);
  DW_RETURN_IF_ERROR(AddMonitorJobs(loop, services, log, signals));
  DW_RETURN_IF_ERROR(AddCheckJobs(loop, services, log, signals));
  DW_RETURN_IF_ERROR(AddCollectJob(loop, services, log, signals));
  return AddPruneJob(loop, services, log);
}

}  // namespace dw::app
