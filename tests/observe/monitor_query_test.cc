// A monitor's series_sql on a PostgreSQL warehouse returns its buckets in the warehouse's own time
// type: timestamptz, printed by the server in the session's zone as "2026-11-01 07:00:00+00" (or
// "+05:30", "-03:30"). Every PostgreSQL user's first monitor reads them; each is the same instant.
#include "observe/metrics/monitor_query.h"

#include <gtest/gtest.h>

#include <random>

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
    EXPECT_EQ(measured->points[0].ts_ms, kStart + kHour);  // the 07:00 bucket, recorded at its end
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

// A monitor's `sql` measures the whole slot of its `every` grid that the watch loop ran it for,
// whatever minute inside the slot the run fell on (its jitter, a retry, a slow warehouse): the
// same window, the same value, recorded at the slot's end. A window [now - every, now) would mix
// two slots, which a seasonal baseline learnt from whole slots takes for a deviation (the Monday
// 08:00 rush seen at 08:02 as 58 minutes of 07:00 and 2 of 08:00).
TEST(MonitorWindowTest, EveryRunInsideASlotMeasuresThatWholeSlot) {
  auto scratch = warehouse::test_support::ScratchWarehouse::Create("sqlite");
  ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
  auto& wh = **scratch;
  std::mt19937_64 rng(20261208);
  const int64_t day = 24 * kHour;
  // 1,500 rows at random times over three days, stored as RFC 3339 text.
  std::vector<int64_t> at;
  std::string insert = "CREATE TABLE events (at TEXT NOT NULL); INSERT INTO events VALUES ";
  for (int i = 0; i < 1500; ++i) {
    at.push_back(kStart + static_cast<int64_t>(rng() % static_cast<uint64_t>(3 * day)));
    insert += std::string(i ? "," : "") + "('" + FormatRfc3339(FromUnixMillis(at.back())) + "')";
  }
  ASSERT_TRUE(wh.Exec(insert).ok());
  config::Workspace ws;
  ws.warehouses["main"] = wh.config();
  ws.warehouses["main"].name = "main";
  const int64_t minute = 60 * 1000;
  for (int64_t every : {10 * minute, 15 * minute, kHour, 6 * kHour, day}) {
    config::MonitorConfig m;
    m.name = "events";
    m.warehouse = "main";
    m.spec = Json{{"name", m.name}, {"warehouse", "main"}, {"every", std::to_string(every / minute) + "m"},
                  {"seasonality", "none"},
                  {"sql", "SELECT count(*) FROM events WHERE at >= :window_start AND at < :window_end"}};
    ws.monitors = {m};
    auto settings = SettingsForMetric(ws, m.name);
    ASSERT_TRUE(settings.ok()) << settings.status().ToString();
    for (int k = 0; k < 6; ++k) {
      // A slot end inside the data, and two runs at random minutes of the slot that follows it.
      const int64_t slot_end = SlotEndAtOrBefore(kStart + day + static_cast<int64_t>(rng() % static_cast<uint64_t>(day)), every);
      int64_t expected = 0;
      for (int64_t t : at) expected += t >= slot_end - every && t < slot_end;
      for (int run = 0; run < 2; ++run) {
        const int64_t now = slot_end + static_cast<int64_t>(rng() % static_cast<uint64_t>(every));
        auto measured = MeasureMonitor(ws, m, *settings, now);
        ASSERT_TRUE(measured.ok()) << measured.status().ToString();
        ASSERT_EQ(measured->points.size(), 1u);
        EXPECT_EQ(measured->points[0].ts_ms, slot_end) << "every " << every << " now " << now;
        EXPECT_EQ(measured->points[0].value.value_or(-1), static_cast<double>(expected)) << "every " << every << " now " << now;
        EXPECT_EQ(measured->window_start, FormatRfc3339(FromUnixMillis(slot_end - every)));
        EXPECT_EQ(measured->window_end, FormatRfc3339(FromUnixMillis(slot_end)));
      }
    }
  }
}

