#include "observe/metrics/detector.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "observe/metrics/robust_stats.h"

namespace dw::observe::metrics {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int64_t kHourMs = 3600LL * 1000;
constexpr int64_t kDayMs = 24 * kHourMs;
constexpr size_t kScaleEvery = 32;         // recompute the spread every this many points
// The spread's floor relative to the level: a move of 0.5% is at most one deviation, so a
// perfectly steady series alarms (at the default sensitivity, 4) on a move of 2% or more.
constexpr double kLevelFloor = 0.005;
constexpr size_t kSeasonCheckEvery = 256;  // re-test seasonality at most this many learnt points apart
constexpr size_t kIntervalsKept = 32;
constexpr size_t kBusyWindow = 8000;      // points over which alarm episodes are counted
constexpr double kBusyDiscount = 0.15;    // each recent episode divides a new one's deviation by +0.15
constexpr size_t kMarkedLevelPoints = 24;  // points after a marked run that may confirm its level
constexpr size_t kShiftPoints = 8;        // points averaged by the sustained-shift test
constexpr size_t kShiftWarmup = 64;       // normal means seen before the test speaks
constexpr size_t kShiftMemory = 1000;     // the spread of the mean is learnt over about this many
// A sustained shift: the recent mean lies kShiftZ of its usual standard deviations away, and at
// least kShiftMinMean robust deviations from the baseline (so a very steady series does not
// alarm on a mean that is unusual yet tiny).
constexpr double kShiftZ = 3.0;
constexpr double kShiftMinMean = 2.5;
constexpr double kShiftPointMin = 1.0;     // robust deviations the point itself must lie to that side
// Drift (a one-sided CUSUM of the capped deviations, standardised by their long-run spread):
// each point adds its standardised deviation less kDriftSlack; past kDriftLimit it is a drift.
constexpr double kDriftSlack = 0.75;
constexpr double kDriftLimit = 12.0;
// The long-run spread of the deviations (the drift test's unit, times sqrt(kShiftPoints) the
// sustained-shift test's) is never taken as below this: on a flat series under the spread's floor
// every deviation is near 0, and one point at 1.4 would otherwise be a drift by itself. With it, a
// steady 1.4 deviations (0.7% on a flat series) is a drift after about six points.
constexpr double kDeviationSpreadFloor = 0.5;

// The drift test's unit: the long-run spread of the deviations, given the variance of the mean of
// kShiftPoints of them, floored as above.
double DriftUnit(double shift_var) {
  return std::max(std::sqrt(std::max(static_cast<double>(kShiftPoints) * shift_var, 1e-12)), kDeviationSpreadFloor);
}
// Ramp test (DetectorOptions::drift_ramp_z, off by default): the standardised deviations of the
// last L points, for every L from kRampMinPoints to kRampMaxPoints, weighted 1, 2, ..., L from
// the oldest to the newest (the shape of a ramp starting L points ago), summed and divided by the
// weights' norm: under no drift about a standard normal.
constexpr size_t kRampMinPoints = 12;
constexpr size_t kRampMaxPoints = 72;
// hour_of_week is judged as a candidate seasonality by predicting each point from the median of
// at least this many earlier values of its slot (other candidates: 3). Two let it be judged, and
// adopted, after three weeks of hourly data instead of four: before that a weekly series is
// judged by hour_of_day, its weekends unexplained, and neither shift test can see a drift.
constexpr size_t kWeeklyPredictorValues = 2;
// day_of_week likewise, from at least one earlier value of the weekday, so that a daily series
// can adopt it from three weeks of history (issue 37).
constexpr size_t kDailyPredictorValues = 1;
// A basis (the seasonal slots, or the level fallback while a slot has too few values) is judged
// by the spread of its own residuals once it has this many; the fallback keeps its latest
// kFallbackResidualsKept (it serves only while the slots fill).
constexpr size_t kOwnSpreadResiduals = 32;
// Level-relative spread (LevelFactor): the slot's level against the series' typical one is
// clamped to this range before its power scales the spread.
constexpr double kLevelRatioMin = 0.05;
constexpr double kLevelRatioMax = 20;
// Slots whose levels differ less than this (the upper half's median against the lower half's)
// are judged with one spread: too little range to measure how the noise grows with the level.
constexpr double kLevelSpreadMinRatio = 1.5;
constexpr double kDefaultLevelPower = 0.5;
constexpr size_t kFallbackResidualsKept = 256;
constexpr double kEscalation = 1.5;       // an alarm this many times the episode's peak is news again
constexpr int64_t kMaxSlots = 2016;       // a week at 5-minute resolution
constexpr double kRepeatDecay = 0.999;     // memory of how often the series repeats a value
// A value's own rate of repeats (how often the training points followed it by itself) judges a run
// of it once the value was followed by something at least this many times (issue 19, fourth
// round: 0 on a count series repeats far more than the series' values in general).
constexpr size_t kStuckValueSupport = 10;
// Context novelty (context_novelty.h): levels of the running range, values per context, points
// seen before it speaks, and the score of a never-seen context.
constexpr int kNoveltyLevels = 6;
constexpr size_t kNoveltyDepth = 2;
constexpr size_t kNoveltyWarmup = 300;
constexpr double kNoveltyScore = 0.6;

// How often, among consecutive training points, `value` was followed by the same value; 0 when
// it was followed by anything fewer than kStuckValueSupport times (too few to say). A template
// over the detector's own point type, which is private to it.
template <class Points>
double ValueRepeatRate(const Points& training, double value) {
  size_t from = 0, same = 0;
  for (size_t i = 1; i < training.size(); ++i)
    if (training[i - 1].value == value) {
      ++from;
      same += training[i].value == value ? 1 : 0;
    }
  if (from < kStuckValueSupport) return 0;
  return static_cast<double>(same) / static_cast<double>(from);
}

}  // namespace

Result<Direction> ParseDirection(std::string_view text) {
  if (text == "both") return Direction::kBoth;
  if (text == "drop") return Direction::kDrop;
  if (text == "spike") return Direction::kSpike;
  return InvalidArgument("direction \"" + std::string(text) + "\" is not one of both, drop, spike");
}

const char* DirectionName(Direction d) {
  switch (d) {
    case Direction::kBoth: return "both";
    case Direction::kDrop: return "drop";
    case Direction::kSpike: return "spike";
  }
  return "both";
}

const char* VerdictKindName(VerdictKind k) {
  switch (k) {
    case VerdictKind::kInsufficientHistory: return "insufficient_history";
    case VerdictKind::kNormal: return "normal";
    case VerdictKind::kAnomaly: return "anomaly";
    case VerdictKind::kLevelShift: return "level_shift";
    case VerdictKind::kStuck: return "stuck";
    case VerdictKind::kOutOfBounds: return "out_of_bounds";
    case VerdictKind::kExpected: return "expected";
    case VerdictKind::kInvalid: return "invalid";
  }
  return "invalid";
}

