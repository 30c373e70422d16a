#include "observe/metrics/metric_service.h"

#include "observe/auto_monitor/auto_series.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "config/duration.h"
#include "config/suggest.h"
#include "observe/auto_monitor/auto_series.h"
#include "observe/metrics/metric_batch.h"
#include "observe/metrics/metric_replayer.h"
#include "observe/metrics/monitor_query.h"
#include "observe/metrics/series_csv.h"
#include "observe/metrics/series_plot.h"
#include "observe/metrics/store_batches.h"

namespace dw::observe::metrics {
namespace {

bool ValidMetricName(const std::string& s) {
  if (s.empty() || s.size() > 200) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ':' ||
          c == '/' || c == '-'))
      return false;
  return true;
}

// 2200-01-01: later than any real point, and inside the clock's nanosecond range.
constexpr int64_t kFarFutureMs = 7258118400000LL;

Json NumberOrNull(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

}  // namespace

Result<MonitorSettings> SettingsFromMonitor(const config::MonitorConfig& m) {
  MonitorSettings s;
  const Json& j = m.spec;
  auto where = [&](const std::string& key) { return "monitor " + m.name + ": " + key + ": "; };
  try {
    if (j.contains("seasonality")) {
      auto v = ParseSeasonality(j["seasonality"].get<std::string>());
      if (!v.ok()) return InvalidArgument(where("seasonality") + v.status().message());
      s.detector.seasonality = *v;
    }
    if (j.contains("direction")) {
      auto v = ParseDirection(j["direction"].get<std::string>());
      if (!v.ok()) return InvalidArgument(where("direction") + v.status().message());
      s.detector.direction = *v;
    }
    if (j.contains("sensitivity")) s.detector.sensitivity = j["sensitivity"].get<double>();
    if (j.contains("min_abs_change")) s.detector.min_abs_change = j["min_abs_change"].get<double>();
    if (j.contains("min_rel_change")) s.detector.min_rel_change = j["min_rel_change"].get<double>();
    if (j.contains("expected")) {
      const Json& e = j["expected"];
      if (e.contains("min")) s.detector.expected_low = e["min"].get<double>();
      if (e.contains("max")) s.detector.expected_high = e["max"].get<double>();
    }
    for (const char* key : {"every", "training_window", "retention"}) {
      if (!j.contains(key)) continue;
      auto d = config::ParseDuration(j[key].get<std::string>());
      if (!d.ok()) return InvalidArgument(where(key) + d.status().message());
      if (d->count() <= 0) return InvalidArgument(where(key) + "must be longer than zero");
      std::string k = key;
      if (k == "every") s.every_ms = d->count();
      else if (k == "training_window") s.training_window_ms = d->count();
      else s.retention_ms = d->count();
    }
    if (s.retention_ms && *s.retention_ms < s.training_window_ms)
      return InvalidArgument(where("retention") + "is shorter than the training window (" +
                             config::FormatDuration(std::chrono::milliseconds(s.training_window_ms)) +
                             "), so the baseline would lose history it learns from");
    if (j.contains("asset")) s.asset_id = j["asset"].get<std::string>();
  } catch (const std::exception& e) {
    return InvalidArgument("monitor " + m.name + ": " + e.what());
  }
  if (Status st = ValidateDetectorOptions(s.detector); !st.ok())
    return InvalidArgument("monitor " + m.name + ": " + st.message());
  return s;
}

Result<RecordReport> RecordMetricPoints(store::StateStore& store, const std::string& metric,
                                        const std::vector<IncomingPoint>& points, bool keep_stored) {
  return std::move(RecordMetricPointsOfMany(
                       store, {{metric, points, keep_stored ? StoredValues::kKeep : StoredValues::kReplace}})
                       .front());
}

