// Metrics as the product keeps them: points stored in the state store, judged by replaying the
// streaming detector over the stored history, and monitors from the workspace evaluated now.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/http.h"
#include "base/json.h"
#include "base/status.h"
#include "config/workspace.h"
#include "observe/metrics/detector.h"
#include "store/state_store.h"

namespace dw::observe::metrics {

// The detector options a monitor block asks for (defaults where it is silent; training_window
// defaults to 28 days). InvalidArgument naming the monitor and key when a value is unusable.
struct MonitorSettings {
  DetectorOptions detector;
  int64_t training_window_ms = 28LL * 24 * 3600 * 1000;
  int64_t every_ms = 3600LL * 1000;
  // The asset the metric measures (the monitor's `asset:`, or the table of a quality:<table>:...
  // series), handed to UnlearntWindows; "" when none is known.
  std::string asset_id;
  // The monitor's own `retention:`, when it sets one (else the workspace's metrics.retention).
  std::optional<int64_t> retention_ms;
  // The IANA zone whose wall clock the seasonal slots follow (the workspace `timezone`), so a
  // daily 09:00 keeps its slot across a daylight-saving change.
  std::string timezone = "UTC";
  // Whether JudgeLatestPoint resumes from (and saves) the detector snapshot in the store instead
  // of replaying the whole history (same verdicts either way; off only to compare the two).
  bool use_snapshots = true;
};
Result<MonitorSettings> SettingsFromMonitor(const config::MonitorConfig& m);

// A stretch of time whose points are judged but not learnt, for a reason only the caller knows
// (an incident covering the metric was open then: what an incident covers is the incidents
// stage's to decide, so this stage reads no incidents).
struct UnlearntWindow {
  std::string label;             // named in the verdict: "...; inside <label>, so not learnt"
  TimePoint from;
  std::optional<TimePoint> to;   // unset: still open
};
// The windows overlapping [from, to) for `metric` (of `asset_id`, "" when unknown); the
// provider's error fails the judgement. An empty function means none.
using UnlearntWindows = std::function<Result<std::vector<UnlearntWindow>>(
    const std::string& metric, const std::string& asset_id, TimePoint from, TimePoint to)>;

// A point offered for recording; value nullopt for an explicit null.
struct IncomingPoint {
  int64_t ts_ms = 0;
  std::optional<double> value;
};

struct RecordReport {
  size_t stored = 0;             // points written (a point at an existing timestamp replaces it)
  size_t duplicates = 0;         // same timestamp twice in this batch: the last one kept
  size_t out_of_order = 0;       // older than the latest point already stored (stored anyway)
  size_t replaced = 0;           // timestamps that already had a stored value
  std::vector<std::string> rejected;  // "point 3: value is NaN", ... (not stored)
};

// Validates and stores `points` of `metric`: NaN, infinite and null values are rejected (and
// reported); the rest are written in one transaction. InvalidArgument for a bad metric name
// (1-200 characters of letters, digits and _ . : / -); the store's error if the write fails.
// With `keep_stored`, a point whose timestamp already holds a different value is rejected
// (reported, the stored value kept): the form for writes made on an agent's behalf.
Result<RecordReport> RecordMetricPoints(store::StateStore& store, const std::string& metric,
                                        const std::vector<IncomingPoint>& points, bool keep_stored = false);

// The verdict on the latest stored point of `metric`, judged with the stored points before it
// within `settings.training_window_ms` of now. NotFound when no point is stored.
struct MetricJudgement {
  std::string metric;
  Verdict latest;
  size_t history_points = 0;  // points replayed, the latest included
  Seasonality seasonality = Seasonality::kNone;
  size_t marked_points = 0;    // replayed points inside a range marked expected (learnt)
  size_t incident_points = 0;  // replayed points inside an incident's window (judged, not learnt)
  // How the detector got here: resumed from the stored snapshot, or replayed from the start of
  // the history (then `replay_reason` says why: no snapshot yet, a mark, a rewritten point, ...).
  bool from_snapshot = false;
  std::string replay_reason;
  size_t points_fed = 0;  // points fed to the detector by this judgement (the latest included)
};

// Every stored point of `metric` from the start of its history (HistoryStartMs in
// metric_replayer.h: the start of the current training period, between one and two training
// windows before now) to now, replayed through a fresh
// detector that sees local wall-clock time in `settings.timezone` (verdicts keep the real
// timestamps; a wall-clock hour repeated when clocks go back is judged in the same slot): points inside a range marked expected (store MetricMarks) are learnt as expected;
// other points inside one of `unlearnt`'s windows are judged but not learnt; the rest are judged
// and learnt as usual. The store's (or the window provider's) error on failure.
struct MetricReplay {
  std::vector<Verdict> verdicts;  // one per stored point, oldest first
  Seasonality seasonality = Seasonality::kNone;
  size_t marked_points = 0;
  size_t incident_points = 0;
};
Result<MetricReplay> ReplayMetric(store::StateStore& store, const std::string& metric,
                                  const MonitorSettings& settings, const Clock& clock,
                                  const UnlearntWindows& unlearnt);

// The asset of a quality series "quality:<asset id>:<measure>..." ("" for any other name).
std::string AssetOfQualitySeries(const std::string& metric);
// ReplayMetric's verdict on the latest point. With settings.use_snapshots it resumes from the
// metric's detector snapshot in the store when that is still valid (same detector version and
// settings, same history start, no point written at or before its end since, no mark or incident
// window changed over what it learnt) and replays only the points after it; otherwise it replays
// the whole history (a snapshot that fails to decode is logged and discarded). A replay then saves
// a snapshot through the point before the latest; a resumed judgement does so on the metric's
// turn, every kSnapshotEveryPoints points (metric_batch.h). A failed snapshot save is logged,
// never fails the judgement.
Result<MetricJudgement> JudgeLatestPoint(store::StateStore& store, const std::string& metric,
                                         const MonitorSettings& settings, const Clock& clock,
                                         const UnlearntWindows& unlearnt);

// Runs monitor `name` now: its SQL on its warehouse (one value, stored at now), then judges it.
// NotFound (with close names) for an unknown monitor; the query's error otherwise. A monitor with
// only series_sql stores every (bucket, value) row it returns (a backfill) and judges the latest.
// `http` carries a REST warehouse's calls (BigQuery, Snowflake).
Result<MetricJudgement> EvaluateMonitor(const config::Workspace& ws, store::StateStore& store,
                                        const std::string& name, const Clock& clock,
                                        const UnlearntWindows& unlearnt, RecordReport* recorded,
                                        HttpClient* http = nullptr);

// An SVG of `metric`'s stored points within the training window, judged by replaying the
// detector (see series_plot.h). NotFound when no point is stored.
Result<std::string> PlotMetric(store::StateStore& store, const std::string& metric,
                               const MonitorSettings& settings, const Clock& clock,
                               const UnlearntWindows& unlearnt);

// The settings for `metric`: those of the workspace monitor with that name, else the defaults;
// with the workspace's time zone either way.
Result<MonitorSettings> SettingsForMetric(const config::Workspace& ws, const std::string& metric);

// The judgement as the MCP tool answers it (metric, latest_ts, latest_value, expected, band_low,
// band_high, score, verdict, sentence, seasonality, history_points); unbounded band sides are null.
Json JudgementToJson(const MetricJudgement& j);

}  // namespace dw::observe::metrics