Status ValidateDetectorOptions(const DetectorOptions& o) {
  if (!(o.sensitivity > 0) || !std::isfinite(o.sensitivity))
    return InvalidArgument("sensitivity must be a finite number above 0");
  if (!(o.min_abs_change >= 0) || !std::isfinite(o.min_abs_change))
    return InvalidArgument("min_abs_change must be a finite number >= 0");
  if (!(o.min_rel_change >= 0) || !std::isfinite(o.min_rel_change))
    return InvalidArgument("min_rel_change must be a finite number >= 0");
  if (o.expected_low && !std::isfinite(*o.expected_low))
    return InvalidArgument("expected low bound must be finite");
  if (o.expected_high && !std::isfinite(*o.expected_high))
    return InvalidArgument("expected high bound must be finite");
  if (o.expected_low && o.expected_high && *o.expected_low > *o.expected_high)
    return InvalidArgument("expected range is empty: low bound above high bound");
  if (o.training_points < 8) return InvalidArgument("training window must hold at least 8 points");
  if (o.min_history < 3) return InvalidArgument("min_history must be at least 3 points");
  if (o.level_window < 1 || o.season_depth < 1 || o.level_shift_points < 1)
    return InvalidArgument("level_window, season_depth and level_shift_points must be at least 1");
  if (!(o.stuck_probability > 0 && o.stuck_probability < 1))
    return InvalidArgument("stuck_probability must lie strictly between 0 and 1");
  if (!(o.drift_ramp_z >= 0) || !std::isfinite(o.drift_ramp_z))
    return InvalidArgument("drift_ramp_z must be a finite number >= 0");
  return Status::Ok();
}

StreamingDetector::StreamingDetector(std::string metric_name, DetectorOptions options)
    : name_(std::move(metric_name)), o_(std::move(options)), novelty_(kNoveltyLevels, kNoveltyDepth) {
  if (o_.seasonality != Seasonality::kAuto) active_ = o_.seasonality;
  RebuildSlots();
}

std::vector<double> StreamingDetector::TrainingValues() const {
  std::vector<double> values(training_.size());
  double* out = values.data();
  for (const Point& p : training_) *out++ = p.value;
  return values;
}

double StreamingDetector::TypicalIntervalMs() const {
  if (intervals_.empty()) return 0;
  std::vector<double> v(intervals_.begin(), intervals_.end());
  return MedianInPlace(v);
}

int StreamingDetector::MissingPointsAt(int64_t now_ms) const {
  if (!last_ || intervals_.size() < 3) return 0;
  double interval = TypicalIntervalMs();
  if (interval <= 0) return 0;
  double gap = static_cast<double>(now_ms - last_->ts_ms);
  if (gap <= 2 * interval) return 0;
  return static_cast<int>(std::floor(gap / interval + 0.5)) - 1;
}

size_t StreamingDetector::SlotOf(int64_t ts_ms) const {
  if (slot_resolution_ms_ > 0) {
    // Sub-hourly data under an hourly seasonality: the slot is the phase within the day (or the
    // week, from Monday 00:00) at the data's own resolution, so that 09:05 is compared with
    // earlier 09:05s rather than with the whole 09:00 hour.
    int64_t period = active_ == Seasonality::kHourOfWeek ? 7 * kDayMs : kDayMs;
    int64_t shifted = ts_ms + (active_ == Seasonality::kHourOfWeek ? 3 * kDayMs : 0);
    int64_t phase = ((shifted % period) + period) % period;
    return static_cast<size_t>(phase / slot_resolution_ms_);
  }
  return static_cast<size_t>(SeasonalSlot(active_, ts_ms));
}

void StreamingDetector::RebuildSlots() {
  slot_resolution_ms_ = 0;
  size_t count = static_cast<size_t>(SeasonalSlotCount(active_));
  double interval = TypicalIntervalMs();
  if ((active_ == Seasonality::kHourOfDay || active_ == Seasonality::kHourOfWeek) && interval > 0 &&
      interval < kHourMs) {
    int64_t period = active_ == Seasonality::kHourOfWeek ? 7 * kDayMs : kDayMs;
    slot_resolution_ms_ = std::max<int64_t>(static_cast<int64_t>(interval), period / kMaxSlots);
    count = static_cast<size_t>((period + slot_resolution_ms_ - 1) / slot_resolution_ms_);
  }
  slots_.assign(count, {});
  if (slots_.size() <= 1) return;
  for (const Point& p : training_) {
    auto& slot = slots_[SlotOf(p.ts_ms)];
    slot.push_back(p.value);
    if (slot.size() > o_.season_depth) slot.pop_front();
  }
}

double StreamingDetector::LevelFactor(double baseline) const {
  if (!(cached_typical_ > 0) || !(baseline >= 0) || cached_level_power_ == 0) return 1;
  return std::pow(std::clamp(baseline / cached_typical_, kLevelRatioMin, kLevelRatioMax), cached_level_power_);
}

void StreamingDetector::MeasureLevelScaling() {
  cached_typical_ = 0;
  cached_level_power_ = 0;
  if (slots_.size() <= 1 || training_.empty()) return;
  std::vector<double> values = TrainingValues();
  for (double x : values)
    if (x < 0) return;  // a series that goes negative has no level to scale by
  std::vector<double> slot_median(slots_.size(), kNaN);
  std::vector<double> v;
  for (size_t k = 0; k < slots_.size(); ++k)
    if (slots_[k].size() >= MinSlotValues()) {
      v.assign(slots_[k].begin(), slots_[k].end());
      slot_median[k] = MedianInPlace(v);
    }
  // Each learnt point's slot level and its distance from it; the points of the lower-level half
  // against those of the upper half give the power: log(spread ratio) / log(level ratio).
  std::vector<std::pair<double, double>> pairs;
  for (const Point& p : training_) {
    double m = slot_median[SlotOf(p.ts_ms)];
    if (m > 0) pairs.push_back({m, std::fabs(p.value - m)});
  }
  double typical = MedianInPlace(values);
  if (!(typical > 0)) return;
  cached_typical_ = typical;
  // Until it can be measured, the power of a count's noise (a daily series has a few dozen
  // points): the safer side, since multiplicative noise (1) would make a quiet slot of a Poisson
  // count cry wolf, while 0.5 only leaves it wider than need be.
  cached_level_power_ = kDefaultLevelPower;
  if (pairs.size() < 2 * kOwnSpreadResiduals) return;
  std::sort(pairs.begin(), pairs.end());
  size_t half = pairs.size() / 2;
  auto medians = [&](size_t from, size_t to) {
    std::vector<double> level, dist;
    for (size_t i = from; i < to; ++i) {
      level.push_back(pairs[i].first);
      dist.push_back(pairs[i].second);
    }
    return std::make_pair(MedianInPlace(level), MedianInPlace(dist));
  };
  auto [level_lo, dist_lo] = medians(0, half);
  auto [level_hi, dist_hi] = medians(half, pairs.size());
  if (!(level_hi >= kLevelSpreadMinRatio * level_lo) || !(dist_lo > 0) || !(dist_hi > 0)) return;
  cached_level_power_ = std::clamp(std::log(dist_hi / dist_lo) / std::log(level_hi / level_lo), 0.0, 1.0);
}