// A query that does not bound its window's end reads the table as it is at the run (a state, or
// rows since :window_start): its point is at the run, never before rows it counted. :window_end
// only in a comment or a string does not bound anything.
TEST(MonitorWindowTest, AQueryWithoutWindowEndIsRecordedAtTheRun) {
  auto scratch = warehouse::test_support::ScratchWarehouse::Create("sqlite");
  ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
  auto& wh = **scratch;
  const int64_t now = kStart + 3 * kHour + 17 * 60 * 1000;  // 10:17
  ASSERT_TRUE(wh.Exec("CREATE TABLE members (balance INTEGER, updated_at TEXT); INSERT INTO members VALUES (5, '" +
                      FormatRfc3339(FromUnixMillis(now - 60 * 1000)) + "'), (7, '" +
                      FormatRfc3339(FromUnixMillis(now - 2 * kHour)) + "')").ok());
  config::Workspace ws;
  ws.warehouses["main"] = wh.config();
  ws.warehouses["main"].name = "main";
  config::MonitorConfig m;
  m.name = "state";
  m.warehouse = "main";
  for (const auto& [sql, value] : std::vector<std::pair<std::string, double>>{
           {"SELECT count(*) FROM members", 2},
           {"SELECT count(*) FROM members WHERE updated_at >= :window_start", 1},
           {"SELECT count(*) FROM members WHERE updated_at >= :window_start -- not :window_end", 1},
           {"SELECT count(*) FROM members WHERE updated_at >= :window_start AND ':window_end' <> ''", 1}}) {
    m.spec = Json{{"name", m.name}, {"warehouse", "main"}, {"every", "1h"}, {"seasonality", "none"}, {"sql", sql}};
    ws.monitors = {m};
    auto settings = SettingsForMetric(ws, m.name);
    ASSERT_TRUE(settings.ok()) << settings.status().ToString();
    auto measured = MeasureMonitor(ws, m, *settings, now);
    ASSERT_TRUE(measured.ok()) << sql << ": " << measured.status().ToString();
    ASSERT_EQ(measured->points.size(), 1u);
    EXPECT_EQ(measured->points[0].ts_ms, now) << sql;
    EXPECT_EQ(measured->points[0].value.value_or(-1), value) << sql;
    EXPECT_EQ(measured->window_start, FormatRfc3339(FromUnixMillis(now - kHour))) << sql;
  }
}

// A series_sql bucket is the start of what it measures, as SQL writes buckets; its point is at the
// bucket's end, where a `sql` monitor records the same window, and a bucket still open is left for
// later. For every `every` and any run minute.
TEST(MonitorWindowTest, SeriesBucketsAreRecordedAtTheirEndOnceOver) {
  std::mt19937_64 rng(71);
  const int64_t minute = 60 * 1000;
  for (int64_t every : {5 * minute, 15 * minute, kHour, 24 * kHour}) {
    for (int k = 0; k < 8; ++k) {
      const int64_t now = kStart + 40 * every + static_cast<int64_t>(rng() % static_cast<uint64_t>(every));
      const int64_t open = SlotEndAtOrBefore(now, every);  // the bucket still open starts here
      std::vector<MonitorRow> rows;
      for (int64_t b = open - 5 * every; b <= open; b += every) rows.push_back({FormatRfc3339(FromUnixMillis(b)), 1.0});
      auto points = SeriesPoints("m", rows, every, now);
      ASSERT_TRUE(points.ok()) << points.status().ToString();
      ASSERT_EQ(points->size(), 5u) << every;
      for (size_t i = 0; i < points->size(); ++i)
        EXPECT_EQ((*points)[i].ts_ms, open - static_cast<int64_t>(4 - i) * every) << every;
      // A bucket that ends exactly now is over.
      auto at_end = SeriesPoints("m", {{FormatRfc3339(FromUnixMillis(open - every)), 2.0}}, every, open);
      ASSERT_TRUE(at_end.ok());
      EXPECT_EQ(at_end->size(), 1u);
    }
  }
  auto null_bucket = SeriesPoints("hourly_orders", {{std::nullopt, 1.0}}, kHour, kStart);
  ASSERT_FALSE(null_bucket.ok());
  EXPECT_NE(null_bucket.status().message().find("hourly_orders"), std::string::npos);
}

TEST(MonitorWindowTest, TheSlotEndIsTheGridPointAtOrBeforeNow) {
  EXPECT_EQ(SlotEndAtOrBefore(kStart, kHour), kStart);
  EXPECT_EQ(SlotEndAtOrBefore(kStart + kHour - 1, kHour), kStart);
  EXPECT_EQ(SlotEndAtOrBefore(kStart + kHour, kHour), kStart + kHour);
  EXPECT_EQ(SlotEndAtOrBefore(-1, kHour), -kHour);  // floor, not truncation, before 1970
  EXPECT_EQ(SlotEndAtOrBefore(kStart + 5, 0), kStart + 5);
}

}  // namespace monitor_query_test
}  // namespace
}  // namespace dw::observe::metrics
