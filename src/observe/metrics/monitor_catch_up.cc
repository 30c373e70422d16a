#include "observe/metrics/monitor_catch_up.h"

#include "config/suggest.h"
#include "observe/metrics/monitor_query.h"
#include "observe/metrics/series_csv.h"

namespace dw::observe::metrics {
namespace {

Result<const config::MonitorConfig*> FindMonitor(const config::Workspace& ws, const std::string& name) {
  std::vector<std::string> names;
  for (const auto& m : ws.monitors) {
    if (m.name == name) return &m;
    names.push_back(m.name);
  }
  return NotFound("no monitor named \"" + name.substr(0, 80) + "\"" + config::DidYouMean(name, names));
}

// The newest stored point of `metric` at or before now, if any (searching the whole store).
Result<std::optional<int64_t>> LatestStored(store::StateStore& store, const std::string& metric,
                                            int64_t now) {
  // Narrow windows first: the latest point is almost always recent, and the store reads a window.
  for (int64_t span : {int64_t{7} * 24 * 3600 * 1000, int64_t{400} * 24 * 3600 * 1000, now}) {
    auto points = store.MetricPoints(metric, FromUnixMillis(now - span), FromUnixMillis(now + 1));
    if (!points.ok()) return points.status();
    if (!points->empty()) return std::optional<int64_t>(ToUnixMillis(points->back().ts));
  }
  return std::optional<int64_t>();
}

}  // namespace

Result<CatchUpReport> CatchUpMonitor(const config::Workspace& ws, store::StateStore& store,
                                     const std::string& name, const Clock& clock, HttpClient* http) {
  auto monitor = FindMonitor(ws, name);
  if (!monitor.ok()) return monitor.status();
  const config::MonitorConfig& m = **monitor;
  auto settings = SettingsFromMonitor(m);
  if (!settings.ok()) return settings.status();
  CatchUpReport report;
  if (!m.spec.contains("series_sql")) return report;
  auto wh = ws.warehouses.find(m.warehouse);
  if (wh == ws.warehouses.end())
    return NotFound("monitor " + name + ": warehouse " + m.warehouse + " is not configured");
  int64_t now = ToUnixMillis(clock.Now());
  auto latest = LatestStored(store, name, now);
  if (!latest.ok()) return latest.status();
  if (*latest) {
    int64_t behind = now - **latest;
    if (behind < 2 * settings->every_ms) return report;  // nothing missed
    report.missed_runs = static_cast<int>(behind / settings->every_ms - 1);
    // The latest stored point ends its bucket: read that bucket again (late rows settle it).
    report.window_start_ms = **latest - settings->every_ms;
  } else {
    report.window_start_ms = now - settings->training_window_ms;
  }
  report.window_end_ms = now;
  report.ran = true;
  report.queries = 1;
  auto rows = RunMonitorQuery(wh->second, m.spec["series_sql"].get<std::string>(),
                              FormatRfc3339(FromUnixMillis(report.window_start_ms)),
                              FormatRfc3339(FromUnixMillis(now)), http);
  if (!rows.ok()) return rows.status();
  auto points = SeriesPoints(name, *rows, settings->every_ms, now);
  if (!points.ok()) return points.status();
  auto recorded = RecordMetricPoints(store, name, *points);
  if (!recorded.ok()) return recorded.status();
  report.recorded = *recorded;
  return report;
}

Result<MonitorRun> RunMonitorOnce(const config::Workspace& ws, store::StateStore& store,
                                  const std::string& name, const Clock& clock, bool check_catch_up,
                                  const UnlearntWindows& unlearnt, HttpClient* http) {
  return std::move(RunMonitorsOnce(ws, store, {{name, check_catch_up}}, clock, EachOf(unlearnt), http).front());
}

std::vector<Result<MonitorRun>> RunMonitorsOnce(const config::Workspace& ws, store::StateStore& store,
                                                const std::vector<MonitorDue>& due, const Clock& clock,
                                                const UnlearntWindowsOfMany& unlearnt, HttpClient* http) {
  const size_t n = due.size();
  std::vector<std::optional<Status>> failed(n);
  std::vector<MonitorRun> runs(n);
  std::vector<MonitorSettings> settings(n);
  std::vector<MetricPointsToRecord> to_record;
  std::vector<size_t> recording;
  std::vector<std::pair<std::string, std::string>> windows(n);  // the query's bounds, for errors
  const int64_t now = ToUnixMillis(clock.Now());
  for (size_t i = 0; i < n; ++i) {
    const std::string& name = due[i].name;
    auto monitor = FindMonitor(ws, name);
    if (!monitor.ok()) {
      failed[i] = monitor.status();
      continue;
    }
    if (due[i].check_catch_up) {
      auto c = CatchUpMonitor(ws, store, name, clock, http);
      if (!c.ok()) {
        failed[i] = c.status();
        continue;
      }
      if (c->ran) {
        runs[i].queries += c->queries;
        runs[i].catch_up = *c;
      }
    }
    auto s = SettingsForMetric(ws, name);
    if (!s.ok()) {
      failed[i] = s.status();
      continue;
    }
    settings[i] = *s;
    // A series_sql-only monitor whose backfill already read every bucket up to now is judged
    // from the store; the others measure now.
    if (!(*monitor)->spec.contains("sql") && runs[i].catch_up) continue;
    ++runs[i].queries;
    auto measured = MeasureMonitor(ws, **monitor, settings[i], now, http);
    if (!measured.ok()) {
      failed[i] = measured.status();
      continue;
    }
    windows[i] = {measured->window_start, measured->window_end};
    to_record.push_back({name, std::move(measured->points)});
    recording.push_back(i);
  }
  auto recorded = RecordMetricPointsOfMany(store, to_record);
  for (size_t k = 0; k < recording.size(); ++k) {
    const size_t i = recording[k];
    if (!recorded[k].ok()) failed[i] = recorded[k].status();
    else if (recorded[k]->stored == 0)
      failed[i] = FailedPrecondition("monitor " + due[i].name + ": the query returned no value (NULL) for " +
                                     windows[i].first + " to " + windows[i].second +
                                     ", so nothing was recorded; no rows in the window?");
  }
  std::vector<MetricToJudge> to_judge;
  std::vector<size_t> judging;
  for (size_t i = 0; i < n; ++i) {
    if (failed[i]) continue;
    to_judge.push_back({due[i].name, settings[i]});
    judging.push_back(i);
  }
  auto judged = JudgeLatestPoints(store, to_judge, clock, unlearnt);
  for (size_t k = 0; k < judging.size(); ++k) {
    if (judged[k].ok()) runs[judging[k]].judgement = std::move(judged[k]).value();
    else failed[judging[k]] = judged[k].status();
  }
  std::vector<Result<MonitorRun>> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (failed[i]) out.emplace_back(*failed[i]);
    else out.emplace_back(std::move(runs[i]));
  }
  return out;
}

}  // namespace dw::observe::metrics