size_t StreamingDetector::MinSlotValues() const {
  // hour_of_week from two values, as MaybeDetectSeasonality judged it (kWeeklyPredictorValues):
  // the mean of two is about as steady as the median of three (variance 0.5 against 0.45 of one
  // value's), and a third week of waiting would leave the slots to the level fallback.
  size_t need = active_ == Seasonality::kHourOfWeek ? kWeeklyPredictorValues : 3;
  return std::min(need, o_.season_depth);
}

double StreamingDetector::Baseline(int64_t ts_ms, std::string* slot_label) {
  if (slots_.size() > 1) {
    const auto& slot = slots_[SlotOf(ts_ms)];
    if (slot.size() >= MinSlotValues()) {
      std::vector<double> v(slot.begin(), slot.end());
      *slot_label = SeasonalSlotLabel(active_, ts_ms);
      return MedianInPlace(v);
    }
  }
  size_t n = std::min(o_.level_window, training_.size());
  std::vector<double> v;
  v.reserve(n);
  for (size_t i = training_.size() - n; i < training_.size(); ++i) v.push_back(training_[i].value);
  return MedianInPlace(v);
}

double StreamingDetector::SpreadOf(const std::deque<float>& learnt, const std::deque<float>& judged,
                                   double baseline, double factor) const {
  std::vector<double> v(learnt.begin(), learnt.end());
  double center = MedianInPlace(v);
  v.assign(learnt.begin(), learnt.end());
  double mad = ScaledMadInPlace(v, center);
  if (!(mad > 0)) {
    // More than half the residuals are equal (a flat or integer series): fall back to the mean
    // absolute deviation, which still sees the rare moves.
    double sum = 0;
    for (float r : learnt) sum += std::fabs(r - center);
    mad = learnt.empty() ? 0 : 1.2533 * sum / static_cast<double>(learnt.size());
  }
  // Heavy-tailed noise (bursty counts) would make the MAD alone cry wolf every day: the spread
  // is at least what puts the 98th percentile of past residuals at 2.33 deviations, as it sits
  // for normal noise.
  // The tail is read from every judged point, anomalies included: bursts that recur in more
  // than 1% of points are how this series behaves, not an incident each time.
  v.assign(judged.begin(), judged.end());
  for (double& r : v) r = std::fabs(r - center);
  double tail = v.empty() ? 0 : QuantileInPlace(v, 0.98) / 2.326;
  // A series of whole numbers (row counts, events per hour) moves in whole units: one unit is
  // at most one deviation, so a flat count of 10 that reads 9 is a wiggle, not "88 deviations".
  // But never so much that the series falling to zero would stay under twice the alarm line (a
  // flag that is always 1 and reads 0 is news).
  bool whole = !training_.empty();
  for (const Point& p : training_)
    if (!(std::fabs(p.value) < 9.0e15) || p.value != std::floor(p.value)) {
      whole = false;
      break;
    }
  double unit = whole ? std::min(1.0, std::fabs(baseline) / (2 * o_.sensitivity)) : 0.0;
  return std::max({mad, tail, unit / factor});
}

double StreamingDetector::Scale(double baseline, bool fallback) {
  if (since_scale_ >= kScaleEvery || residuals_.size() < 64) {
    if (slots_.size() > 1) MeasureLevelScaling();
    cached_scale_ = SpreadOf(residuals_, judged_residuals_, baseline, fallback ? 1.0 : LevelFactor(baseline));
    cached_fallback_scale_ = SpreadOf(fallback_residuals_, fallback_residuals_, baseline, 1.0);
    since_scale_ = 0;
  }
  ++since_scale_;
  // Each basis is judged by the spread of the residuals measured against it (see
  // fallback_residuals_ in detector.h). A basis with too few residuals of its own borrows the
  // other's spread; a point judged against the level fallback is never judged more narrowly than
  // the slots are (its baseline is the cruder one).
  bool main_known = residuals_.size() >= kOwnSpreadResiduals;
  bool fallback_known = fallback_residuals_.size() >= kOwnSpreadResiduals;
  // The slots' residuals are kept relative to their slot's level (LevelFactor): a quiet Sunday
  // or night slot of a count gets the spread its own level calls for, not the busy days'.
  double slot_spread = cached_scale_ * (slots_.size() > 1 ? LevelFactor(baseline) : 1.0);
  double spread = slot_spread;
  if (fallback && fallback_known) spread = main_known ? std::max(slot_spread, cached_fallback_scale_) : cached_fallback_scale_;
  if (!fallback && !main_known && fallback_known) spread = std::max(slot_spread, cached_fallback_scale_);
  // A flat or nearly flat history has (nearly) no spread: every move would be measured against
  // zero and the smallest wiggle read as dozens of deviations. The spread is at least kLevelFloor
  // of the level (docs/metrics.md, "Spread"); a series at zero keeps a tiny floor so that any move
  // off it scores as very anomalous rather than dividing by zero.
  double floor = std::max(1e-9, kLevelFloor * std::fabs(baseline));
  return std::max(spread, floor);
}

