#include "observe/watch/watch_jobs.h"

#include <map>

#include "observe/changes/collector.h"
#include "observe/metrics/metric_service.h"
#include "observe/metrics/monitor_catch_up.h"
#include "observe/metrics/retention.h"
#include "observe/quality/quality_run.h"

namespace dw::observe::watch {
namespace {

constexpr int64_t kMinute = 60 * 1000;

using Env = std::shared_ptr<const WatchEnvironment>;

// One job per monitor on its own `every:`, grouped by warehouse so one warehouse runs one query at
// a time. The monitors of one warehouse due at one wake-up are handed together to one batch
// runner ("monitors"), so that they can be judged through one batched store call.
Status AddMonitorJobs(WatchLoop& loop, const Env& env, int64_t /*every_ms: the monitor's own*/) {
  if (env->workspace->monitors.empty()) return Status::Ok();
  // Each monitor's own path, by job name, for the batch runner.
  auto runs = std::make_shared<std::map<std::string, std::function<Status(int64_t, int)>>>();
  // For now the group runs each monitor's existing path in turn. The batched judgement of
  // observe/metrics (issue 19, branch passbatch) replaces this loop with its one call over
  // `items` (one Status per item, in order); nothing else here changes.
  DW_RETURN_IF_ERROR(loop.AddBatchRunner("monitors", [runs](const std::vector<BatchItem>& items) {
    std::vector<Status> out;
    out.reserve(items.size());
    for (const BatchItem& item : items) {
      auto it = runs->find(item.job);
      out.push_back(it == runs->end() ? Internal("no monitor job named " + item.job)
                                      : it->second(item.due_ms, item.missed));
    }
    return out;
  }));
  for (const auto& m : env->workspace->monitors) {
    auto settings = metrics::SettingsFromMonitor(m);
    if (!settings.ok()) return settings.status();
    std::string name = m.name;
    // The first run after start checks for runs missed while dw watch was down (the store says
    // when the metric was last measured); later runs do when the loop reports missed slots.
    auto first = std::make_shared<bool>(true);
    std::function<Status(int64_t, int)> run = [env, name, first](int64_t, int missed) -> Status {
      auto store = env->state();
      if (!store.ok()) return store.status();
      auto result = metrics::RunMonitorOnce(*env->workspace, **store, name, *env->clock, *first || missed > 0,
                                            env->unlearnt);
      if (!result.ok()) return result.status();
      *first = false;
      const metrics::Verdict& v = result->judgement.latest;
      std::string caught_up;
      if (result->catch_up)
        caught_up = " (caught up: " + std::to_string(result->catch_up->recorded.stored) +
                    " bucket(s) from one series_sql query over the " +
                    std::to_string(result->catch_up->missed_runs) + " missed run(s))";
      else if (missed > 0)
        caught_up = " (" + std::to_string(missed) + " runs missed while down; no series_sql to backfill them)";
      env->say(FormatRfc3339(env->clock->Now()) + " monitor " + name + ": " +
               std::string(metrics::VerdictKindName(v.kind)) + ": " + v.explanation + caught_up);
      if (env->after_run) env->after_run("monitor:" + name);
      return Status::Ok();
    };
    (*runs)["monitor:" + name] = run;
    DW_RETURN_IF_ERROR(
        loop.AddJob({"monitor:" + name, "warehouse:" + m.warehouse, settings->every_ms, std::move(run), "monitors"}));
  }
  return Status::Ok();
}

// One job per checked table, in its warehouse's group (so checks and monitors on one warehouse
// never run at the same time). Each run is a full `dw check` of that table, recorded.
Status AddCheckJobs(WatchLoop& loop, const Env& env, int64_t every_ms) {
  for (const auto& c : env->workspace->checks) {
    std::string table = c.asset_id;
    DW_RETURN_IF_ERROR(loop.AddJob(
        {"check:" + table, "warehouse:" + c.warehouse, every_ms, [env, table](int64_t, int) -> Status {
           auto store = env->state();
           if (!store.ok()) return store.status();
           quality::QualityRequest req;
           req.tables = {table};
           auto report = quality::RunQuality(*env->workspace, *store, *env->clock, req);
           if (!report.ok()) return report.status();
           if (report->record_error)
             return Unavailable("the results of " + table + " could not be recorded: " + *report->record_error);
           env->say(FormatRfc3339(env->clock->Now()) + " check " + table + ": " +
                    std::to_string(report->Count(quality::Verdict::kPass)) + " passed, " +
                    std::to_string(report->Count(quality::Verdict::kFail)) + " failed, " +
                    std::to_string(report->Count(quality::Verdict::kError)) + " errors");
           if (env->after_run) env->after_run("check:" + table);
           return Status::Ok();
         }}));
  }
  return Status::Ok();
}

// One collection pass over every platform, in its own group.
Status AddCollectJob(WatchLoop& loop, const Env& env, int64_t every_ms) {
  if (env->workspace->platforms.empty() && env->workspace->lineage.dbt_manifest.empty()) return Status::Ok();
  return loop.AddJob({"collect", "platforms", every_ms, [env](int64_t, int) -> Status {
                        auto store = env->state();
                        if (!store.ok()) return store.status();
                        auto report = changes::CollectChanges(*env->workspace, *env->http, **store, *env->clock);
                        if (!report.ok()) return report.status();
                        env->say(FormatRfc3339(env->clock->Now()) + " collect: " +
                                 std::to_string(report->new_events()) + " new change event(s)");
                        if (env->after_run) env->after_run("collect");
                        // A pass that could not read some platform failed, even though the
                        // others were collected (as `dw collect` exits 1).
                        if (report->any_errors()) {
                          std::string failed;
                          for (const auto& p : report->platforms) {
                            if (p.reachable && p.errors.empty()) continue;
                            failed += (failed.empty() ? "" : "; ") + p.platform +
                                      (p.errors.empty() ? " unreachable" : ": " + p.errors.front());
                          }
                          return Unavailable("some platforms could not be read: " + failed);
                        }
                        return Status::Ok();
                      }});
}

// Metric points older than their retention are deleted (observe/metrics/retention.h).
Status AddPruneJob(WatchLoop& loop, const Env& env, int64_t every_ms) {
  return loop.AddJob({"prune-metrics", "state", every_ms, [env](int64_t, int) -> Status {
                        auto store = env->state();
                        if (!store.ok()) return store.status();
                        auto report = metrics::PruneMetricPoints(*env->workspace, **store, *env->clock);
                        if (!report.ok()) return report.status();
                        env->say(FormatRfc3339(env->clock->Now()) + " prune: deleted " +
                                 std::to_string(report->deleted) +
                                 " metric point(s) older than their retention");
                        return Status::Ok();
                      }});
}

}  // namespace

std::vector<WatchJobKind> ObserveWatchJobKinds() {
  return {
      {"monitors", 0, AddMonitorJobs},
      {"checks", 60 * kMinute, AddCheckJobs},
      {"collect", 5 * kMinute, AddCollectJob},
      {"prune-metrics", 24 * 60 * kMinute, AddPruneJob},
  };
}

Status AddWatchJobs(WatchLoop& loop, const std::vector<WatchJobKind>& kinds, const Env& env) {
  for (const WatchJobKind& kind : kinds) DW_RETURN_IF_ERROR(kind.add(loop, env, kind.every_ms));
  return Status::Ok();
}

}  // namespace dw::observe::watch
