// Flat and nearly flat series (docs/metrics.md, "Spread"): a history with no spread must not read
// the smallest wiggle as dozens of deviations, and must still see a real drop. A family of seeded
// series: counts and measurements, levels from 8 to a million, perfectly flat or with rare steps of
// one unit or tiny jitter, against wiggles (one unit, under 1%) and real moves (3%, 70%, to zero).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "observe/metrics/detector.h"

namespace dw::observe::metrics {
namespace {
namespace detector_flat_series_test {

constexpr int64_t kHour = 3600LL * 1000;
constexpr int64_t kStart = 1764547200000LL;  // 2025-12-01 00:00 UTC

struct FlatSeries {
  bool counts = true;  // whole numbers, else measurements
  double level = 0;
  StreamingDetector detector{"flat", {}};
  int64_t next = 0;  // the next point's hour
};

// A history of `points` hourly points at a random level: whole numbers that sometimes step one unit
// up (or never), or measurements with jitter under 0.05% (or none).
FlatSeries Warm(std::mt19937_64& rng, bool counts, int points) {
  FlatSeries s;
  s.counts = counts;
  const double magnitude = std::exp(std::uniform_real_distribution<double>(std::log(8.0), std::log(1e6))(rng));
  s.level = counts ? std::floor(magnitude) : magnitude;
  const bool noisy = rng() % 2 == 0;
  for (; s.next < points; ++s.next) {
    double v = s.level;
    if (noisy && counts && rng() % 10 == 0) v += 1;
    if (noisy && !counts) v *= 1 + std::uniform_real_distribution<double>(-5e-4, 5e-4)(rng);
    s.detector.Observe(kStart + s.next * kHour, v);
  }
  return s;
}

Verdict Next(FlatSeries& s, double value) { return s.detector.Observe(kStart + s.next++ * kHour, value); }

TEST(DetectorFlatSeriesTest, AWiggleOnAFlatSeriesIsNormalAndAFewDeviationsAtMost) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 60; ++i) {
    const bool counts = i % 2 == 0;
    FlatSeries s = Warm(rng, counts, 100 + static_cast<int>(rng() % 200));
    const double sign = rng() % 2 ? 1.0 : -1.0;
    // One unit for a count; under 1% for a measurement.
    const double wiggle = counts ? sign : sign * s.level * std::uniform_real_distribution<double>(0.001, 0.009)(rng);
    Verdict v = Next(s, s.level + wiggle);
    SCOPED_TRACE("series " + std::to_string(i) + (counts ? " (counts)" : " (measurements)") + " at " +
                 std::to_string(s.level) + ", value " + std::to_string(s.level + wiggle));
    EXPECT_EQ(v.kind, VerdictKind::kNormal) << v.explanation;
    EXPECT_LE(std::fabs(v.deviation), counts ? 1.0 + 1e-9 : 2.0 + 1e-9) << v.explanation;
  }
}

TEST(DetectorFlatSeriesTest, ARealMoveOnAFlatSeriesIsStillAnAnomaly) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 60; ++i) {
    const bool counts = i % 2 == 0;
    FlatSeries s = Warm(rng, counts, 100 + static_cast<int>(rng() % 200));
    // A fall to 30% of the level, or to zero; for a measurement also a move of 3% (the floor
    // is 0.5% of the level, so 2% is the alarm line on a perfectly steady series).
    const int kind = static_cast<int>(rng() % (counts ? 2 : 3));
    double value = kind == 0 ? std::floor(0.3 * s.level) : kind == 1 ? 0.0 : s.level * 0.97;
    Verdict v = Next(s, value);
    SCOPED_TRACE("series " + std::to_string(i) + " at " + std::to_string(s.level) + ", value " + std::to_string(value));
    EXPECT_TRUE(IsAlarm(v.kind)) << VerdictKindName(v.kind) << ": " << v.explanation;
  }
}

// A series that is always 1 (a flag, a daily load count) and reads 0: the count floor of one unit
// is capped so that a fall to zero still scores twice the alarm line.
TEST(DetectorFlatSeriesTest, AFlagThatIsAlwaysOneAndReadsZeroIsAnAnomaly) {
  StreamingDetector d("loads_per_day", {});
  for (int64_t h = 0; h < 120; ++h) d.Observe(kStart + h * kHour, 1);
  Verdict v = d.Observe(kStart + 120 * kHour, 0);
  EXPECT_TRUE(IsAlarm(v.kind)) << v.explanation;
  EXPECT_GE(std::fabs(v.deviation), 2 * DetectorOptions{}.sensitivity - 1e-9) << v.explanation;
}

}  // namespace detector_flat_series_test
}  // namespace
}  // namespace dw::observe::metrics