void StreamingDetector::MaybeDetectSeasonality() {
  if (o_.seasonality != Seasonality::kAuto) return;
  // Re-tested every kSeasonCheckEvery learnt points, or every week's worth of points when that is
  // fewer: a daily series learns 256 points in most of a year, and its weekly pattern must be
  // seen after three weeks (issue 37).
  double interval = TypicalIntervalMs();
  size_t every = kSeasonCheckEvery;
  if (interval > 0)
    every = std::clamp<size_t>(static_cast<size_t>(7.0 * kDayMs / interval), 7, kSeasonCheckEvery);
  if (++since_season_check_ < every) return;
  if (interval <= 0) return;
  bool daily_data = interval > kHourMs;
  // Daily data: three weeks are 21 points; finer data needs 64 before any candidate's span.
  if (training_.size() < (daily_data ? 21 : 64)) return;
  since_season_check_ = 0;
  double span = static_cast<double>(training_.back().ts_ms - training_.front().ts_ms);
  std::vector<Seasonality> candidates;
  if (interval <= kHourMs && span >= 3.0 * kDayMs) candidates.push_back(Seasonality::kHourOfDay);
  if (interval <= kHourMs && span >= 14.0 * kDayMs) candidates.push_back(Seasonality::kHourOfWeek);
  if (interval > kHourMs && interval <= kDayMs && span >= 20.0 * kDayMs)  // 21 daily points
    candidates.push_back(Seasonality::kDayOfWeek);
  // At three weeks a daily series holds 20 gaps: its comparison runs on the errors it has.
  // day_of_week is judged from one or more earlier values of the weekday (a slot of three would
  // leave no point to predict before the fourth week).
  size_t min_errors = daily_data ? 12 : 32;
  if (candidates.empty()) return;
  // Each candidate is judged the way the detector would use it: predict every past point from
  // the points before it (the median of earlier same-slot values, or of the previous
  // level_window values without seasonality) and compare the spreads of the prediction errors.
  // Predicting, rather than fitting slot medians that include the point itself, keeps a slot of
  // three noisy points from passing for a pattern.
  // The spread is the mean absolute error around the median, not the MAD: a seasonal pattern's
  // gain is often concentrated in a few points a day (the morning ramp, a square wave's edges),
  // exactly the errors a MAD ignores, so a MAD lets "none" pass for as good and the choice flaps.
  auto spread_of = [min_errors](std::vector<double>& errors) {
    if (errors.size() < min_errors) return kNaN;
    std::vector<double> tmp = errors;
    double c = MedianInPlace(tmp);
    double sum = 0;
    for (double e : errors) sum += std::fabs(e - c);
    return sum / static_cast<double>(errors.size());
  };
  size_t first = training_.size() / 4;  // leave the oldest quarter as the predictors' history
  // The values in one array, each window copied from it whole: copied point by point from the
  // deque, the windows were most of this pass's time in the instrumented build, where the
  // deque's and the vector's members run unoptimised (see robust_stats.cc).
  const std::vector<double> values = TrainingValues();
  std::vector<double> plain_errors;
  std::vector<double> v;
  for (size_t i = first; i < values.size(); ++i) {
    size_t from = i > o_.level_window ? i - o_.level_window : 0;
    v.assign(values.data() + from, values.data() + i);
    plain_errors.push_back(values[i] - MedianInPlace(v));
  }
  double before = spread_of(plain_errors);
  if (!(before > 0)) return;
  Seasonality best = Seasonality::kNone;
  double best_ratio = 0.7;  // seasonal predictions must cut the error spread by at least 30%
  double active_ratio = kNaN;  // how the seasonality in use fares now
  for (Seasonality s : candidates) {
    std::vector<std::deque<double>> by_slot(static_cast<size_t>(SeasonalSlotCount(s)));
    std::vector<double> errors;
    for (size_t i = 0; i < training_.size(); ++i) {
      auto& slot = by_slot[static_cast<size_t>(SeasonalSlot(s, training_[i].ts_ms))];
      if (i >= first && slot.size() >= (s == Seasonality::kHourOfWeek ? kWeeklyPredictorValues
                                     : s == Seasonality::kDayOfWeek ? kDailyPredictorValues
                                                                    : 3)) {
        std::vector<double> v(slot.begin(), slot.end());
        errors.push_back(training_[i].value - MedianInPlace(v));
      }
      slot.push_back(training_[i].value);
      if (slot.size() > o_.season_depth) slot.pop_front();
    }
    double ratio = spread_of(errors) / before;
    if (!std::isfinite(ratio)) continue;
    if (s == active_) active_ratio = ratio;
    // A finer seasonality (candidates come simplest first) must earn its keep: hour_of_week has
    // 7x the slots of hour_of_day, so it replaces it only when clearly better (15% less spread,
    // and 0.05 in absolute terms so that two near-perfect fits do not count).
    bool better = best == Seasonality::kNone ? ratio < best_ratio
                                             : ratio < 0.85 * best_ratio && best_ratio - ratio > 0.05;
    if (better) {
      best_ratio = ratio;
      best = s;
    }
  }
  // Hysteresis: a seasonality in use is kept while it still helps at all (10% less spread) and
  // nothing clearly better has appeared; a few flat days must not switch it off and on again,
  // since each switch rebuilds the baseline and blinds the detector for a while.
  if (active_ != Seasonality::kNone) {
    bool still_helps = !std::isfinite(active_ratio) || active_ratio < 0.9;
    bool clearly_better = best != Seasonality::kNone && best != active_ &&
                          (!std::isfinite(active_ratio) ||
                           (best_ratio < 0.85 * active_ratio && active_ratio - best_ratio > 0.05));
    if (still_helps && !clearly_better) best = active_;
  }
  if (best != active_) {
    active_ = best;
    RebuildSlots();
    // Deviations from the old baseline say nothing about the new one: the sustained-shift and
    // drift tests relearn how the deviations vary (a spread learnt under a baseline that missed
    // the weekends would keep both tests blind for a thousand points).
    drift_up_ = drift_down_ = 0;
    ramp_.clear();
    shift_mean_ = shift_var_ = 0;
    shift_n_ = 0;
    recent_devs_.clear();
    recent_sum_ = 0;
    MeasureLevelScaling();
    std::vector<double> predicted = ReplayDeviationTests();
    // Residuals measured against the old baseline (e.g. a daily wave judged without
    // seasonality) would keep the band wide for weeks: re-measure the history against the new
    // slot medians (all of them from past points, so still no look-ahead).
    residuals_.clear();
    std::vector<double> slot_median(slots_.size(), kNaN);
    for (size_t k = 0; k < slots_.size(); ++k) {
      std::vector<double> v(slots_[k].begin(), slots_[k].end());
      slot_median[k] = MedianInPlace(v);
    }
    const std::vector<double> values = TrainingValues();
    std::vector<double> v;
    for (size_t i = 0; i < training_.size(); ++i) {
      const Point& p = training_[i];
      double m = slot_median[SlotOf(p.ts_ms)];
      if (slots_.size() <= 1) {  // back to no seasonality: the level of the points before
        size_t from = i > o_.level_window ? i - o_.level_window : 0;
        v.assign(values.data() + from, values.data() + i);
        m = MedianInPlace(v);
      }
      double f = slots_.size() > 1 ? LevelFactor(m) : 1.0;
      if (std::isfinite(m)) residuals_.push_back(static_cast<float>((p.value - m) / f));
    }
    // Better still, the errors of predicting each point from the points before it (the replay
    // above): a slot median that includes the point itself understates the spread, most of all
    // while the slots hold only a few weeks.
    if (predicted.size() >= 64) residuals_.assign(predicted.begin(), predicted.end());
    judged_residuals_.assign(residuals_.begin(), residuals_.end());
    fallback_residuals_.clear();  // measured against the level under the old slots
    since_scale_ = kScaleEvery;
  }
}

void StreamingDetector::PushRamp(double u) {
  ramp_.push_back(static_cast<float>(u));
  if (ramp_.size() > kRampMaxPoints) ramp_.pop_front();
}

std::pair<double, double> StreamingDetector::RampStatistics() const {
  // For the ramp starting L points ago, sum_{i<L} (L - i) x_i over the points' ages i (0: the
  // newest) is L * sum x_i - sum i x_i: both sums grow with L, so every L costs O(1).
  double rise = 0, fall = 0, a = 0, b = 0;
  size_t n = ramp_.size();
  for (size_t i = 0; i < n; ++i) {
    double x = ramp_[n - 1 - i];
    a += x;
    b += static_cast<double>(i) * x;
    double len = static_cast<double>(i + 1);
    if (i + 1 < kRampMinPoints) continue;
    double t = (len * a - b) / std::sqrt(len * (len + 1) * (2 * len + 1) / 6);
    rise = std::max(rise, t);
    fall = std::max(fall, -t);
  }
  return {rise, fall};
}

