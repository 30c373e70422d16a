// Slow drifts on hourly series with a weekly pattern (issue 19, fourth round): found within a
// day of points even when the drift starts around the time the detector adopts hour_of_week,
// and even on a series that has raised an alarm before.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "observe/metrics/detector.h"

namespace dw::observe::metrics {
namespace {
namespace detector_drift_test {

constexpr int64_t kHour = 3600LL * 1000;
constexpr int64_t kDay = 24 * kHour;
constexpr int64_t kStart = 1735689600000LL;  // 2025-01-01 00:00 UTC, a Wednesday

// A deterministic standard normal (xorshift and Box-Muller), so the series is the same on every
// run.
double Normal(uint64_t& s) {
  auto uniform = [&] {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return static_cast<double>(s >> 11) / 9007199254740992.0;
  };
  double u = std::max(uniform(), 1e-12), v = uniform();
  return std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v);
}

// Hourly, a daily wave of +-40% and weekends 25% lower, 3% noise; one spike to 3x at point 300
// (an alarm the series has raised before); from `drift_at` the value slides to -40% over 72
// points. Returns the drift's first alarm, in points from its start, or -1 if none in 72.
int FirstDriftAlarm(size_t drift_at) {
  StreamingDetector d("orders", {});
  uint64_t s = 41;
  for (size_t i = 0; i < drift_at + 72; ++i) {
    int64_t t = kStart + static_cast<int64_t>(i) * kHour;
    double hour = static_cast<double>((t / kHour) % 24);
    int64_t dow = ((t / kDay) + 3) % 7;
    double v = 1000 * (1 + 0.4 * std::sin(2 * M_PI * (hour - 9) / 24.0)) * (dow >= 5 ? 0.75 : 1.0) *
               (1 + 0.03 * Normal(s));
    if (i == 300) v *= 3;
    if (i >= drift_at) v *= 1 - 0.4 * static_cast<double>(i - drift_at + 1) / 72.0;
    Verdict verdict = d.Observe(t, v);
    if (i >= drift_at && IsAlarm(verdict.kind)) return static_cast<int>(i - drift_at);
  }
  return -1;
}

TEST(DetectorDriftTest, ASlowDriftOnAWeeklyHourlySeriesIsFoundWithinADay) {
  // Starts in the fifth week: the detector adopts hour_of_week after three weeks, and a drift
  // under way when the seasonality changes is replayed, not forgotten.
  for (size_t at : {700u, 760u, 900u}) {
    int found = FirstDriftAlarm(at);
    EXPECT_GE(found, 0) << "drift from point " << at << " never reported";
    EXPECT_LE(found, 24) << "drift from point " << at;
  }
}

}  // namespace detector_drift_test
}  // namespace
}  // namespace dw::observe::metrics
