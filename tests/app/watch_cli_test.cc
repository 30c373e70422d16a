// `dw watch --once` through the real binary, on a workspace with a SQLite warehouse.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <filesystem>
#include <sstream>
#include <vector>

#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw {
namespace {

using testing::RunCommand;
using testing::TempDir;

TEST(WatchCliTest, OnceEvaluatesEveryMonitorAndReportsFailures) {
  TempDir tmp;
  std::string wh = (tmp.path() / "wh.db").string();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(wh.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(v REAL); INSERT INTO t VALUES (41), (43);", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  tmp.Write("dataworkers.yaml",
            "version: 1\n"
            "name: w\n"
            "warehouses:\n"
            "  main: {type: sqlite, path: wh.db}\n"
            "monitors:\n"
            "  - {name: avg_v, warehouse: main, sql: \"SELECT avg(v) FROM t\", every: 1h}\n"
            "  - {name: broken, warehouse: main, sql: \"SELECT avg(v) FROM missing_table\", every: 1h}\n");
  auto r = RunCommand(std::string(DW_BINARY) + " --workspace '" + tmp.path().string() + "' watch --once");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // one monitor failed
  EXPECT_NE(r.out.find("monitor avg_v: insufficient_history: avg_v is 42"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("monitor:broken failed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("missing_table"), std::string::npos) << r.err;
  // The daily prune of metric points past their retention runs too, and says how many it deleted.
  EXPECT_NE(r.out.find("prune: deleted 0 metric point(s) older than their retention"), std::string::npos) << r.out;
  // The first run backfilled nothing (no series_sql) and said nothing about a catch-up.
  EXPECT_EQ(r.out.find("caught up"), std::string::npos) << r.out;
  // Before the first run, what runs and how often: both monitors, on the warehouse's group.
  EXPECT_NE(r.err.find("job(s), each run once now:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("  monitor:avg_v  every 1h  (warehouse:main)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("  monitor:broken  every 1h"), std::string::npos) << r.err;
  EXPECT_LT(r.err.find("monitor:avg_v  every"), r.err.find("monitor:broken failed")) << "announced before it ran";
}

// A check table's run in which every check errored watched nothing: `dw watch --once` exits 1
// (docs/cli.md), whether the checks name columns the table lacks or SQL the warehouse refuses; a
// run in which one check of the table could run is not a failed run (its errors are gaps).
TEST(WatchCliTest, OnceExitsOneWhenEveryCheckOfATableErrored) {
  TempDir tmp;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((tmp.path() / "wh.db").string().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE orders(x INTEGER); INSERT INTO orders VALUES (1);", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  const std::string head = "version: 1\nname: w\nwarehouses:\n  main: {type: sqlite, path: wh.db}\nchecks:\n";
  struct Case {
    std::string checks;
    int code;
  };
  const std::vector<Case> cases = {
      {"  - {table: main.orders, not_null: [customer_id], unique: [order_id]}\n", 1},
      {"  - table: main.orders\n    custom:\n      - {name: a, sql: \"SELECT count(*) FROM no_such_table\", must_be: 0}\n"
       "      - {name: b, sql: \"SELECT nope FROM orders\", must_be: 0}\n", 1},
      {"  - {table: main.orders, not_null: [x, customer_id]}\n", 0},
  };
  for (const Case& c : cases) {
    std::filesystem::remove_all(tmp.path() / ".dw");
    tmp.Write("dataworkers.yaml", head + c.checks);
    auto r = RunCommand(std::string(DW_BINARY) + " --workspace '" + tmp.path().string() + "' watch --once");
    EXPECT_EQ(r.exit_code, c.code) << c.checks << r.out << r.err;
    EXPECT_NE(r.out.find("observation gap check:table://main/orders"), std::string::npos) << r.out;
    if (c.code == 1) {
      EXPECT_NE(r.err.find("check:table://main/orders failed (will retry): every check of table://main/orders errored"),
                std::string::npos)
          << r.err;
    }
  }
}

// A warehouse that cannot be reached fails every check of every table with one error: a watch
// says it once, not once per check and table.
TEST(WatchCliTest, AnUnreachableWarehouseIsSaidOnce) {
  TempDir tmp;
  tmp.Write("dataworkers.yaml",
            "version: 1\nname: w\nwarehouses:\n"
            "  pg: {type: postgres, dsn: \"postgresql://dw@127.0.0.1:1/nowhere?connect_timeout=2\"}\n"
            "checks:\n"
            "  - {table: pg.public.orders, not_null: [id, amount, customer], unique: [id], volume: {min_rows: 1}}\n"
            "  - {table: pg.public.customers, not_null: [id, email], unique: [id, email]}\n");
  auto r = RunCommand(std::string(DW_BINARY) + " --workspace '" + tmp.path().string() + "' watch --once");
  // Both check jobs ran (their errors are observation gaps, recorded), so the exit code is not
  // what this test holds; that the error is said once is.
  size_t said = 0, referred = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    said += line.find("127.0.0.1") != std::string::npos;
    referred += line.find(": the same error as check:table://pg/") != std::string::npos;
  }
  EXPECT_EQ(said, 1u) << r.out;
  EXPECT_EQ(referred, 1u) << r.out;
  EXPECT_NE(r.out.find("observation gap check:table://pg/"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" and 4 more ("), std::string::npos) << r.out;
}

// A watch that keeps running says when each job next starts, in the workspace's zone.
TEST(WatchCliTest, ALongRunningWatchAnnouncesEachJobsNextStartInTheWorkspacesZone) {
  TempDir tmp;
  tmp.Write("dataworkers.yaml",
            "version: 1\nname: w\ntimezone: Asia/Kolkata\n"
            "warehouses:\n  main: {type: sqlite, path: wh.db}\n"
            "monitors:\n  - {name: avg_v, warehouse: main, sql: \"SELECT 1\", every: 15m}\n");
  // Stopped by SIGTERM (timeout sends it) well after the announcement, which comes before the
  // first run: 6 s leaves a loaded host and the sanitized build the time to start.
  auto r = RunCommand("timeout -s TERM 6 " + std::string(DW_BINARY) + " --workspace '" + tmp.path().string() + "' watch");
  EXPECT_NE(r.err.find("job(s), times in Asia/Kolkata:"), std::string::npos) << r.err;
  const size_t line = r.err.find("  monitor:avg_v  every 15m  next ");
  ASSERT_NE(line, std::string::npos) << r.err;
  EXPECT_NE(r.err.find("+05:30", line), std::string::npos) << r.err;
}

}  // namespace
}  // namespace dw

#include "store/state_store.h"

namespace dw {
namespace {

TEST(MonitorPlotCliTest, WritesAnSvgOfAStoredMetric) {
  TempDir tmp;
  tmp.Write("dataworkers.yaml", "version: 1\nname: w\n");
  {
    auto store = store::OpenStateStore((tmp.path() / ".dw" / "state.db").string());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    std::vector<store::MetricPoint> pts;
    int64_t now = ToUnixMillis(RealClock().Now()) / 3600000 * 3600000;
    for (int i = 0; i < 60; ++i) pts.push_back({FromUnixMillis(now - (60 - i) * 3600000LL), 50.0 + (i % 4)});
    pts.push_back({FromUnixMillis(now), 5.0});
    ASSERT_TRUE((*store)->UpsertMetricPoints("rows_loaded", pts).ok());
  }
  auto svg = tmp.path() / "p.svg";
  std::string ws = " --workspace '" + tmp.path().string() + "'";
  auto r = RunCommand(std::string(DW_BINARY) + ws + " monitor plot rows_loaded --out '" + svg.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text = testing::ReadWholeFile(svg);
  EXPECT_NE(text.find("<polyline"), std::string::npos);
  EXPECT_NE(text.find("<circle"), std::string::npos) << "the drop to 5 is marked";
  auto missing = RunCommand(std::string(DW_BINARY) + ws + " monitor plot nothing --out '" + svg.string() + "'");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("unknown metric \"nothing\""), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace dw