std::vector<Result<RecordReport>> RecordMetricPointsOfMany(store::StateStore& store,
                                                           const std::vector<MetricPointsToRecord>& batch) {
  const size_t n = batch.size();
  std::vector<std::optional<Status>> failed(n);
  std::vector<RecordReport> reports(n);
  std::vector<std::map<int64_t, double>> offered(n);  // last one at a timestamp wins
  std::set<std::string> seen;
  for (size_t k = 0; k < n; ++k) {
    const std::string& metric = batch[k].metric;
    if (!ValidMetricName(metric)) {
      failed[k] = InvalidArgument("metric name \"" + metric.substr(0, 60) +
                                  "\" must be 1-200 characters of letters, digits and _ . : / -");
      continue;
    }
    if (!seen.insert(metric).second) {
      failed[k] = InvalidArgument("metric " + metric + " is given twice in one batch; give its points once (nothing of the second stored)");
      continue;
    }
    const std::vector<IncomingPoint>& points = batch[k].points;
    for (size_t i = 0; i < points.size(); ++i) {
      const IncomingPoint& p = points[i];
      std::string at = "point " + std::to_string(i) + " (" + FormatSeriesTimestamp(p.ts_ms) + "): ";
      if (!p.value) {
        reports[k].rejected.push_back(at + "value is null");
        continue;
      }
      if (!std::isfinite(*p.value)) {
        reports[k].rejected.push_back(at + "value is " + (std::isnan(*p.value) ? "NaN" : "infinite"));
        continue;
      }
      if (offered[k].count(p.ts_ms)) ++reports[k].duplicates;
      offered[k][p.ts_ms] = *p.value;
    }
  }
  // What is stored from each batch's first timestamp on: exact collisions, and the latest point
  // (a stored point before the batch's first cannot make any of it out of order). One read.
  std::vector<size_t> reading;
  std::vector<store::MetricRange> ranges;
  for (size_t k = 0; k < n; ++k) {
    if (failed[k] || offered[k].empty()) continue;
    reading.push_back(k);
    ranges.push_back({batch[k].metric, FromUnixMillis(offered[k].begin()->first), FromUnixMillis(kFarFutureMs)});
  }
  auto existing = PointsOfMany(store, ranges);
  if (!existing.ok()) {
    for (size_t k : reading) failed[k] = existing.status();
    reading.clear();
  }
  std::vector<store::MetricPointsWrite> writes;
  std::vector<size_t> writing;
  for (size_t r = 0; r < reading.size(); ++r) {
    const size_t k = reading[r];
    RecordReport& report = reports[k];
    int64_t latest_ms = INT64_MIN;
    std::map<int64_t, double> unchanged;  // already stored with exactly this value
    for (const auto& e : (*existing)[r]) {
      int64_t ts = ToUnixMillis(e.ts);
      auto in_batch = offered[k].find(ts);
      if (in_batch != offered[k].end()) {
        if (in_batch->second == e.value) {
          ++report.replaced;
          unchanged.insert(*in_batch);
        } else if (batch[k].stored == StoredValues::kKeep) {
          report.rejected.push_back("point at " + FormatSeriesTimestamp(ts) + ": " + FormatMetricValue(e.value) +
                                    " is stored there and may have been judged; it is kept (a stored "
                                    "point is evidence: an agent cannot change it)");
          offered[k].erase(in_batch);
        } else {
          ++report.replaced;
        }
      }
      latest_ms = std::max(latest_ms, ts);
    }
    // Points already stored as they are are not written again: a series_sql backfill that
    // returns the same buckets every run must not count as a rewrite of the past (which would
    // discard the metric's detector snapshot, see store/metric_snapshots.h).
    store::MetricPointsWrite w{batch[k].metric, {}};
    for (const auto& [ts, v] : offered[k]) {
      if (ts < latest_ms) ++report.out_of_order;
      if (!unchanged.count(ts)) w.points.push_back({FromUnixMillis(ts), v});
    }
    report.stored = offered[k].size();
    if (!w.points.empty()) {
      writes.push_back(std::move(w));
      writing.push_back(k);
    }
  }
  if (Status st = UpsertPointsOfMany(store, writes); !st.ok())
    for (size_t k : writing) failed[k] = st;

  std::vector<Result<RecordReport>> out;
  out.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    if (failed[k]) out.push_back(*failed[k]);
    else out.push_back(std::move(reports[k]));
  }
  return out;
}

std::string AssetOfQualitySeries(const std::string& metric) {
  const std::string prefix = "quality:";
  if (!metric.starts_with(prefix)) return "";
  size_t scheme = metric.find("://", prefix.size());
  if (scheme == std::string::npos) return "";
  size_t end = metric.find(':', scheme + 3);
  if (end == std::string::npos) return "";
  return metric.substr(prefix.size(), end - prefix.size());
}