std::vector<double> StreamingDetector::ReplayDeviationTests() {
  if (slots_.size() <= 1) return {};
  // Each learnt point predicted from the earlier learnt points of its slot under the new
  // seasonality (as MaybeDetectSeasonality judged it): out of sample, from the past only.
  std::vector<std::deque<double>> by_slot(slots_.size());
  std::vector<double> errors;
  for (const Point& p : training_) {
    auto& slot = by_slot[SlotOf(p.ts_ms)];
    if (slot.size() >= MinSlotValues()) {
      std::vector<double> v(slot.begin(), slot.end());
      double m = MedianInPlace(v);
      errors.push_back((p.value - m) / LevelFactor(m));
    }
    slot.push_back(p.value);
    if (slot.size() > o_.season_depth) slot.pop_front();
  }
  if (errors.size() < kShiftWarmup + kShiftPoints) return errors;
  // Their spread as Scale measures it: the scaled MAD, at least what puts the 98th percentile at
  // 2.33 deviations.
  std::vector<double> v = errors;
  double center = MedianInPlace(v);
  v = errors;
  double mad = ScaledMadInPlace(v, center);
  v = errors;
  for (double& r : v) r = std::fabs(r - center);
  double scale = std::max(mad, QuantileInPlace(v, 0.98) / 2.326);
  if (!(scale > 0)) return errors;
  // The tests run over those deviations as they would have, had the series been judged under
  // this seasonality: the mean of the last kShiftPoints and its running mean and variance, and
  // the two CUSUMs once the warm-up is over.
  for (double e : errors) {
    double capped = std::clamp(e / scale, -o_.sensitivity, o_.sensitivity);
    recent_devs_.push_back(capped);
    recent_sum_ += capped;
    if (recent_devs_.size() > kShiftPoints) {
      recent_sum_ -= recent_devs_.front();
      recent_devs_.pop_front();
    }
    if (recent_devs_.size() < kShiftPoints) continue;
    if (shift_n_ >= kShiftWarmup) {
      double u = (capped - shift_mean_) / DriftUnit(shift_var_);
      drift_up_ = std::max(0.0, drift_up_ + u - kDriftSlack);
      drift_down_ = std::max(0.0, drift_down_ - u - kDriftSlack);
      PushRamp(u);
    }
    double m = recent_sum_ / static_cast<double>(kShiftPoints);
    double a = 1.0 / static_cast<double>(std::min<size_t>(shift_n_ + 1, kShiftMemory));
    double delta = m - shift_mean_;
    shift_mean_ += a * delta;
    shift_var_ = (1 - a) * (shift_var_ + a * delta * delta);
    ++shift_n_;
  }
  return errors;
}

void StreamingDetector::AdoptMarkedLevel() {
  double r = *pending_shift_;
  for (Point& p : training_)
    if (p.ts_ms < pending_from_ms_) p.value = pending_mult_ ? p.value * r : p.value + r;
  RebuildSlots();
  if (pending_mult_) {
    for (float& x : residuals_) x = static_cast<float>(x * r);
    for (float& x : judged_residuals_) x = static_cast<float>(x * r);
    for (float& x : fallback_residuals_) x = static_cast<float>(x * r);
  }
  since_scale_ = kScaleEvery;  // re-measure the spread at the new level
  recent_devs_.clear();
  recent_sum_ = 0;
  drift_up_ = drift_down_ = 0;
  ramp_.clear();
  run_.clear();
  run_sign_ = 0;
}

void StreamingDetector::Learn(const Point& p, double residual) {
  if (last_learnt_) {
    all_pairs_ = all_pairs_ * kRepeatDecay + 1;
    repeat_pairs_ = repeat_pairs_ * kRepeatDecay + (*last_learnt_ == p.value ? 1 : 0);
  }
  last_learnt_ = p.value;
  training_.push_back(p);
  if (training_.size() > o_.training_points) training_.pop_front();
  if (std::isfinite(residual)) {
    residuals_.push_back(static_cast<float>(residual));
    if (residuals_.size() > o_.training_points) residuals_.pop_front();
  }
  if (slots_.size() > 1) {
    auto& slot = slots_[SlotOf(p.ts_ms)];
    slot.push_back(p.value);
    if (slot.size() > o_.season_depth) slot.pop_front();
  }
  MaybeDetectSeasonality();
}

