// The streaming metric detector: judges each point of a series using only the points before it.
//
// Baseline: the median of recent normal points (of the same calendar slot when the series is
// seasonal), so one outlier cannot drag it; spread: the scaled MAD of past residuals. A point is
// anomalous when it lies `sensitivity` robust deviations away in the watched direction AND moves at
// least the minimum absolute and relative change, or when it leaves the hard `expected` range.
// Anomalous points stay out of training (so an incident is not learnt as the new normal) unless
// the caller marks them expected, or they persist for `relearn_after` points (a level shift that
// has become the new normal). A run of identical values that the series' history makes
// improbable is reported as stuck. A run of points each inside the band but together improbably
// far to one side is reported as a (sustained) anomaly. A level the caller marked expected becomes
// the baseline when the series stays there. Fewer than `min_history` points: "insufficient
// history".
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "observe/metrics/context_novelty.h"
#include "observe/metrics/seasonality.h"

namespace dw::observe::metrics {

enum class Direction { kBoth, kDrop, kSpike };
// Parses "both", "drop", "spike"; InvalidArgument otherwise.
Result<Direction> ParseDirection(std::string_view text);
const char* DirectionName(Direction d);

struct DetectorOptions {
  Seasonality seasonality = Seasonality::kAuto;
  Direction direction = Direction::kBoth;
  // Robust deviations (scaled MADs) from the baseline beyond which a point is anomalous.
  double sensitivity = 4.0;
  double min_abs_change = 0;  // |value - expected| below this is never reported
  double min_rel_change = 0;  // |value - expected| / |expected| below this is never reported
  // Hard bounds: a value outside is anomalous whatever the history says.
  std::optional<double> expected_low;
  std::optional<double> expected_high;
  size_t training_points = 1000;  // the most recent normal points the baseline learns from
  size_t min_history = 30;        // fewer normal points than this: insufficient history
  size_t level_window = 48;       // normal points in the non-seasonal median
  size_t season_depth = 6;        // past values of the same slot in the seasonal median
  size_t level_shift_points = 3;  // a run this long in one direction is called a level shift
  // A run of anomalies this long in one direction is accepted as the new normal (0: never).
  size_t relearn_after = 6;
  // Stuck: a run of identical values whose probability under the history is below this.
  double stuck_probability = 1e-6;
  // An alarm within this many points of the previous one, and less than 1.5 times the episode's
  // peak, continues that episode: its score is cut to 30% so that one incident is reported once.
  size_t repeat_quiet_points = 96;
  size_t stuck_min_points = 3;
  // The ramp test for slow drifts (detector.cc): > 0 raises a drift when the deviations of the
  // last 12 to 72 points, weighted as a ramp, reach this many standard deviations; 0 (the
  // default) leaves it off. A bench option (issue 19): measured, not adopted.
  double drift_ramp_z = 0;
};

// Checks that `o` is usable (finite positive sensitivity, ordered bounds, ...); InvalidArgument
// naming the field otherwise.
Status ValidateDetectorOptions(const DetectorOptions& o);

enum class VerdictKind {
  kInsufficientHistory,  // not enough normal history to judge
  kNormal,
  kAnomaly,       // a spike or a drop
  kLevelShift,    // an anomaly that has lasted level_shift_points points in one direction
  kStuck,         // the value stopped moving
  kOutOfBounds,   // outside the declared expected range
  kExpected,      // the caller marked the point expected: learnt, not judged
  kInvalid,       // NaN, infinite, or not after the latest point: ignored
};
const char* VerdictKindName(VerdictKind k);
inline bool IsAlarm(VerdictKind k) {
  return k == VerdictKind::kAnomaly || k == VerdictKind::kLevelShift ||
         k == VerdictKind::kStuck || k == VerdictKind::kOutOfBounds;
}

struct Verdict {
  int64_t ts_ms = 0;
  double value = 0;
  VerdictKind kind = VerdictKind::kInsufficientHistory;
  // The baseline and the band of normal values; NaN when there is no baseline yet.
  double expected = std::numeric_limits<double>::quiet_NaN();
  double band_low = std::numeric_limits<double>::quiet_NaN();
  double band_high = std::numeric_limits<double>::quiet_NaN();
  double deviation = 0;  // signed robust deviations from the baseline
  // 0..1, how unusual the point is: monotone in the robust deviation, 0.5 at the alarm threshold
  // for a series with no recent alarm episode (see `repeat` and the episode discount in
  // detector.cc); at least 0.6 x `novelty` when that is the first novel point for a while, so a
  // point judged normal can rank above 0.5 when its shape has never been seen. Alarms follow
  // `kind`, not this number.
  double score = 0;
  // 0..1: how unseen the point's recent shape is (ContextNovelty: 1 for a context of levels never
  // seen before or a value leaving the range seen so far, 1/(1+n) for one seen n times).
  double novelty = 0;
  std::string slot;      // the calendar slot compared with ("Tuesday 15:00"), "" if none
  int missing_before = 0;  // points missing between the previous point and this one
  bool learnt = false;     // whether the point entered the training history
  bool repeat = false;     // an alarm that continues an episode already reported
  // An anomaly raised because the last few points together sit improbably far from the baseline
  // (a sustained shift), though this point alone is within the band.
  bool sustained = false;
  // An anomaly raised because the deviations since the series last sat at its baseline add up
  // (a one-sided CUSUM) to more than its history makes likely: a slow drift, though this point
  // alone is within the band and the last few points are not yet unusual together.
  bool drift = false;
  std::string explanation;  // one sentence a person can read
};

class StreamingDetector {
 public:
  friend struct DetectorStateCodec;  // detector_state.cc: snapshots of the whole state

