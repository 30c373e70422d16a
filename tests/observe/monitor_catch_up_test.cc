// Catch-up after downtime, driven by the SimulatedClock through the watch loop: a monitor with
// series_sql that missed runs while `dw watch` was down gets the missed buckets from one query.
#include "observe/metrics/monitor_catch_up.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "observe/watch/watch_loop.h"
#include "tests/support/subprocess.h"
#include "workspace/incident_windows.h"

namespace dw::observe::metrics {
namespace {
namespace monitor_catch_up_test {

constexpr int64_t kHour = 3600LL * 1000;
const int64_t kStart = 1767225600000LL;  // 2026-01-01 00:00 UTC

class MonitorCatchUpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = store::OpenStateStore((tmp_.path() / "state.db").string(), clock_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
    // The warehouse: one row per hourly bucket for three days.
    std::string wh = (tmp_.path() / "wh.db").string();
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(wh.c_str(), &db), SQLITE_OK);
    std::string sql = "CREATE TABLE hourly(bucket TEXT, value REAL); INSERT INTO hourly VALUES ";
    for (int i = 0; i < 72; ++i)
      sql += std::string(i ? "," : "") + "('" + FormatRfc3339(FromUnixMillis(kStart + i * kHour)) + "', " +
             std::to_string(100 + i % 5) + ")";
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    ws_.warehouses["main"] = config::WarehouseConfig{"main", "sqlite", wh, ""};
    config::MonitorConfig m;
    m.name = "orders";
    m.warehouse = "main";
    m.spec = Json{{"name", "orders"}, {"warehouse", "main"}, {"every", "1h"}, {"seasonality", "none"},
                  {"series_sql",
                   "SELECT bucket, value FROM hourly WHERE bucket >= :window_start AND bucket <= :window_end "
                   "ORDER BY bucket"}};
    ws_.monitors.push_back(m);
  }

  // A fresh watch loop, as `dw watch` builds it on start: the monitor job checks for a catch-up on
  // its first run and when the loop reports missed slots.
  std::unique_ptr<observe::watch::WatchLoop> StartWatch() {
    auto loop = std::make_unique<observe::watch::WatchLoop>(clock_, observe::watch::WatchOptions{});
    auto first = std::make_shared<bool>(true);
    Status added = loop->AddJob({"monitor:orders", "warehouse:main", kHour, [this, first](int64_t, int missed) {
                                   auto run = RunMonitorOnce(ws_, *store_, "orders", clock_, *first || missed > 0, workspace::IncidentWindows(*store_));
                                   if (!run.ok()) return run.status();
                                   *first = false;
                                   runs_.push_back(*run);
                                   return Status::Ok();
                                 }});
    EXPECT_TRUE(added.ok()) << added.ToString();
    return loop;
  }

  size_t Stored() {
    auto p = store_->MetricPoints("orders", FromUnixMillis(0), FromUnixMillis(kStart + 1000 * kHour));
    EXPECT_TRUE(p.ok());
    return p.ok() ? p->size() : 0;
  }

  dw::testing::TempDir tmp_;
  SimulatedClock clock_{FromUnixMillis(kStart + 10 * kHour + 20 * 60 * 1000)};  // 10:20
  std::unique_ptr<store::StateStore> store_;
  config::Workspace ws_;
  std::vector<MonitorRun> runs_;
};

TEST_F(MonitorCatchUpTest, ARestartAfterDowntimeFetchesTheMissedBucketsInOneQuery) {
  {
    auto loop = StartWatch();
    loop->RunDue();  // nothing stored yet: one query backfills the training window
    ASSERT_EQ(runs_.size(), 1u);
    ASSERT_TRUE(runs_[0].catch_up.has_value());
    EXPECT_EQ(runs_[0].queries, 1);
    // The buckets 00:00 .. 09:00, each recorded at its end (01:00 .. 10:00); the 10:00 bucket is
    // not over at 10:20 and is left for a later run.
    EXPECT_EQ(runs_[0].catch_up->recorded.stored, 10u);
    EXPECT_EQ(Stored(), 10u);
  }
  // dw watch is down for 10 hours, then starts again.
  clock_.Advance(std::chrono::hours(10));
  auto loop = StartWatch();
  loop->RunDue();
  ASSERT_EQ(runs_.size(), 2u);
  const MonitorRun& run = runs_[1];
  ASSERT_TRUE(run.catch_up.has_value());
  EXPECT_EQ(run.queries, 1);  // one backfill query, not one run per missed slot
  EXPECT_EQ(run.catch_up->missed_runs, 9);
  EXPECT_EQ(run.catch_up->window_start_ms, kStart + 9 * kHour);  // the latest stored bucket's start
  EXPECT_EQ(run.catch_up->recorded.stored, 11u);                 // the 09:00 bucket again, then 10:00 .. 19:00
  EXPECT_EQ(run.catch_up->recorded.replaced, 1u);
  EXPECT_EQ(Stored(), 20u);
  EXPECT_EQ(run.judgement.latest.ts_ms, kStart + 20 * kHour);  // the 19:00 bucket, at its end
  EXPECT_EQ(run.judgement.history_points, 20u);

  // The next hour, with nothing missed, is an ordinary evaluation.
  clock_.Advance(std::chrono::hours(1));
  loop->RunDue();
  ASSERT_EQ(runs_.size(), 3u);
  EXPECT_FALSE(runs_[2].catch_up.has_value());
  EXPECT_EQ(runs_[2].queries, 1);
  EXPECT_EQ(Stored(), 21u);
}

TEST_F(MonitorCatchUpTest, AMonitorWithSqlToGetsItsMissedBucketsFromSeriesSql) {
  ws_.monitors[0].spec["sql"] =
      "SELECT value FROM hourly WHERE bucket >= :window_start AND bucket < :window_end";
  ASSERT_TRUE(RecordMetricPoints(*store_, "orders", {{kStart + 2 * kHour, 102.0}}).ok());
  auto catch_up = CatchUpMonitor(ws_, *store_, "orders", clock_);
  ASSERT_TRUE(catch_up.ok()) << catch_up.status().ToString();
  EXPECT_TRUE(catch_up->ran);
  EXPECT_EQ(catch_up->missed_runs, 7);
  EXPECT_EQ(catch_up->recorded.stored, 9u);  // 02:00 .. 10:00
  // Caught up now: a second check finds nothing missed and runs no query.
  auto again = CatchUpMonitor(ws_, *store_, "orders", clock_);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->ran);
  // Through RunMonitorOnce after more downtime: the backfill, then the monitor's own sql.
  clock_.Advance(std::chrono::hours(5));
  auto run = RunMonitorOnce(ws_, *store_, "orders", clock_, true, workspace::IncidentWindows(*store_));
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_TRUE(run->catch_up.has_value());
  EXPECT_EQ(run->queries, 2);
  EXPECT_EQ(run->catch_up->recorded.stored, 6u);  // 10:00 .. 15:00
  // sql's value, at the end of the last whole hour (15:00 at 15:20), not at now
  EXPECT_EQ(run->judgement.latest.ts_ms, ToUnixMillis(clock_.Now()) - 20 * 60 * 1000);
}