Verdict StreamingDetector::Observe(int64_t ts_ms, double value, bool expected) {
  Verdict v;
  v.ts_ms = ts_ms;
  v.value = value;
  if (!std::isfinite(value)) {
    v.kind = VerdictKind::kInvalid;
    v.explanation = name_ + ": value is " + (std::isnan(value) ? "NaN" : "infinite") + "; ignored";
    return v;
  }
  if (last_ && ts_ms <= last_->ts_ms) {
    v.kind = VerdictKind::kInvalid;
    v.explanation = name_ + ": point is not after the latest point judged; ignored";
    return v;
  }
  if (last_) {
    v.missing_before = MissingPointsAt(ts_ms);
    intervals_.push_back(ts_ms - last_->ts_ms);
    if (intervals_.size() > kIntervalsKept) intervals_.pop_front();
    same_run_ = (value == last_->value) ? same_run_ + 1 : 1;
  } else {
    same_run_ = 1;
  }
  last_ = Point{ts_ms, value};

  double residual = kNaN;
  bool enough = training_.size() >= o_.min_history;
  if (!training_.empty()) {
    v.expected = Baseline(ts_ms, &v.slot);
    residual = value - v.expected;
  }
  // A level a person marked expected becomes the normal one if the series stays there: the first
  // point after the marked run that the old baseline would flag, but that fits the old baseline
  // moved by the run's typical ratio (or difference), moves the whole history by it. A marked
  // run that the series leaves again (a holiday) changes nothing.
  if (expected) {
    if (std::isfinite(v.expected)) {
      bool positive = v.expected > 0 && value > 0;
      if (marked_.empty()) {
        marked_from_ms_ = ts_ms;
        marked_mult_ = positive;
      }
      marked_mult_ = marked_mult_ && positive;
      marked_.push_back({value, v.expected});
      if (marked_.size() > o_.training_points) marked_.pop_front();  // the recent part suffices
    }
  } else {
    if (!marked_.empty()) {
      std::vector<double> shifts;
      for (const auto& [val, base] : marked_) shifts.push_back(marked_mult_ ? val / base : val - base);
      pending_shift_ = MedianInPlace(shifts);
      pending_mult_ = marked_mult_;
      pending_from_ms_ = marked_from_ms_;
      pending_age_ = 0;
      marked_.clear();
    }
    // A marked level not confirmed within a day's worth of points is no longer evidence.
    if (pending_shift_ && ++pending_age_ > kMarkedLevelPoints) pending_shift_.reset();
    if (pending_shift_ && enough && std::isfinite(residual)) {
      double scale = Scale(v.expected, slots_.size() > 1 && v.slot.empty());
      double r = *pending_shift_;
      double moved = pending_mult_ ? v.expected * r : v.expected + r;
      double moved_scale = pending_mult_ ? scale * r : scale;
      bool old_flags = std::fabs(residual) >= o_.sensitivity * scale;
      bool moved_fits = std::fabs(value - moved) < o_.sensitivity * moved_scale;
      if (old_flags && moved_fits) {
        AdoptMarkedLevel();
        v.expected = Baseline(ts_ms, &v.slot);
        residual = value - v.expected;
      }
      if (!old_flags || moved_fits) pending_shift_.reset();
    }
  }
  // Judged against the level because the point's slot has too few values yet: its residual
  // measures the seasonal wave as much as the noise, and is kept apart from the slots' own.
  bool fallback = slots_.size() > 1 && v.slot.empty();
  // A slot's residual is kept relative to its level (LevelFactor; 1 without seasonality).
  double factor = slots_.size() > 1 && !fallback && std::isfinite(v.expected) ? LevelFactor(v.expected) : 1.0;
  if (std::isfinite(residual)) {
    std::deque<float>& kept = fallback ? fallback_residuals_ : judged_residuals_;
    kept.push_back(static_cast<float>(residual / factor));
    if (kept.size() > (fallback ? kFallbackResidualsKept : o_.training_points)) kept.pop_front();
  }
  // What the learnt-residual window (the slots' MAD) may take from this point.
  double basis_residual = fallback ? kNaN : residual / factor;
  if (enough) {
    double scale = Scale(v.expected, fallback);
    v.deviation = residual / scale;
    double half = std::max({o_.sensitivity * scale, o_.min_abs_change,
                            o_.min_rel_change * std::fabs(v.expected)});
    v.band_low = o_.direction == Direction::kSpike ? -std::numeric_limits<double>::infinity()
                                                   : v.expected - half;
    v.band_high = o_.direction == Direction::kDrop ? std::numeric_limits<double>::infinity()
                                                   : v.expected + half;
    if (o_.expected_low) v.band_low = std::max(v.band_low, *o_.expected_low);
    if (o_.expected_high) v.band_high = std::min(v.band_high, *o_.expected_high);
  }

  // Judge.
  bool out_of_bounds = (o_.expected_low && value < *o_.expected_low) ||
                       (o_.expected_high && value > *o_.expected_high);
  double watched = 0;  // robust deviations in the watched direction
  if (enough) {
    if (o_.direction == Direction::kBoth) watched = std::fabs(v.deviation);
    if (o_.direction == Direction::kDrop) watched = std::max(0.0, -v.deviation);
    if (o_.direction == Direction::kSpike) watched = std::max(0.0, v.deviation);
  }
  bool big_enough = enough && std::fabs(residual) >= o_.min_abs_change &&
                    std::fabs(residual) >= o_.min_rel_change * std::fabs(v.expected);
  bool deviates = big_enough && watched >= o_.sensitivity;
  // Sustained shift: the mean of the last kShiftPoints deviations (each capped at the
  // sensitivity, so one spike cannot make it) compared with how that mean usually varies on this
  // series. It catches a level change that no single point makes obvious (a noisy series moving
  // to a new level, a slow drift) well before it would be relearnt.
  bool sustained = false;
  double shift_z = 0;
  if (expected) {
    // A person declared this point normal: what came before it is no evidence of a shift.
    recent_devs_.clear();
    recent_sum_ = 0;
  } else if (enough) {
    double capped = std::clamp(v.deviation, -o_.sensitivity, o_.sensitivity);
    recent_devs_.push_back(capped);
    recent_sum_ += capped;
    if (recent_devs_.size() > kShiftPoints) {
      recent_sum_ -= recent_devs_.front();
      recent_devs_.pop_front();
    }
    if (recent_devs_.size() == kShiftPoints) {
      double m = recent_sum_ / static_cast<double>(kShiftPoints);
      if (shift_n_ >= kShiftWarmup) {
        double sd = std::max(std::sqrt(std::max(shift_var_, 1e-12)),
                             kDeviationSpreadFloor / std::sqrt(static_cast<double>(kShiftPoints)));
        double z = (m - shift_mean_) / sd;
        if (o_.direction == Direction::kBoth) shift_z = std::fabs(z);
        if (o_.direction == Direction::kDrop) shift_z = std::max(0.0, -z);
        if (o_.direction == Direction::kSpike) shift_z = std::max(0.0, z);
        // The point itself must lean that way by kShiftPointMin: a point back at the baseline
        // after an incident is not a sustained shift, whatever the points before it were.
        bool same_side = (m - shift_mean_) * v.deviation > 0 && std::fabs(v.deviation) >= kShiftPointMin;
        sustained = big_enough && same_side && shift_z >= kShiftZ && std::fabs(m) >= kShiftMinMean;
        if (sustained) shift_z = shift_z * o_.sensitivity / kShiftZ;  // in robust deviations
      }
      // Learn the usual spread of the mean from points judged normal only, so that an incident
      // does not widen it.
      if (!deviates && !sustained) {
        double a = 1.0 / static_cast<double>(std::min<size_t>(shift_n_ + 1, kShiftMemory));
        double delta = m - shift_mean_;
        shift_mean_ += a * delta;
        shift_var_ = (1 - a) * (shift_var_ + a * delta * delta);
        ++shift_n_;
      }
    }
  }
  // Drift: a one-sided CUSUM (Page's test) of the capped deviations of points that are not
  // anomalies by themselves, each standardised by the series' own long-run spread of them (the
  // spread of the mean of kShiftPoints, times sqrt(kShiftPoints): autocorrelated series get a
  // wider one) and less kDriftSlack. It adds up a slow slide that no single point and no short
  // mean makes obvious, while the baseline has not yet followed it.
  bool drifting = false;
  double drift_dev = 0;
  if (expected) {
    drift_up_ = drift_down_ = 0;
    ramp_.clear();
  } else if (enough && shift_n_ >= kShiftWarmup && !deviates) {
    double u = (std::clamp(v.deviation, -o_.sensitivity, o_.sensitivity) - shift_mean_) / DriftUnit(shift_var_);
    drift_up_ = std::max(0.0, drift_up_ + u - kDriftSlack);
    drift_down_ = std::max(0.0, drift_down_ - u - kDriftSlack);
    double s = 0;
    int side = 0;
    if (o_.direction != Direction::kDrop && drift_up_ > s) { s = drift_up_; side = 1; }
    if (o_.direction != Direction::kSpike && drift_down_ > s) { s = drift_down_; side = -1; }
    // The point itself must lean that way by kShiftPointMin from the centre the sums are
    // measured from (on a trending series the seasonal slots lag, and their usual deviation is
    // not 0).
    bool lean = side * (v.deviation - shift_mean_) >= kShiftPointMin;
    drifting = big_enough && lean && s >= kDriftLimit;
    if (drifting) drift_dev = o_.sensitivity * s / kDriftLimit;
    if (o_.drift_ramp_z > 0) {
      PushRamp(u);
      auto [rise, fall] = RampStatistics();
      double r = 0;
      int ramp_side = 0;
      if (o_.direction != Direction::kDrop && rise > r) { r = rise; ramp_side = 1; }
      if (o_.direction != Direction::kSpike && fall > r) { r = fall; ramp_side = -1; }
      double z = o_.drift_ramp_z;
      bool ramping = big_enough && ramp_side * (v.deviation - shift_mean_) >= kShiftPointMin && r >= z;
      if (ramping) {
        drifting = true;
        drift_dev = std::max(drift_dev, o_.sensitivity * r / z);
      }
    }
  }
  double p_repeat = all_pairs_ > 0 ? repeat_pairs_ / all_pairs_ : 1.0;
  // A value the series often sits on for a while (0 on a count series at night, a CPU idle
  // at its floor) repeats far more often than the series' values in general: a run of it is
  // judged by how often this value itself was followed by the same value.
  if (same_run_ >= o_.stuck_min_points) p_repeat = std::max(p_repeat, ValueRepeatRate(training_, value));
  double log_p_run = static_cast<double>(same_run_ - 1) * std::log(std::max(p_repeat, 1e-6));
  bool improbable = enough && same_run_ >= o_.stuck_min_points &&
                    log_p_run < std::log(o_.stuck_probability);
  stuck_points_ = improbable ? stuck_points_ + 1 : 0;
  // A value stuck for relearn_after points has been reported; from then on it is learnt, like a
  // level shift that lasted.
  bool stuck = improbable && (o_.relearn_after == 0 || stuck_points_ <= o_.relearn_after);
  double stuck_deviations = o_.sensitivity * log_p_run / std::log(o_.stuck_probability);
  v.score = watched / (watched + o_.sensitivity);

  if (expected) {
    v.kind = VerdictKind::kExpected;
  } else if (out_of_bounds) {
    v.kind = VerdictKind::kOutOfBounds;
    v.score = 1.0;
  } else if (!enough) {
    v.kind = VerdictKind::kInsufficientHistory;
  } else if (stuck) {
    v.kind = VerdictKind::kStuck;
    v.score = std::max(v.score, stuck_deviations / (stuck_deviations + o_.sensitivity));
  } else if (deviates) {
    v.kind = VerdictKind::kAnomaly;
  } else if (sustained) {
    v.kind = VerdictKind::kAnomaly;
    v.sustained = true;
    v.score = std::max(v.score, shift_z / (shift_z + o_.sensitivity));
  } else if (drifting) {
    v.kind = VerdictKind::kAnomaly;
    v.drift = true;
    v.score = std::max(v.score, drift_dev / (drift_dev + o_.sensitivity));
  } else {
    v.kind = VerdictKind::kNormal;
  }

  // Anomaly runs: a persistent move in one direction is a level shift; if it lasts relearn_after
  // points it is accepted as the new normal and its points enter training.
  int sign = residual > 0 ? 1 : -1;
  if (judge_only_) {
    // Not learnt and not part of a run that could be accepted as normal (ObserveWithoutLearning).
  } else if (v.kind == VerdictKind::kAnomaly) {
    if (run_sign_ != sign) run_.clear();
    run_sign_ = sign;
    run_.push_back({*last_, basis_residual});
    if (run_.size() >= o_.level_shift_points) v.kind = VerdictKind::kLevelShift;
    if (o_.relearn_after > 0 && run_.size() >= o_.relearn_after) {
      for (const auto& [p, r] : run_) Learn(p, r);
      drift_up_ = drift_down_ = 0;  // the new level is the normal one now
      ramp_.clear();
      run_.clear();
      run_sign_ = 0;
      v.learnt = true;
    }
  } else if (v.kind != VerdictKind::kStuck) {
    run_.clear();
    run_sign_ = 0;
  }

  if (!judge_only_ && (v.kind == VerdictKind::kNormal || v.kind == VerdictKind::kInsufficientHistory ||
                      v.kind == VerdictKind::kExpected)) {
    Learn(*last_, basis_residual);
    v.learnt = true;
  }
  // An alarm shortly after another is the same episode still going on, not news: its score is
  // cut to 30% (below the alarm line) unless it is kEscalation times the episode's peak so far
  // (a slow climb of one spike is one finding, not one per point; a stuck run that grows longer
  // is too). The score of a new episode is discounted by how many episodes began in the last
  // kBusyWindow points, so that a series that alarms often must move further to rank as high as a
  // quiet one, unless it is the worst of them (the verdict itself is not changed: it follows
  // `sensitivity` alone).
  ++points_seen_;
  if (IsAlarm(v.kind)) {
    bool same_episode = last_alarm_at_ > 0 && points_seen_ - last_alarm_at_ <= o_.repeat_quiet_points;
    // The score in robust deviations, so that "worse" below means a real escalation.
    double d = v.score / (1 - std::min(v.score, 0.999)) * o_.sensitivity;
    // The worst peak among the recent episodes (all of them, or all but the current one).
    auto recent_record = [&](bool skip_current) {
      double m = 0;
      size_t n = episode_starts_.size() - (skip_current && !episode_starts_.empty() ? 1 : 0);
      for (size_t k = 0; k < n; ++k) m = std::max(m, episode_starts_[k].second);
      return m;
    };
    if (!same_episode) {
      while (!episode_starts_.empty() && points_seen_ - episode_starts_.front().first > kBusyWindow)
        episode_starts_.pop_front();
      episode_busy_ = 1 + kBusyDiscount * static_cast<double>(episode_starts_.size());
      // Worse than every recent episode: news however busy the series has been.
      if (d > recent_record(false)) episode_busy_ = 1;
      episode_starts_.push_back({points_seen_, d});
      episode_peak_ = d;
    } else if (d > kEscalation * episode_peak_) {
      // Clearly worse than anything yet in this episode: reported again, with half (in log
      // terms) the busy discount, or none if it beats every recent episode.
      episode_peak_ = d;
      if (!episode_starts_.empty()) episode_starts_.back().second = d;
      episode_busy_ = std::sqrt(episode_busy_);
      if (d > recent_record(true)) episode_busy_ = 1;
    } else {
      v.score *= 0.3;
      v.repeat = true;
    }
    if (!v.repeat && v.kind != VerdictKind::kOutOfBounds) {  // a hard bound always scores 1
      double discounted = d / episode_busy_;
      v.score = discounted / (discounted + o_.sensitivity);
    }
    last_alarm_at_ = points_seen_;
  }
  // A deviation alarm whose episode the busy-series discount keeps below the alarm line (its
  // peak, divided by the discount, under `sensitivity`) is not raised: on a series that began
  // several episodes recently, a move that only just crosses the band is how the series behaves,
  // and the verdict follows the score so that what `dw watch` raises is what ranks as unusual.
  // Its repeats are not raised either; a later point of the episode that beats the discounted
  // line is (an escalation). The point stays out of the baseline, as an anomaly would. Stuck
  // values and hard bounds are always raised: they are not deviations. Nor is a drift quietened:
  // its robust deviations are the CUSUM's evidence scaled to put the limit at the alarm line, so
  // the discount would hide every drift on a series that alarmed once before (issue 19, fourth
  // round: a quarter of the slow hourly drifts).
  bool quiet_alarm = false;
  if ((v.kind == VerdictKind::kAnomaly || v.kind == VerdictKind::kLevelShift) &&
      episode_busy_ > 1 && episode_peak_ / episode_busy_ < o_.sensitivity &&
      !v.drift) {
    quiet_alarm = true;
    v.kind = VerdictKind::kNormal;
    v.repeat = false;
    v.sustained = false;
    v.drift = false;
  }
  // Context novelty: a point whose recent shape (its level and the previous one, quantised on
  // the range seen so far) has never been seen, or that leaves that range, ranks as unusual
  // (kNoveltyScore) even when no single deviation is large; the first such point of a change is
  // what matters, so one within repeat_quiet_points of an alarm or of an earlier novel point is
  // cut to 30%, like a repeated alarm. It raises the score only: the verdict follows the
  // deviation rules above.
  v.novelty = novelty_.Observe(value, kNoveltyWarmup);
  double novel = enough ? kNoveltyScore * v.novelty : 0;
  if (novel > v.score) {
    bool recent = (novel_at_ > 0 && points_seen_ - novel_at_ <= o_.repeat_quiet_points) ||
                  (last_alarm_at_ > 0 && last_alarm_at_ != points_seen_ &&
                   points_seen_ - last_alarm_at_ <= o_.repeat_quiet_points);
    if (recent) novel *= 0.3;
    else if (novel >= 0.5) novel_at_ = points_seen_;
    v.score = std::max(v.score, novel);
  }
  v.explanation = Explain(v, residual);
  if (quiet_alarm) {
    size_t before = episode_starts_.size() - 1;  // the episodes before this one (busy > 1: some)
    char why[240];
    std::snprintf(why, sizeof why,
                  ": not raised, since this series began %zu alarm episode%s in its last %zu points, so a "
                  "move must reach %.1f robust deviations to be news; %s",
                  before, before == 1 ? "" : "s", kBusyWindow, o_.sensitivity * episode_busy_,
                  v.learnt ? "it lasted, so it is now accepted as the new normal" : "kept out of the baseline");
    size_t at = v.explanation.rfind(": normal");
    if (at != std::string::npos) v.explanation.replace(at, 8, why);
  }
  return v;
}

