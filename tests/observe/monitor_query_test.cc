// A monitor's series_sql on a PostgreSQL warehouse returns its buckets in the warehouse's own time
// type: timestamptz, printed by the server in the session's zone as "2026-11-01 07:00:00+00" (or
// "+05:30", "-03:30"). Every PostgreSQL user's first monitor reads them; each is the same instant.
#include "observe/metrics/monitor_query.h"

#include <gtest/gtest.h>

#include "base/rfc3339.h"
#include "observe/metrics/metric_service.h"
#include "observe/metrics/series_csv.h"
#include "tests/warehouse/scratch_warehouse.h"

namespace dw::observe::metrics {
namespace {
namespace monitor_query_test {

const int64_t kStart = 1793516400000LL;  // 2026-11-01T07:00:00Z
constexpr int64_t kHour = 3600LL * 1000;

TEST(SeriesTimestampTest, ReadsTheOffsetsPostgresqlPrints) {
  const int64_t utc = *ParseSeriesTimestamp("2026-11-01T07:00:00Z");
  EXPECT_EQ(*ParseSeriesTimestamp("2026-11-01 07:00:00+00"), utc);
  EXPECT_EQ(*ParseSeriesTimestamp("2026-11-01 08:00:00+01"), utc);
  EXPECT_EQ(*ParseSeriesTimestamp("2026-11-01 12:30:00+05:30"), utc);
  EXPECT_EQ(*ParseSeriesTimestamp("2026-11-01 03:30:00-03:30"), utc);
  EXPECT_EQ(*ParseSeriesTimestamp("2026-11-01 12:30:00+0530"), utc);
  EXPECT_EQ(*ParseSeriesTimestamp("2026-11-01 07:53:28+00:53:28"), utc);
  EXPECT_EQ(*ParseSeriesTimestamp("2026-11-01 07:00:00.250+00"), utc + 250);
  for (const char* bad : {"2026-11-01 07:00:00+", "2026-11-01 07:00:00+1", "2026-11-01 07:00:00+053",
                          "2026-11-01 07:00:00+24", "2026-11-01 07:00:00+05:60", "2026-11-01 07:00:00+05:3"})
    EXPECT_FALSE(ParseSeriesTimestamp(bad).ok()) << bad;
}

class PostgresMonitorQueryTest : public ::testing::TestWithParam<const char*> {};

// The session's zone as a team's server might have it: UTC, a half-hour zone east and one west.
TEST_P(PostgresMonitorQueryTest, TimestamptzBucketsAreReadInAnyServerZone) {
  if (store::test_support::PostgresTestUrl().empty()) GTEST_SKIP() << store::test_support::kPgSkipMessage;
  auto scratch = warehouse::test_support::ScratchWarehouse::Create("postgres");
  ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
  auto& wh = **scratch;
  const std::string events = wh.Sql("events");
  std::string insert = "CREATE TABLE " + events + " (at timestamptz NOT NULL); INSERT INTO " + events + " VALUES ";
  for (int h = 0; h < 6; ++h)
    for (int n = 0; n <= h; ++n)  // h + 1 events in hour h
      insert += std::string(h + n ? "," : "") + "('" + FormatRfc3339(FromUnixMillis(kStart + h * kHour + n * 60000)) + "')";
  ASSERT_TRUE(wh.Exec(insert).ok());

  config::Workspace ws;
  config::WarehouseConfig w = wh.config();
  w.name = "pg";
  const std::string zone = GetParam();
  w.dsn += std::string(w.dsn.find('?') == std::string::npos ? "?" : "&") + "options=-c%20TimeZone%3D" + zone;
  ws.warehouses["pg"] = w;
  config::MonitorConfig m;
  m.name = "hourly_events";
  m.warehouse = "pg";
  m.spec = Json{{"name", m.name}, {"warehouse", "pg"}, {"every", "1h"}, {"seasonality", "none"},
                {"series_sql", "SELECT date_trunc('hour', at) AS bucket, count(*) AS value FROM " + events +
                                   " WHERE at >= CAST(:window_start AS timestamptz) AND at < CAST(:window_end AS "
                                   "timestamptz) GROUP BY 1 ORDER BY 1"}};
  ws.monitors.push_back(m);
  auto settings = SettingsForMetric(ws, m.name);
  ASSERT_TRUE(settings.ok()) << settings.status().ToString();

  auto measured = MeasureMonitor(ws, m, *settings, kStart + 6 * kHour);
  ASSERT_TRUE(measured.ok()) << zone << ": " << measured.status().ToString();
  ASSERT_EQ(measured->points.size(), 6u) << zone;
  for (int h = 0; h < 6; ++h) {
    // date_trunc works in the session's zone, so in a half-hour zone an hour's bucket starts at :30
    // UTC; whatever the zone, each event counts once and the buckets are an hour apart.
    EXPECT_EQ(measured->points[static_cast<size_t>(h)].ts_ms - measured->points[0].ts_ms, h * kHour) << zone;
  }
  double total = 0;
  for (const auto& p : measured->points) total += p.value.value_or(0);
  EXPECT_EQ(total, 21) << zone;
  if (zone == "UTC") {
    EXPECT_EQ(measured->points[0].ts_ms, kStart);
    EXPECT_EQ(measured->points[5].value.value_or(0), 6);
  }
}

INSTANTIATE_TEST_SUITE_P(Zones, PostgresMonitorQueryTest, ::testing::Values("UTC", "Asia/Kolkata", "America/St_Johns"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace monitor_query_test
}  // namespace
}  // namespace dw::observe::metrics