TEST_F(MonitorCatchUpTest, MonitorsWithoutSeriesSqlOrUnknownAreHandled) {
  ws_.monitors[0].spec.erase("series_sql");
  ws_.monitors[0].spec["sql"] = "SELECT 1";
  auto c = CatchUpMonitor(ws_, *store_, "orders", clock_);
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->ran);
  EXPECT_EQ(CatchUpMonitor(ws_, *store_, "ordres", clock_).status().code(), StatusCode::kNotFound);
}

TEST_F(MonitorCatchUpTest, ManyMonitorsRunInOneBatchEachAsItsOwnRunAndFailingAlone) {
  // Three more monitors on the same warehouse: one with sql, one whose query fails, one whose
  // query returns NULL.
  config::MonitorConfig m = ws_.monitors[0];
  m.name = "latest";
  m.spec = Json{{"name", "latest"}, {"warehouse", "main"}, {"every", "1h"}, {"seasonality", "none"},
                {"sql", "SELECT value FROM hourly WHERE bucket < :window_end ORDER BY bucket DESC LIMIT 1"}};
  ws_.monitors.push_back(m);
  m.name = "broken";
  m.spec["name"] = "broken";
  m.spec["sql"] = "SELECT value FROM no_such_table";
  ws_.monitors.push_back(m);
  m.name = "empty";
  m.spec["name"] = "empty";
  m.spec["sql"] = "SELECT NULL";
  ws_.monitors.push_back(m);
  auto runs = RunMonitorsOnce(ws_, *store_,
                              {{"orders", true}, {"nope", false}, {"broken", false}, {"latest", false}, {"empty", false}},
                              clock_, workspace::IncidentWindowsOfMany(*store_));
  ASSERT_EQ(runs.size(), 5u);
  ASSERT_TRUE(runs[0].ok()) << runs[0].status().ToString();
  ASSERT_TRUE(runs[0]->catch_up.has_value());  // nothing stored yet: the backfill, then judged
  EXPECT_EQ(runs[0]->queries, 1);
  EXPECT_EQ(Stored(), 10u);  // the buckets that are over at 10:20
  EXPECT_EQ(runs[1].status().code(), StatusCode::kNotFound);
  EXPECT_NE(runs[1].status().message().find("nope"), std::string::npos);
  ASSERT_FALSE(runs[2].ok());
  EXPECT_NE(runs[2].status().message().find("no_such_table"), std::string::npos) << runs[2].status().ToString();
  ASSERT_TRUE(runs[3].ok()) << runs[3].status().ToString();
  EXPECT_EQ(runs[3]->queries, 1);
  // At 10:20 the window is the last whole hour, [09:00, 10:00), recorded at its end.
  EXPECT_EQ(runs[3]->judgement.latest.ts_ms, kStart + 10 * kHour);
  EXPECT_EQ(runs[3]->judgement.latest.value, 100 + 9 % 5);  // the 09:00 bucket, the last before 10:00
  EXPECT_EQ(runs[4].status().code(), StatusCode::kFailedPrecondition) << runs[4].status().ToString();
  // Each judgement is the one a run of its own gives (judged again from the store: same point).
  auto alone = RunMonitorOnce(ws_, *store_, "latest", clock_, false, workspace::IncidentWindows(*store_));
  ASSERT_TRUE(alone.ok()) << alone.status().ToString();
  EXPECT_EQ(alone->judgement.latest.kind, runs[3]->judgement.latest.kind);
  EXPECT_EQ(alone->judgement.latest.explanation, runs[3]->judgement.latest.explanation);
  EXPECT_EQ(alone->judgement.history_points, runs[3]->judgement.history_points);
}

}  // namespace monitor_catch_up_test
}  // namespace
}  // namespace dw::observe::metrics