Verdict StreamingDetector::ObserveWithoutLearning(int64_t ts_ms, double value) {
  judge_only_ = true;
  Verdict v = Observe(ts_ms, value, false);
  judge_only_ = false;
  return v;
}

std::string FormatMetricValue(double v) {
  if (std::isnan(v)) return "n/a";
  if (std::isinf(v)) return v > 0 ? "+inf" : "-inf";
  char buf[64];
  double a = std::fabs(v);
  if (a >= 1000 && a < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", a);
    std::string digits(buf), out;
    int n = static_cast<int>(digits.size());
    for (int i = 0; i < n; ++i) {
      out += digits[static_cast<size_t>(i)];
      if ((n - i - 1) % 3 == 0 && i != n - 1) out += ',';
    }
    return (v < 0 ? "-" : "") + out;
  }
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string StreamingDetector::Explain(const Verdict& v, double residual) const {
  std::string what = name_ + " is " + FormatMetricValue(v.value);
  if (v.kind == VerdictKind::kInvalid) return v.explanation;
  std::string missing =
      v.missing_before > 0 ? " (" + std::to_string(v.missing_before) + " points missing before it)" : "";
  if (v.kind == VerdictKind::kInsufficientHistory)
    return what + ": insufficient history (" + std::to_string(training_.size()) + " of " +
           std::to_string(o_.min_history) + " points needed) to judge it" + missing;
  std::string against;
  if (!std::isnan(v.expected)) {
    against = "expected " + FormatMetricValue(v.expected);
    if (std::isfinite(v.band_low) || std::isfinite(v.band_high))
      against += " (band " + FormatMetricValue(v.band_low) + " to " + FormatMetricValue(v.band_high) +
                 (v.slot.empty() ? "" : " for " + v.slot) + ")";
  }
  if (v.kind == VerdictKind::kExpected)
    return what + ": marked expected, learnt as normal" + (against.empty() ? "" : "; " + against);
  if (v.kind == VerdictKind::kOutOfBounds)
    return what + ": outside the declared expected range " +
           (o_.expected_low ? FormatMetricValue(*o_.expected_low) : "-inf") + " to " +
           (o_.expected_high ? FormatMetricValue(*o_.expected_high) : "+inf") + missing;
  if (v.kind == VerdictKind::kStuck)
    return what + ": stuck, the same value " + std::to_string(same_run_) +
           " points in a row, which this series' history makes improbable (stale input?)" + missing;
  std::string ratio;
  if (!std::isnan(v.expected) && std::fabs(v.expected) > 0 && std::isfinite(residual)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * v.value / v.expected);
    ratio = std::string(buf) + " of its ";
  }
  char dev[48];
  std::snprintf(dev, sizeof dev, "%.1f robust deviations %s", std::fabs(v.deviation),
                v.deviation < 0 ? "below" : "above");
  std::string sentence = name_ + " is " + FormatMetricValue(v.value) + ", " + ratio + against + "; " + dev;
  if (v.kind == VerdictKind::kNormal) return sentence + ": normal" + missing;
  if (v.kind == VerdictKind::kLevelShift)
    return sentence + ": level shift, anomalous in the same direction for " +
           std::to_string(run_.empty() ? o_.relearn_after : run_.size()) + " points" +
           (v.learnt ? ", now accepted as the new normal" : "") + missing;
  if (v.drift)
    return sentence + ": drift, the points since it last sat at its baseline have together " +
           (v.deviation < 0 ? "fallen" : "risen") + " further than this series' history makes likely" + missing;
  if (v.sustained)
    return sentence + ": sustained " + (v.deviation < 0 ? "drop" : "rise") + ", the last " +
           std::to_string(kShiftPoints) + " points together sit further from the baseline than this series' history makes likely" + missing;
  return sentence + (v.deviation < 0 ? ": anomalous drop" : ": anomalous spike") +
         (v.repeat ? " (continues an alarm raised within the last " + std::to_string(o_.repeat_quiet_points) +
                         " points)"
                   : "") +
         missing;
}

StreamingDetector::DriftState StreamingDetector::drift_state() const {
  DriftState d;
  d.up = drift_up_;
  d.down = drift_down_;
  d.mean = shift_mean_;
  d.spread = std::sqrt(std::max(static_cast<double>(kShiftPoints) * shift_var_, 1e-12));
  d.scale = cached_scale_;
  return d;
}

size_t StreamingDetector::MemoryBytes() const {
  size_t bytes = sizeof(*this) + name_.capacity();
  bytes += training_.size() * sizeof(Point) +
           (residuals_.size() + judged_residuals_.size() + fallback_residuals_.size()) * sizeof(float);
  for (const auto& s : slots_) bytes += sizeof(s) + s.size() * sizeof(double);
  bytes += intervals_.size() * sizeof(int64_t) + run_.capacity() * sizeof(run_[0]);
  bytes += recent_devs_.size() * sizeof(double) + marked_.size() * sizeof(marked_[0]) +
           episode_starts_.size() * sizeof(episode_starts_[0]);
  bytes += novelty_.MemoryBytes() - sizeof(novelty_);
  return bytes;
}

}  // namespace dw::observe::metrics
