// Seasonal slots follow the workspace time zone's wall clock: a daily 09:00 (Berlin) pattern keeps
// its slot when clocks change, while verdicts keep the real timestamps.
#include <gtest/gtest.h>

#include "config/time_zone.h"
#include "observe/metrics/metric_service.h"
#include "tests/support/subprocess.h"
#include "workspace/incident_windows.h"

namespace dw::observe::metrics {
namespace {
namespace metric_time_zone_test {

constexpr int64_t kHour = 3600LL * 1000;
const int64_t kMarch1 = 1772323200000LL;  // 2026-03-01 00:00 UTC; Berlin moves to CEST on 29 March

class MetricTimeZoneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = store::OpenStateStore((tmp_.path() / "state.db").string(), clock_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
  }
  // Hourly points from `start` for `hours`: 1000 at 09:00 Berlin time, about 100 otherwise.
  void RecordNineOClockPeaks(int64_t start, int hours) {
    auto berlin = config::TimeZone::Load("Europe/Berlin");
    ASSERT_TRUE(berlin.ok()) << berlin.status().ToString();
    std::vector<IncomingPoint> pts;
    for (int i = 0; i < hours; ++i) {
      int64_t ts = start + i * kHour;
      int64_t local_hour = ((ts / 1000 + berlin->OffsetAt(ts / 1000)) / 3600) % 24;
      double noise = (i * 7 % 5) - 2;
      pts.push_back({ts, (local_hour == 9 ? 1000.0 : 100.0) + noise});
    }
    ASSERT_TRUE(RecordMetricPoints(*store_, "logins", pts).ok());
  }
  MonitorSettings Settings(const std::string& zone) {
    MonitorSettings s;
    s.detector.seasonality = Seasonality::kHourOfDay;
    s.timezone = zone;
    return s;
  }

  dw::testing::TempDir tmp_;
  SimulatedClock clock_{FromUnixMillis(kMarch1)};
  std::unique_ptr<store::StateStore> store_;
};

TEST_F(MetricTimeZoneTest, ANineOClockPeakKeepsItsSlotAcrossTheSpringClockChange) {
  // 1 March to 2 April 07:00 UTC, which is 09:00 in Berlin (CEST) on 2 April.
  const int hours = 32 * 24 + 7;
  RecordNineOClockPeaks(kMarch1, hours + 1);
  const int64_t latest = kMarch1 + hours * kHour;
  clock_.Set(FromUnixMillis(latest));

  auto local = JudgeLatestPoint(*store_, "logins", Settings("Europe/Berlin"), clock_, workspace::IncidentWindows(*store_));
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  EXPECT_EQ(local->latest.kind, VerdictKind::kNormal) << local->latest.explanation;
  EXPECT_EQ(local->latest.ts_ms, latest);  // the real time, not the wall-clock one
  EXPECT_EQ(local->latest.slot, "09:00");
  EXPECT_NEAR(local->latest.expected, 1000, 5);

  // In UTC the same peak moved from the 08:00 slot to 07:00 and is called a spike.
  auto utc = JudgeLatestPoint(*store_, "logins", Settings("UTC"), clock_, workspace::IncidentWindows(*store_));
  ASSERT_TRUE(utc.ok());
  EXPECT_TRUE(IsAlarm(utc->latest.kind)) << utc->latest.explanation;
  EXPECT_EQ(utc->latest.slot, "07:00");

  // Every point after the change was judged normal under the zone (no daily false alarm).
  auto replay = ReplayMetric(*store_, "logins", Settings("Europe/Berlin"), clock_, workspace::IncidentWindows(*store_));
  ASSERT_TRUE(replay.ok());
  size_t alarms_after_change = 0;
  const int64_t change = kMarch1 + (28 * 24 + 1) * kHour;  // 29 March 01:00 UTC
  for (const Verdict& v : replay->verdicts)
    if (v.ts_ms >= change && IsAlarm(v.kind)) ++alarms_after_change;
  EXPECT_EQ(alarms_after_change, 0u);
}

TEST_F(MetricTimeZoneTest, TheRepeatedHourInAutumnIsJudgedNotDropped) {
  const int64_t oct20 = 1792454400000LL;  // 2026-10-20 00:00 UTC; Berlin returns to CET on 25 Oct
  clock_.Set(FromUnixMillis(oct20));
  RecordNineOClockPeaks(oct20 - 20 * 24 * kHour, 28 * 24);
  clock_.Set(FromUnixMillis(oct20 + 8 * 24 * kHour));
  auto replay = ReplayMetric(*store_, "logins", Settings("Europe/Berlin"), clock_, workspace::IncidentWindows(*store_));
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  ASSERT_EQ(replay->verdicts.size(), 28u * 24);
  for (size_t i = 0; i < replay->verdicts.size(); ++i) {
    const Verdict& v = replay->verdicts[i];
    EXPECT_NE(v.kind, VerdictKind::kInvalid) << i << ": " << v.explanation;
    EXPECT_EQ(v.missing_before, 0) << i << ": " << v.explanation;
    if (i > 0) {
      EXPECT_EQ(v.ts_ms - replay->verdicts[i - 1].ts_ms, kHour);
    }
  }
  // The workspace's zone reaches the settings of every metric.
  config::Workspace ws;
  ws.timezone = "Europe/Berlin";
  auto s = SettingsForMetric(ws, "logins");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->timezone, "Europe/Berlin");
}

}  // namespace metric_time_zone_test
}  // namespace
}  // namespace dw::observe::metrics
