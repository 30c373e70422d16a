#include "observe/metrics/monitor_catch_up.h"

#include "config/suggest.h"
#include "observe/metrics/monitor_query.h"
#include "observe/metrics/series_csv.h"

namespace dw::observe::metrics {
namespace {

// 2200-01-01: later than any real point.
constexpr int64_t kFarFutureMs = 7258118400000LL;

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
                                     const std::string& name, const Clock& clock) {
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
    report.window_start_ms = **latest;
  } else {
    report.window_start_ms = now - settings->training_window_ms;
  }
  report.window_end_ms = now;
  report.ran = true;
  report.queries = 1;
  auto rows = RunMonitorQuery(wh->second, m.spec["series_sql"].get<std::string>(),
                              FormatRfc3339(FromUnixMillis(report.window_start_ms)),
                              FormatRfc3339(FromUnixMillis(now)));
  if (!rows.ok()) return rows.status();
  std::vector<IncomingPoint> points;
  for (const auto& r : *rows) {
    if (!r.bucket) return InvalidArgument("monitor " + name + ": series_sql returned a NULL bucket");
    auto ts = ParseSeriesTimestamp(*r.bucket);
    if (!ts.ok()) return InvalidArgument("monitor " + name + ": series_sql bucket: " + ts.status().message());
    if (*ts > now || *ts >= kFarFutureMs) continue;  // a bucket from the future is not a measurement
    points.push_back({*ts, r.value});
  }
  auto recorded = RecordMetricPoints(store, name, points);
  if (!recorded.ok()) return recorded.status();
  report.recorded = *recorded;
  return report;
}

Result<MonitorRun> RunMonitorOnce(const config::Workspace& ws, store::StateStore& store,
                                  const std::string& name, const Clock& clock, bool check_catch_up,
                                  const UnlearntWindows& unlearnt) {
  auto monitor = FindMonitor(ws, name);
  if (!monitor.ok()) return monitor.status();
  MonitorRun run;
  if (check_catch_up) {
    auto c = CatchUpMonitor(ws, store, name, clock);
    if (!c.ok()) return c.status();
    if (c->ran) {
      run.queries += c->queries;
      run.catch_up = *c;
    }
  }
  bool has_sql = (*monitor)->spec.contains("sql");
  if (!has_sql && run.catch_up) {
    // The backfill already read every bucket up to now: judge from the store.
    auto settings = SettingsForMetric(ws, name);
    if (!settings.ok()) return settings.status();
    auto j = JudgeLatestPoint(store, name, *settings, clock, unlearnt);
    if (!j.ok()) return j.status();
    run.judgement = *j;
    return run;
  }
  auto j = EvaluateMonitor(ws, store, name, clock, unlearnt, nullptr);
  ++run.queries;
  if (!j.ok()) return j.status();
  run.judgement = *j;
  return run;
}

}  // namespace dw::observe::metrics
