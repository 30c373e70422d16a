// Metrics kept in the state store: recording reports what it did with bad points, judging replays
// the stored history, and a workspace monitor's SQL runs on its SQLite warehouse.
#include "observe/metrics/metric_service.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <limits>

#include "tests/support/subprocess.h"
#include "workspace/incident_windows.h"

namespace dw::observe::metrics {
namespace {
namespace metric_service_test {

constexpr int64_t kHour = 3600LL * 1000;
const int64_t kStart = 1767225600000LL;  // 2026-01-01 00:00 UTC

class MetricServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = store::OpenStateStore((tmp_.path() / "state.db").string(), clock_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
  }
  dw::testing::TempDir tmp_;
  SimulatedClock clock_{FromUnixMillis(kStart + 100 * kHour)};
  std::unique_ptr<store::StateStore> store_;
};

TEST_F(MetricServiceTest, RecordingReportsDuplicatesOutOfOrderAndRejectedPoints) {
  std::vector<IncomingPoint> first;
  for (int i = 0; i < 10; ++i) first.push_back({kStart + i * kHour, 100.0 + i});
  auto r1 = RecordMetricPoints(*store_, "orders", first);
  ASSERT_TRUE(r1.ok()) << r1.status().ToString();
  EXPECT_EQ(r1->stored, 10u);

  std::vector<IncomingPoint> second = {
      {kStart + 3 * kHour, 50.0},                                      // older than the latest, replaces
      {kStart + 20 * kHour, 1.0},                                      // new
      {kStart + 20 * kHour, 2.0},                                      // duplicate in batch: last wins
      {kStart + 21 * kHour, std::nullopt},                             // null
      {kStart + 22 * kHour, std::numeric_limits<double>::quiet_NaN()},  // NaN
      {kStart + 23 * kHour, std::numeric_limits<double>::infinity()},   // inf
  };
  auto r2 = RecordMetricPoints(*store_, "orders", second);
  ASSERT_TRUE(r2.ok()) << r2.status().ToString();
  EXPECT_EQ(r2->stored, 2u);
  EXPECT_EQ(r2->duplicates, 1u);
  EXPECT_EQ(r2->out_of_order, 1u);
  EXPECT_EQ(r2->replaced, 1u);
  ASSERT_EQ(r2->rejected.size(), 3u);
  EXPECT_NE(r2->rejected[0].find("null"), std::string::npos);
  EXPECT_NE(r2->rejected[1].find("NaN"), std::string::npos);
  EXPECT_NE(r2->rejected[2].find("infinite"), std::string::npos);

  auto all = store_->MetricPoints("orders", FromUnixMillis(0), FromUnixMillis(kStart + 1000 * kHour));
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 11u);
  EXPECT_DOUBLE_EQ((*all)[3].value, 50.0);
  EXPECT_DOUBLE_EQ(all->back().value, 2.0);

