// GatherSignals: one pass over what the observation stage stored since a time: metric verdicts
// (workspace monitors and quality:* series), the latest result of every configured check, and the
// change events collected. Judges metrics through observe/metrics; writes nothing.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "base/identifiers.h"
#include "graph/sql_table_refs.h"
#include "incidents/incidents.h"
#include "incidents/release_guard.h"
#include "incidents/signal_shape.h"
#include "observe/auto_monitor/auto_monitor.h"
#include "observe/auto_monitor/auto_series.h"
#include "observe/changes/change_kinds.h"
#include "observe/changes/timeline.h"
#include "observe/metrics/metric_batch.h"
#include "observe/metrics/metric_service.h"
#include "observe/quality/dbt_tests.h"

namespace dw::incidents {

namespace {

std::optional<double> Finite(double v) {
  if (std::isfinite(v)) return v;
  return std::nullopt;
}

// The asset a monitor watches: its `asset:`, else the first table its SQL reads, in its warehouse.
std::string MonitorAsset(const config::MonitorConfig& m, const std::string& from_settings) {
  if (!from_settings.empty()) return from_settings;
  std::string sql = m.spec.value("sql", m.spec.value("series_sql", std::string()));
  graph::TableRefs refs = graph::ExtractTableRefs(sql);
  if (refs.reads.empty() || m.warehouse.empty()) return "";
  auto ref = ParseTableRef(m.warehouse + "." + refs.reads.front());
  if (!ref.ok()) return "";
  std::string id = ref->AssetIdString();
  return IsCanonicalAssetId(id) ? id : "";
}

// The signal of one metric's judgement, when its latest point is new since the last pass and
// judged (not too little history, not invalid, not marked expected).
void AddMetricSignal(const std::string& metric, const observe::metrics::MonitorSettings& settings,
                     const std::string& asset, const observe::metrics::MetricJudgement& judged,
                     const GatherOptions& options, SignalBatch* out) {
  const observe::metrics::Verdict& v = judged.latest;
  // By the sequence, only metrics with a new latest point were judged (GatherMetrics).
  if (!options.after_seq && FromUnixMillis(v.ts_ms) < options.since) return;  // judged at an earlier pass
  if (v.kind == observe::metrics::VerdictKind::kInsufficientHistory || v.kind == observe::metrics::VerdictKind::kInvalid ||
      v.kind == observe::metrics::VerdictKind::kExpected)
    return;
  Signal s;
  s.kind = SignalKind::kMetric;
  s.key = "metric:" + metric;
  s.asset_id = asset;
  s.at = FromUnixMillis(v.ts_ms);
  s.bad = observe::metrics::IsAlarm(v.kind);
  s.value = v.value;
  s.expected = Finite(v.expected);
  s.shape = s.bad ? ShapeOfMetric(metric, v.value, s.expected, settings.detector.expected_high,
                                  v.kind == observe::metrics::VerdictKind::kStuck)
                  : SignalShape::kUnknown;
  s.summary = metric + ": " + (v.explanation.empty() ? std::string(observe::metrics::VerdictKindName(v.kind)) : v.explanation);
  s.evidence = observe::metrics::JudgementToJson(judged);
  if (asset.empty()) out->notes.push_back("metric " + metric + " names no asset and its SQL no table: its incident stands on the metric alone");
  out->signals.push_back(std::move(s));
}

Status GatherMetrics(const config::Workspace& ws, store::StateStore& store, const Clock& clock,
                     const GatherOptions& options, SignalBatch* out) {
  // Every metric of the pass is judged in one batch: the incidents that keep windows out of
  // training are read and decoded once for all of them, not once per metric (with a year of
  // incidents, that read was most of a pass).
  std::vector<observe::metrics::MetricToJudge> batch;
  std::vector<std::string> assets;
  std::set<std::string> done;
  for (const auto& m : ws.monitors) {
    auto settings = observe::metrics::SettingsForMetric(ws, m.name);
    if (!settings.ok()) {
      out->notes.push_back("monitor " + m.name + " was not judged: " + settings.status().message());
      continue;
    }
    assets.push_back(MonitorAsset(m, settings->asset_id));
    batch.push_back({m.name, *std::move(settings)});
    done.insert(m.name);
  }
  auto names = store.MetricNames();
  if (!names.ok()) return names.status();
  for (const std::string& name : *names) {
    const bool automatic = ws.auto_monitor.enabled && observe::auto_monitor::ParseAutoSeries(name).has_value();
    if (done.count(name) || (name.rfind("quality:", 0) != 0 && !automatic)) continue;
    auto settings = observe::metrics::SettingsForMetric(ws, name);
    if (!settings.ok()) continue;
    assets.push_back(settings->asset_id);
    batch.push_back({name, *std::move(settings)});
  }
  if (options.after_seq) {
    auto names = store.MetricsWithLatestPointCommitted(*options.after_seq, options.through_seq);
    if (!names.ok()) return names.status();
    const std::set<std::string> committed(names->begin(), names->end());  // new latest point
    // Judging costs a replay of each metric's history: only those with a new latest point.
    std::vector<observe::metrics::MetricToJudge> fresh;
    std::vector<std::string> fresh_assets;
    for (size_t i = 0; i < batch.size(); ++i)
      if (committed.count(batch[i].metric)) {
        fresh.push_back(std::move(batch[i]));
        fresh_assets.push_back(std::move(assets[i]));
      }
    batch = std::move(fresh);
    assets = std::move(fresh_assets);
  }
  auto judged = observe::metrics::JudgeLatestPoints(store, batch, clock, MetricWindowsOfMany(store));
  // An automatic monitor's table in its learning stretch is judged (the detector learns) but not
  // signalled: its first week says "learning", never an incident.
  std::map<std::string, int64_t> learning_until;
  for (const auto& m : batch)
    if (observe::auto_monitor::ParseAutoSeries(m.metric)) {
      auto got = observe::auto_monitor::LearningUntilByAsset(ws, store);
      if (!got.ok()) return got.status();
      learning_until = *std::move(got);
      break;
    }
  for (size_t i = 0; i < batch.size(); ++i) {
    if (!judged[i].ok()) {
      if (judged[i].status().code() == StatusCode::kNotFound) continue;  // no point yet
      return judged[i].status();
    }
    if (auto series = observe::auto_monitor::ParseAutoSeries(batch[i].metric)) {
      auto until = learning_until.find(series->asset_id);
      if (until == learning_until.end() || judged[i]->latest.ts_ms < until->second) continue;
    }
    AddMetricSignal(batch[i].metric, batch[i].settings, assets[i], *judged[i], options, out);
  }
  return Status::Ok();
}

Status GatherChecks(const config::Workspace& ws, store::StateStore& store, const GatherOptions& options,
                    SignalBatch* out) {
  std::set<std::string> tables;
  for (const auto& c : ws.checks) tables.insert(c.asset_id);
  if (ws.lineage.dbt_tests) {
    // The tables the manifest's imported tests run on record results too; an unreadable manifest
    // leaves them out here as the check runs refuse it there.
    auto dbt = observe::quality::ImportDbtTestsFile(ws.lineage.dbt_manifest, observe::quality::DbtRelationPlacesOf(ws));
    if (dbt.ok())
      for (const auto& t : dbt->tables) tables.insert(t.ref.AssetIdString());
  }
  for (const std::string& table : tables) {
    auto rows = store.CheckResultsFor(table, 500);
    if (!rows.ok()) return rows.status();
    std::set<std::string> seen;  // newest first: the first of each check is its latest
    for (const store::CheckResultRow& r : *rows) {
      if (!seen.insert(r.check_name).second) continue;
      const bool is_new = options.after_seq ? r.seq > *options.after_seq && r.seq <= options.through_seq
                                            : r.observed_at >= options.since;
      if (!is_new) continue;
      std::string key = "check:" + r.table_ref + ":" + r.check_name;
      if (r.status == store::CheckStatus::kError) {
        // The check could not run (an unreachable warehouse, a query error): a gap in what we
        // know, never a data incident.
        out->gaps.push_back({key, r.table_ref, r.observed_at, r.message});
        continue;
      }
      Signal s;
      s.kind = SignalKind::kCheck;
      s.key = key;
      s.asset_id = r.table_ref;
      s.at = r.observed_at;
      // A check whose level is warn is recorded as a failure marked level: warn: shown, never an
      // incident by itself (docs/quality.md, "Levels and allowed rates").
      const bool warn_only = r.threshold.is_object() && r.threshold.value("level", Json()) == Json("warn");
      s.bad = r.status == store::CheckStatus::kFail && !warn_only;
      s.value = ObservedNumber(r);
      s.shape = s.bad ? ShapeOfCheck(r) : SignalShape::kUnknown;
      s.summary = r.check_name + " on " + r.table_ref + (s.bad ? " failed" : warn_only && r.status == store::CheckStatus::kFail ? " warned" : " passed") +
                  (r.message.empty() ? "" : ": " + r.message);
      s.evidence = {{"run_id", r.run_id}, {"check", r.check_name}, {"status", store::CheckStatusName(r.status)},
                    {"observed", r.observed}, {"threshold", r.threshold}, {"observed_at", FormatRfc3339(r.observed_at)}};
      out->signals.push_back(std::move(s));
    }
  }
  return Status::Ok();
}

Status GatherChanges(store::StateStore& store, const Clock& clock, const GatherOptions& options, SignalBatch* out) {
  // Events committed since the last pass are new, whenever they happened (a restore seen late, a
  // log read an hour after, still counts). By time (a store's first pass): read by happened_at
  // over 48 h before `since` and keep those observed since.
  auto events = options.after_seq
                    ? store.ChangeEventsCommitted(*options.after_seq, options.through_seq)
                    : store.ChangeEventsBetween(options.since - std::chrono::hours(48), clock.Now() + std::chrono::milliseconds(1));
  if (!events.ok()) return events.status();
  for (const store::ChangeEvent& e : *events) {
    if (!options.after_seq && e.observed_at < options.since) continue;
    if (e.kind == observe::changes::kPlatformUnreachable) {
      out->gaps.push_back({"change:" + e.dedup_key, e.asset_id, e.happened_at, e.reason});
      continue;
    }
    if (!IsReleaseGuardKind(e)) continue;  // other changes are candidates for diagnosis, not signals
    Signal s;
    s.kind = SignalKind::kChange;
    s.key = "change:" + e.dedup_key;
    s.asset_id = e.asset_id;
    s.at = e.happened_at;
    s.bad = true;
    s.value = e.risk;
    s.shape = SignalShape::kStateDropped;
    s.summary = e.kind + " on " + e.asset_id + ": " + e.reason;
    s.evidence = observe::changes::ChangeEventJson(e);
    out->signals.push_back(std::move(s));
  }
  return Status::Ok();
}

}  // namespace

Result<SignalBatch> GatherSignals(const config::Workspace& ws, store::StateStore& store, const Clock& clock,
                                  const GatherOptions& options) {
  SignalBatch out;
  if (options.metrics) DW_RETURN_IF_ERROR(GatherMetrics(ws, store, clock, options, &out));
  if (options.checks) DW_RETURN_IF_ERROR(GatherChecks(ws, store, options, &out));
  if (options.changes) DW_RETURN_IF_ERROR(GatherChanges(store, clock, options, &out));
  return out;
}

}  // namespace dw::incidents
