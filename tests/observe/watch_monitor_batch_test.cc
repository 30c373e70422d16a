// The monitors kind of `dw watch` (observe/watch/watch_jobs.cc): the monitors of one warehouse due
// together run through the "monitors" batch runner (metrics::RunMonitorsOnce), each recorded and
// judged with its own verdict line, one failing monitor failing alone, and one signal pass
// (after_run) after the batch instead of one per monitor.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>

#include "observe/watch/watch_jobs.h"
#include "tests/support/subprocess.h"

namespace dw::observe::watch {
namespace {
namespace watch_monitor_batch_test {

const int64_t kStart = 1767225600000LL;  // 2026-01-01 00:00 UTC

TEST(WatchMonitorBatchTest, TheMonitorsOfAWarehouseRunAsOneBatchEachWithItsOwnOutcome) {
  dw::testing::TempDir tmp;
  SimulatedClock clock{FromUnixMillis(kStart)};
  auto opened = store::OpenStateStore((tmp.path() / "state.db").string(), clock);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::unique_ptr<store::StateStore> state = std::move(*opened);
  const std::string wh = (tmp.path() / "wh.db").string();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(wh.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(v REAL); INSERT INTO t VALUES (1), (2);", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  config::Workspace ws;
  ws.warehouses["main"] = config::WarehouseConfig{"main", "sqlite", wh, ""};
  for (const char* name : {"m0", "m1", "broken", "m2"}) {
    config::MonitorConfig m;
    m.name = name;
    m.warehouse = "main";
    const std::string sql = std::string(name) == "broken" ? "SELECT v FROM no_such_table" : "SELECT count(*) FROM t";
    m.spec = Json{{"name", name}, {"warehouse", "main"}, {"every", "1m"}, {"seasonality", "none"}, {"sql", sql}};
    ws.monitors.push_back(m);
  }
  std::vector<std::string> lines, after;
  auto env = std::make_shared<WatchEnvironment>();
  env->workspace = &ws;
  env->state = [&state] { return Result<store::StateStore*>(state.get()); };
  env->clock = &clock;
  env->say = [&lines](const std::string& line) { lines.push_back(line); };
  env->after_run = [&after](const std::string& job) { after.push_back(job); };
  WatchLoop loop(clock, {.jitter_fraction = 0});
  std::vector<WatchJobKind> kinds = ObserveWatchJobKinds();
  kinds.resize(1);  // the monitors kind
  ASSERT_EQ(kinds[0].name, "monitors");
  ASSERT_TRUE(AddWatchJobs(loop, kinds, env).ok());

  std::vector<RunRecord> runs = loop.RunDue();
  ASSERT_EQ(runs.size(), 4u);
  for (const RunRecord& r : runs) {
    if (r.job == "monitor:broken") {
      EXPECT_FALSE(r.status.ok());
      EXPECT_NE(r.status.message().find("no_such_table"), std::string::npos) << r.status.message();
    } else {
      EXPECT_TRUE(r.status.ok()) << r.job << ": " << r.status.ToString();
    }
  }
  // A verdict line for each monitor that ran, one signal pass for the batch.
  EXPECT_EQ(lines.size(), 3u);
  for (const char* name : {"m0", "m1", "m2"}) {
    EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                            [&](const std::string& l) { return l.find(" monitor " + std::string(name) + ": ") != std::string::npos; }),
              1)
        << name;
    auto points = state->MetricPoints(name, FromUnixMillis(0), FromUnixMillis(kStart + 1));
    ASSERT_TRUE(points.ok());
    ASSERT_EQ(points->size(), 1u) << name;
    EXPECT_EQ((*points)[0].value, 2.0);
  }
  EXPECT_EQ(after, (std::vector<std::string>{"monitor:m0 and 2 other monitor(s)"}));
}

}  // namespace watch_monitor_batch_test
}  // namespace
}  // namespace dw::observe::watch