  EXPECT_EQ(RecordMetricPoints(*store_, "bad name; drop", first).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(MetricServiceTest, JudgesTheLatestStoredPointAgainstTheOnesBefore) {
  std::vector<IncomingPoint> pts;
  for (int i = 0; i < 90; ++i) pts.push_back({kStart + i * kHour, 1140.0 + (i % 7) * 3});
  pts.push_back({kStart + 90 * kHour, 0.09 * 1140});
  ASSERT_TRUE(RecordMetricPoints(*store_, "avg_active_balance", pts).ok());
  MonitorSettings settings;
  settings.detector.seasonality = Seasonality::kNone;
  auto j = JudgeLatestPoint(*store_, "avg_active_balance", settings, clock_, workspace::IncidentWindows(*store_));
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  EXPECT_EQ(j->latest.kind, VerdictKind::kAnomaly);
  EXPECT_EQ(j->history_points, 91u);
  Json out = JudgementToJson(*j);
  EXPECT_EQ(out["verdict"], "anomaly");
  EXPECT_NE(out["sentence"].get<std::string>().find("9% of its expected 1,14"), std::string::npos) << out.dump();
  EXPECT_EQ(JudgeLatestPoint(*store_, "nothing_here", settings, clock_, workspace::IncidentWindows(*store_)).status().code(), StatusCode::kNotFound);
}

TEST_F(MetricServiceTest, EvaluatesAWorkspaceMonitorOnItsSqliteWarehouse) {
  std::string wh_path = (tmp_.path() / "wh.db").string();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(wh_path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "CREATE TABLE b(balance REAL, updated_at TEXT);"
                         "INSERT INTO b VALUES (100, '2026-01-05T03:30:00.000Z'), (300, '2026-01-05T03:45:00.000Z'),"
                         "(999, '2025-12-01T00:00:00.000Z');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  config::Workspace ws;
  ws.warehouses["main"] = config::WarehouseConfig{"main", "sqlite", wh_path, ""};
  config::MonitorConfig m;
  m.name = "avg_active_balance";
  m.warehouse = "main";
  m.spec = Json{{"name", m.name}, {"warehouse", "main"}, {"every", "1h"}, {"seasonality", "none"},
                {"sql", "SELECT avg(balance) FROM b WHERE updated_at >= :window_start AND updated_at < :window_end"}};
  ws.monitors.push_back(m);
  RecordReport report;
  auto j = EvaluateMonitor(ws, *store_, "avg_active_balance", clock_, workspace::IncidentWindows(*store_), &report);  // now: 2026-01-05 04:00
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  EXPECT_DOUBLE_EQ(j->latest.value, 200.0);  // only the last hour's rows
  EXPECT_EQ(j->latest.kind, VerdictKind::kInsufficientHistory);
  EXPECT_EQ(report.stored, 1u);

  auto unknown = EvaluateMonitor(ws, *store_, "avg_active_balanc", clock_, workspace::IncidentWindows(*store_), nullptr);
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("did you mean"), std::string::npos) << unknown.status().message();

  ws.monitors[0].spec["sql"] = "SELECT balance, updated_at, 1 FROM b";
  EXPECT_EQ(EvaluateMonitor(ws, *store_, "avg_active_balance", clock_, workspace::IncidentWindows(*store_), nullptr).status().code(),
            StatusCode::kInvalidArgument);
  // A PostgreSQL warehouse runs through the same Warehouse interface; an unreachable one is
  // Unavailable, naming it.
  ws.warehouses["main"].type = "postgres";
  ws.warehouses["main"].dsn = "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2";
  auto pg = EvaluateMonitor(ws, *store_, "avg_active_balance", clock_, workspace::IncidentWindows(*store_), nullptr);
  EXPECT_EQ(pg.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(pg.status().message().find("warehouse 'main'"), std::string::npos) << pg.status().message();
}

}  // namespace metric_service_test
}  // namespace
}  // namespace dw::observe::metrics

namespace dw::observe::metrics {
namespace {
namespace metric_service_test {

TEST_F(MetricServiceTest, AMonitorWhoseQueryFindsNoRowsSaysSo) {
  std::string wh_path = (tmp_.path() / "empty.db").string();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(wh_path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE b(balance REAL, updated_at TEXT);", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  config::Workspace ws;
  ws.warehouses["main"] = config::WarehouseConfig{"main", "sqlite", wh_path, ""};
  config::MonitorConfig m;
  m.name = "avg_active_balance";
  m.warehouse = "main";
  m.spec = Json{{"sql", "SELECT avg(balance) FROM b WHERE updated_at >= :window_start"}};
  ws.monitors.push_back(m);
  auto j = EvaluateMonitor(ws, *store_, "avg_active_balance", clock_, workspace::IncidentWindows(*store_), nullptr);
  EXPECT_EQ(j.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(j.status().message().find("returned no value"), std::string::npos) << j.status().message();
}

}  // namespace metric_service_test
}  // namespace
}  // namespace dw::observe::metrics