  // REQUIRES: ValidateDetectorOptions(options).ok().
  StreamingDetector(std::string metric_name, DetectorOptions options);

  // Judges the point (ts_ms, value) against the history so far, then learns from it when it is
  // normal or `expected` is true. Never fails: bad points come back as kInvalid.
  Verdict Observe(int64_t ts_ms, double value, bool expected = false);

  // Judges the point exactly like Observe but never learns from it, nor counts it towards a
  // level shift accepted as the new normal (a point inside an open incident: the damage must not
  // become the baseline). The point still advances time (gaps, stuck runs, alarm episodes).
  Verdict ObserveWithoutLearning(int64_t ts_ms, double value);

  // When no point has arrived for more than twice the usual interval before `now_ms`, how many
  // points are missing; 0 otherwise (or with too little history to know the interval).
  int MissingPointsAt(int64_t now_ms) const;

  // The seasonality in use (the detected one when the option is auto; kNone until detected).
  Seasonality active_seasonality() const { return active_; }
  size_t history_size() const { return training_.size(); }
  // What the drift test holds now, for diagnostics (bench instrumentation): the two one-sided
  // sums, the mean and the long-run spread it standardises the deviations with, and the robust
  // spread of the residuals last computed. Reading it changes nothing.
  struct DriftState {
    double up = 0, down = 0, mean = 0, spread = 0, scale = 0;
  };
  DriftState drift_state() const;
  // Approximate heap bytes held by this detector.
  size_t MemoryBytes() const;

 private:
  struct Point {
    int64_t ts_ms;
    double value;
  };
  void Learn(const Point& p, double residual);
  // Moves the history learnt before the marked run by pending_shift_ (see Observe).
  void AdoptMarkedLevel();
  double Baseline(int64_t ts_ms, std::string* slot);
  // The spread a point is judged with: that of the residuals measured against the same basis
  // (`fallback`: the level median standing in for a slot with too few values), floored.
  double Scale(double baseline, bool fallback);
  // The robust spread of `learnt` (a MAD), at least what puts the 98th percentile of `judged` at
  // 2.33 deviations, and one unit on a series of whole numbers.
  // `factor`: what the residuals were divided by (LevelFactor), which the whole-unit floor is too.
  double SpreadOf(const std::deque<float>& learnt, const std::deque<float>& judged, double baseline,
                  double factor) const;
  // How much wider than the series' typical spread a slot at `baseline` is: its level against
  // cached_typical_ (clamped) to the power cached_level_power_, so that a slot at a quarter of
  // the typical level gets half the spread on a Poisson count (power 0.5) and a quarter under
  // multiplicative noise (power 1); 1 without seasonality or a measured power.
  double LevelFactor(double baseline) const;
  // Sets cached_typical_ (the median of the training values) and cached_level_power_ (how the
  // distance of learnt points from their slot's median grows with the slot's level, 0 to 1);
  // both 0 without seasonality or on a series that goes negative; the power is 0.5 (a count's)
  // while too few points or too narrow a range of levels leave it unmeasured.
  void MeasureLevelScaling();
  // How many values a slot needs before its median is the baseline.
  size_t MinSlotValues() const;
  void MaybeDetectSeasonality();
  void RebuildSlots();
  // After a change of seasonality: re-runs the sustained-shift and drift tests over the learnt
  // history as predicted under the new seasonality, so that they need not relearn for
  // kShiftWarmup points (a drift under way at the switch is seen at once).
  // Returns the prediction errors it replayed (oldest first).
  std::vector<double> ReplayDeviationTests();
  // Adds one standardised deviation to the ramp test's window (the last kRampMaxPoints).
  void PushRamp(double u);
  // The ramp test's largest statistic over its window lengths, rising and falling (each >= 0).
  std::pair<double, double> RampStatistics() const;
  size_t SlotOf(int64_t ts_ms) const;
  double TypicalIntervalMs() const;
  // The learnt points' values, oldest first, in one array.
  std::vector<double> TrainingValues() const;
  std::string Explain(const Verdict& v, double residual) const;