Result<MetricReplay> ReplayMetric(store::StateStore& store, const std::string& metric,
                                  const MonitorSettings& settings, const Clock& clock,
                                  const UnlearntWindows& unlearnt) {
  int64_t now = ToUnixMillis(clock.Now());
  TimePoint from = FromUnixMillis(HistoryStartMs(metric, settings.training_window_ms, now));
  TimePoint to = FromUnixMillis(now + 1);
  auto points = store.MetricPoints(metric, from, to);
  if (!points.ok()) return points.status();
  MetricReplay out;
  if (points->empty()) return out;
  auto marks = store.MetricMarks(metric, points->front().ts, points->back().ts);
  if (!marks.ok()) return marks.status();
  std::vector<UnlearntWindow> windows;
  if (unlearnt) {
    auto got = unlearnt(metric, settings.asset_id, points->front().ts, to);
    if (!got.ok()) return got.status();
    windows = std::move(got).value();
  }
  auto replayer = MetricReplayer::Start(metric, settings);
  if (!replayer.ok()) return replayer.status();
  out.verdicts.reserve(points->size());
  for (const auto& p : *points) out.verdicts.push_back(replayer->Feed(p, *marks, windows));
  out.seasonality = replayer->detector().active_seasonality();
  out.marked_points = replayer->marked_points();
  out.incident_points = replayer->incident_points();
  return out;
}

Result<MetricJudgement> EvaluateMonitor(const config::Workspace& ws, store::StateStore& store,
                                        const std::string& name, const Clock& clock,
                                        const UnlearntWindows& unlearnt, RecordReport* recorded,
                                        HttpClient* http) {
  const config::MonitorConfig* monitor = nullptr;
  std::vector<std::string> names;
  for (const auto& m : ws.monitors) {
    names.push_back(m.name);
    if (m.name == name) monitor = &m;
  }
  if (!monitor) {
    return NotFound("no monitor named \"" + name.substr(0, 80) + "\"" +
                    config::DidYouMean(name, names));
  }
  auto settings = SettingsFromMonitor(*monitor);
  if (!settings.ok()) return settings.status();
  settings->timezone = ws.timezone;
  auto measured = MeasureMonitor(ws, *monitor, *settings, ToUnixMillis(clock.Now()), http);
  if (!measured.ok()) return measured.status();
  const std::string& start = measured->window_start;
  const std::string& end = measured->window_end;
  const std::vector<IncomingPoint>& points = measured->points;
  auto report = RecordMetricPoints(store, name, points);
  if (!report.ok()) return report.status();
  if (recorded) *recorded = *report;
  if (report->stored == 0)
    return FailedPrecondition("monitor " + name + ": the query returned no value (NULL) for " + start +
                              " to " + end + ", so nothing was recorded; no rows in the window?");
  return JudgeLatestPoint(store, name, *settings, clock, unlearnt);
}

Result<std::string> PlotMetric(store::StateStore& store, const std::string& metric,
                               const MonitorSettings& settings, const Clock& clock,
                               const UnlearntWindows& unlearnt) {
  auto replay = ReplayMetric(store, metric, settings, clock, unlearnt);
  if (!replay.ok()) return replay.status();
  if (replay->verdicts.empty())
    return NotFound("metric " + metric.substr(0, 80) + " has no point in the last " +
                    config::FormatDuration(std::chrono::milliseconds(settings.training_window_ms)));
  return RenderSeriesSvg(metric + " (seasonality " + SeasonalityName(replay->seasonality) + ")",
                         replay->verdicts);
}

Result<MonitorSettings> SettingsForMetric(const config::Workspace& ws, const std::string& metric) {
  for (const auto& m : ws.monitors) {
    if (m.name != metric) continue;
    auto s = SettingsFromMonitor(m);
    if (s.ok()) s->timezone = ws.timezone;
    return s;
  }
  // An automatic monitor's series (observe/auto_monitor) has the settings of its measure.
  if (auto automatic = auto_monitor::AutoSeriesSettings(metric)) {
    automatic->timezone = ws.timezone;
    return *automatic;
  }
  MonitorSettings s;
  s.asset_id = AssetOfQualitySeries(metric);
  s.timezone = ws.timezone;
  return s;
}

Json JudgementToJson(const MetricJudgement& j) {
  const Verdict& v = j.latest;
  return Json{{"metric", j.metric},
              {"latest_ts", FormatRfc3339(FromUnixMillis(v.ts_ms))},
              {"latest_value", v.value},
              {"expected", NumberOrNull(v.expected)},
              {"band_low", NumberOrNull(v.band_low)},
              {"band_high", NumberOrNull(v.band_high)},
              {"score", v.score},
              {"verdict", VerdictKindName(v.kind)},
              {"sentence", v.explanation},
              {"seasonality", SeasonalityName(j.seasonality)},
              {"history_points", j.history_points},
              {"marked_expected_points", j.marked_points},
              {"incident_points", j.incident_points}};
}

}  // namespace dw::observe::metrics
