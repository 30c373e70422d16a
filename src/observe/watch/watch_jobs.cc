#include "observe/watch/watch_jobs.h"

#include <map>
#include <set>

#include "observe/auto_monitor/auto_monitor.h"
#include "observe/changes/collector.h"
#include "observe/metrics/metric_batch.h"
#include "observe/metrics/metric_service.h"
#include "observe/metrics/monitor_catch_up.h"
#include "observe/metrics/retention.h"
#include "observe/quality/quality_run.h"
#include "warehouse/table_catalog.h"

namespace dw::observe::watch {
namespace {

constexpr int64_t kMinute = 60 * 1000;

using Env = std::shared_ptr<const WatchEnvironment>;

// The line `dw watch` prints for one monitor's run.
std::string MonitorLine(const Env& env, const std::string& name, const metrics::MonitorRun& run, int missed) {
  const metrics::Verdict& v = run.judgement.latest;
  std::string caught_up;
  if (run.catch_up)
    caught_up = " (caught up: " + std::to_string(run.catch_up->recorded.stored) +
                " bucket(s) from one series_sql query over the " + std::to_string(run.catch_up->missed_runs) +
                " missed run(s))";
  else if (missed > 0)
    caught_up = " (" + std::to_string(missed) + " runs missed while down; no series_sql to backfill them)";
  return FormatRfc3339(env->clock->Now()) + " monitor " + name + ": " + std::string(metrics::VerdictKindName(v.kind)) +
         ": " + v.explanation + caught_up;
}

// One job per monitor on its own `every:`, grouped by warehouse so one warehouse runs one query at
// a time. The monitors of one warehouse due at one wake-up are run by one batch runner
// ("monitors") through metrics::RunMonitorsOnce: each monitor's query in turn, then every value
// recorded and every monitor judged in a constant number of store statements for the batch.
Status AddMonitorJobs(WatchLoop& loop, const Env& env, int64_t /*every_ms: the monitor's own*/) {
  if (env->workspace->monitors.empty()) return Status::Ok();
  // Per monitor job: its name and whether its next run is its first since start (which checks for
  // runs missed while dw watch was down; later runs do when the loop reports missed slots).
  struct MonitorJob {
    std::string name;
    bool first = true;
  };
  auto jobs = std::make_shared<std::map<std::string, MonitorJob>>();
  auto runner = std::make_shared<BatchRunner>([env, jobs](const std::vector<BatchItem>& items) {
    std::vector<Status> out(items.size());
    auto store = env->state();
    if (!store.ok()) {
      for (auto& s : out) s = store.status();
      return out;
    }
    std::vector<metrics::MonitorDue> due;
    due.reserve(items.size());
    for (const BatchItem& item : items) {
      auto it = jobs->find(item.job);
      // Unknown names go through as "" so RunMonitorsOnce answers them NotFound in their place.
      due.push_back({it == jobs->end() ? "" : it->second.name, it != jobs->end() && (it->second.first || item.missed > 0)});
    }
    const metrics::UnlearntWindowsOfMany unlearnt =
        env->unlearnt_many ? env->unlearnt_many : metrics::EachOf(env->unlearnt);
    std::vector<Result<metrics::MonitorRun>> runs = metrics::RunMonitorsOnce(*env->workspace, **store, due,
                                                                             *env->clock, unlearnt, env->http);
    std::vector<std::string> ran;
    for (size_t i = 0; i < items.size(); ++i) {
      if (i >= runs.size()) {
        out[i] = Internal("the monitors batch answered " + std::to_string(runs.size()) + " runs for " +
                          std::to_string(items.size()) + " monitors");
        continue;
      }
      if (!runs[i].ok()) {
        out[i] = runs[i].status();
        continue;
      }
      if (auto it = jobs->find(items[i].job); it != jobs->end()) it->second.first = false;
      env->say(MonitorLine(env, due[i].name, *runs[i], items[i].missed));
      ran.push_back(items[i].job);
    }
    // One signal pass after the batch reads what all of its monitors recorded.
    if (env->after_run && !ran.empty())
      env->after_run(ran.size() == 1 ? ran[0] : ran[0] + " and " + std::to_string(ran.size() - 1) + " other monitor(s)");
    return out;
  });
  // Every monitor job is known before the first batch runs (the loop runs nothing yet), so the
  // runner only reads the map's shape.
  for (const auto& m : env->workspace->monitors) (*jobs)["monitor:" + m.name] = {m.name, true};
  DW_RETURN_IF_ERROR(loop.AddBatchRunner("monitors", [runner](const std::vector<BatchItem>& items) {
    return (*runner)(items);
  }));
  for (const auto& m : env->workspace->monitors) {
    auto settings = metrics::SettingsFromMonitor(m);
    if (!settings.ok()) return settings.status();
    const std::string job = "monitor:" + m.name;
    // Its own `run` is the batch of one (the loop hands due monitors to the runner together).
    DW_RETURN_IF_ERROR(loop.AddJob({job, "warehouse:" + m.warehouse, settings->every_ms,
                                    [runner, job](int64_t due_ms, int missed) -> Status {
                                      return (*runner)({{job, due_ms, missed}}).front();
                                    },
                                    "monitors"}));
  }
  return Status::Ok();
}

// One job per checked table, in its warehouse's group (so checks and monitors on one warehouse
// never run at the same time). Each run is a full `dw check` of that table, recorded.
Status AddCheckJobs(WatchLoop& loop, const Env& env, int64_t every_ms) {
  // The checked tables: the workspace's blocks, then (lineage.dbt_tests) the tables the
  // manifest's imported tests name; a manifest that cannot be read is said, and the workspace's
  // own checks are still watched (each dbt table's run would refuse it alike).
  std::vector<std::pair<std::string, std::string>> tables;  // asset id, warehouse
  std::set<std::string> seen;
  for (const auto& c : env->workspace->checks)
    if (seen.insert(c.asset_id).second) tables.emplace_back(c.asset_id, c.warehouse);
  if (env->workspace->lineage.dbt_tests) {
    auto dbt = quality::ImportDbtTestsFile(env->workspace->lineage.dbt_manifest,
                                           quality::DbtRelationPlacesOf(*env->workspace));
    if (!dbt.ok()) env->say("lineage.dbt_tests: " + dbt.status().message() + "; the dbt tests are not watched");
    if (dbt.ok())
      for (const auto& t : dbt->tables)
        if (env->workspace->warehouses.count(t.ref.warehouse) && seen.insert(t.ref.AssetIdString()).second)
          tables.emplace_back(t.ref.AssetIdString(), t.ref.warehouse);
  }
  for (const auto& [asset_id, warehouse] : tables) {
    std::string table = asset_id;
    DW_RETURN_IF_ERROR(loop.AddJob(
        {"check:" + table, "warehouse:" + warehouse, every_ms, [env, table](int64_t, int) -> Status {
           auto store = env->state();
           if (!store.ok()) return store.status();
           quality::QualityRequest req;
           req.tables = {table};
           req.http = env->http;
           auto report = quality::RunQuality(*env->workspace, *store, *env->clock, req);
           if (!report.ok()) return report.status();
           if (report->record_error)
             return Unavailable("the results of " + table + " could not be recorded: " + *report->record_error);
           env->say(FormatRfc3339(env->clock->Now()) + " check " + table + ": " +
                    std::to_string(report->Count(quality::Verdict::kPass)) + " passed, " +
                    std::to_string(report->Count(quality::Verdict::kFail)) + " failed, " +
                    std::to_string(report->Count(quality::Verdict::kWarn)) + " warned, " +
                    std::to_string(report->Count(quality::Verdict::kError)) + " errors");
           if (env->after_run) env->after_run("check:" + table);
           // A run in which no check could run watched nothing: recorded as observation gaps (the
           // signal pass above says them), and a failed run, so `dw watch --once` exits 1 and the
           // loop retries it with backoff rather than an hour later.
           const int ran = report->Count(quality::Verdict::kPass) + report->Count(quality::Verdict::kFail) +
                           report->Count(quality::Verdict::kWarn);
           if (ran == 0 && report->Count(quality::Verdict::kError) > 0)
             return Unavailable("every check of " + table + " errored (" +
                                std::to_string(report->Count(quality::Verdict::kError)) +
                                ", recorded as observation gaps): nothing was checked");
           return Status::Ok();
         }}));
  }
  return Status::Ok();
}

// One collection pass over every platform (and warehouse history), in its own group.
Status AddCollectJob(WatchLoop& loop, const Env& env, int64_t every_ms) {
  if (!changes::HasChangeSources(*env->workspace)) return Status::Ok();
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

// One metadata pass per warehouse whose engine has a catalog reader, on `auto_monitor.every`, in
// the warehouse's group (observe/auto_monitor). A warehouse whose engine has none gets no job: the
// pass would only say so every time (`dw tables` says it).
Status AddAutoMonitorJobs(WatchLoop& loop, const Env& env, int64_t every_ms) {
  const config::Workspace& ws = *env->workspace;
  if (!ws.auto_monitor.enabled) return Status::Ok();
  const int64_t every = ws.auto_monitor.every.count() > 0 ? ws.auto_monitor.every.count() : every_ms;
  for (const auto& [name, wh] : ws.warehouses) {
    if (!warehouse::HasTableCatalog(wh.type)) continue;
    const std::string warehouse = name;
    auto said = std::make_shared<std::set<std::string>>();  // each missing grant is said once
    DW_RETURN_IF_ERROR(loop.AddJob(
        {"tables:" + warehouse, "warehouse:" + warehouse, every, [env, warehouse, said](int64_t, int) -> Status {
           auto store = env->state();
           if (!store.ok()) return store.status();
           auto_monitor::PassOptions options;
           options.only = warehouse;
           options.http = env->http;
           options.unlearnt = env->unlearnt_many ? env->unlearnt_many : metrics::EachOf(env->unlearnt);
           auto report = auto_monitor::RunAutoMonitorPass(*env->workspace, **store, *env->clock, options);
           if (!report.ok()) return report.status();
           size_t late = 0, learning = 0;
           for (const auto& t : report->tables) {
             late += t.verdict == "late";
             learning += t.learning;
           }
           for (const auto& pass : report->warehouses) {
             if (!pass.status.ok()) return pass.status;
             env->say(FormatRfc3339(env->clock->Now()) + " tables " + warehouse + ": " + std::to_string(pass.tables) +
                      " watched (" + std::to_string(learning) + " learning, " + std::to_string(late) + " late), " +
                      std::to_string(pass.events.size()) + " change(s) seen, " + std::to_string(pass.statements) +
                      " catalog statement(s)");
             for (const std::string& problem : pass.problems)
               if (said->insert(problem).second) env->say("  " + problem);
           }
           if (env->after_run) env->after_run("tables:" + warehouse);
           return Status::Ok();
         }}));
  }
  return Status::Ok();
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
      {"tables", 15 * kMinute, AddAutoMonitorJobs},
      {"prune-metrics", 24 * 60 * kMinute, AddPruneJob},
  };
}

Status AddWatchJobs(WatchLoop& loop, const std::vector<WatchJobKind>& kinds, const Env& env) {
  for (const WatchJobKind& kind : kinds) DW_RETURN_IF_ERROR(kind.add(loop, env, kind.every_ms));
  return Status::Ok();
}

}  // namespace dw::observe::watch