  std::string name_;
  DetectorOptions o_;
  Seasonality active_ = Seasonality::kNone;
  std::deque<Point> training_;
  // Residuals in single precision: they only feed the spread (a MAD and a tail quantile), where
  // 24 bits are far more than the estimate's own precision, and halving them keeps a snapshot
  // of the detector (detector_state.h) under 16 kB.
  std::deque<float> residuals_;         // residuals of learnt points
  std::deque<float> judged_residuals_;  // residuals of every judged point
  // Residuals of points judged against the level median because their seasonal slot had too few
  // values (the first weeks of hour_of_week). Kept apart: mixed with the slots' residuals they
  // carried the daily wave into the slots' spread, and the 98th-percentile floor kept the band
  // two to three times too wide for weeks (issue 37).
  std::deque<float> fallback_residuals_;
  std::vector<std::deque<double>> slots_;  // recent normal values per calendar slot
  std::deque<int64_t> intervals_;          // recent gaps between points, ms
  int64_t slot_resolution_ms_ = 0;  // > 0: phase slots finer than an hour
  double cached_scale_ = 0;
  double cached_fallback_scale_ = 0;
  double cached_typical_ = 0;      // see MeasureLevelScaling, as of the last spread computed
  double cached_level_power_ = 0;
  size_t since_scale_ = 1 << 30;
  size_t since_season_check_ = 0;
  std::optional<Point> last_;
  size_t points_seen_ = 0;
  size_t last_alarm_at_ = 0;      // points_seen_ at the latest alarm, 0 if none
  double episode_peak_ = 0;       // the episode's worst alarm so far, in robust deviations
  double episode_busy_ = 1;       // the discount of the current episode (see detector.cc)
  std::deque<std::pair<size_t, double>> episode_starts_;  // recent episodes: start, peak
  std::deque<std::pair<double, double>> marked_;  // the current marked run: value, baseline
  int64_t marked_from_ms_ = 0;
  bool marked_mult_ = true;          // the run's shift is a ratio (all positive), else a difference
  std::optional<double> pending_shift_;  // the last marked run's shift, until confirmed or left
  bool pending_mult_ = true;
  int64_t pending_from_ms_ = 0;
  size_t pending_age_ = 0;  // points judged since the marked run ended
  std::deque<double> recent_devs_;  // the last few capped deviations (sustained-shift test)
  double recent_sum_ = 0;
  double shift_mean_ = 0;  // running mean and variance of the mean of recent_devs_
  double shift_var_ = 0;
  size_t shift_n_ = 0;
  double drift_up_ = 0;    // one-sided CUSUMs of the standardised deviations (drift test)
  double drift_down_ = 0;
  std::deque<float> ramp_;  // the latest standardised deviations the drift tests saw (ramp test)
  size_t stuck_points_ = 0;       // consecutive points reported stuck
  size_t same_run_ = 0;           // identical consecutive values ending at the last point
  double repeat_pairs_ = 0;       // consecutive equal pairs among learnt points (decayed)
  double all_pairs_ = 0;
  std::optional<double> last_learnt_;
  int run_sign_ = 0;              // direction of the current anomaly run
  std::vector<std::pair<Point, double>> run_;  // the current anomaly run (point, residual)
  bool judge_only_ = false;       // set by ObserveWithoutLearning for one call
  ContextNovelty novelty_;  // how unseen the recent shape is (scores only, never the verdict)
  size_t novel_at_ = 0;     // points_seen_ at the latest novel point that scored, 0 if none
};

// Formats `v` for a sentence: thousands separators, at most 4 significant digits after them
// ("1,140", "0.0912", "-3.5").
std::string FormatMetricValue(double v);

}  // namespace dw::observe::metrics
