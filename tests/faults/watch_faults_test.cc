// `dw watch` past faulted jobs (docs/RELIABILITY.md): one workspace whose healthy parts (a SQLite
// warehouse, the loyalty example's Flink) sit beside platforms and warehouses that fail in every
// way we inject: a Kestra answering a 5xx storm, resetting mid-body, timing out, dripping a byte at
// a time or sending a body that never ends; a platform whose name does not resolve; a SQLite
// warehouse locked by another process; a PostgreSQL warehouse that refuses connections and one
// whose query outlasts its query_timeout. `dw watch --once` (the real binary) runs every job in
// bounded time, names each failure, and the healthy jobs still do their work. In-process, the same
// jobs run round after round under faults (DW_WATCH_FAULTS, default 40; bench/watch_faults.sh
// makes 1,000) and leave no file descriptor or thread behind (/proc/self/fd, /proc/self/task).
#include <gtest/gtest.h>
#include <httplib.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "base/clock.h"
#include "base/json.h"
#include "base/rfc3339.h"
#include "observe/watch/watch_loop.h"
#include "sim/sim_support.h"
#include "store/state_store.h"
#include "tests/store/store_test_support.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"
#include "workspace/watch_jobs.h"

namespace dw {
namespace {
namespace watch_faults_test {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

size_t CountEntries(const char* dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

Json Script(const std::string& file) {
  return Json::parse(dw::testing::ReadWholeFile(fs::path(DW_SOURCE_DIR) / "examples" / file));
}

void SetFault(int port, const Json& fault) {
  httplib::Client admin("127.0.0.1", port);
  auto r = admin.Post("/_sim/faults", Json{{"faults", fault.is_null() ? Json::array() : Json::array({fault})}}.dump(),
                      "application/json");
  ASSERT_TRUE(r && r->status == 200) << (r ? r->body : "no answer");
}

int PortOf(const std::string& url) { return std::stoi(url.substr(url.rfind(':') + 1)); }

// The faults the Kestra simulator takes in turn (every request), as POST /_sim/faults takes them.
std::vector<Json> KestraFaults() {
  return {
      {{"path", "*"}, {"status", 500}, {"body", "{\"message\":\"boom\"}"}},
      {{"path", "*"}, {"status", 200}, {"body", "{\"results\":[" + std::string(2000, ' ') + "]}"}, {"cut_after_bytes", 100}},
      {{"path", "*"}, {"status", 200}, {"body", "{}"}, {"delay_ms", 1500}},
      {{"path", "*"}, {"status", 200}, {"body", "{\"results\":[]}"}, {"drip_ms", 200}},
      {{"path", "*"}, {"status", 200}, {"body", std::string(4096, ' ')}, {"repeat_body", 16}, {"endless", true}},
  };
}

class WatchFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto flink = sim::RunningSim::Start(sim::Platform::kFlink, Script("loyalty-flink/sim/flink.json"));
    ASSERT_TRUE(flink.ok()) << flink.status().ToString();
    flink_ = std::move(flink).value();
    auto kestra = sim::RunningSim::Start(sim::Platform::kKestra, Script("ev-kestra/sim/kestra.json"));
    ASSERT_TRUE(kestra.ok()) << kestra.status().ToString();
    kestra_ = std::move(kestra).value();

    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((tmp_.path() / "good.db").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1), (2), (3);", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    // The locked warehouse: another connection holds an exclusive lock (rollback journal, so
    // readers wait too) for the whole test.
    ASSERT_EQ(sqlite3_open((tmp_.path() / "locked.db").c_str(), &locker_), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(locker_, "CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1); BEGIN EXCLUSIVE; "
                                    "INSERT INTO t VALUES (2);", nullptr, nullptr, nullptr), SQLITE_OK);
    pg_ = store::test_support::PostgresTestUrl();
  }
  void TearDown() override {
    if (locker_ != nullptr) sqlite3_close(locker_);
  }

  // The workspace; `with_locked` adds the locked SQLite warehouse's monitor (it waits for the lock
  // as long as its query_timeout, 1 s, so the round-after-round run leaves it out).
  void WriteWorkspace(bool with_locked) {
    std::string yaml =
        "version: 1\nname: faults\n"
        "warehouses:\n"
        "  good: {type: sqlite, path: good.db}\n"
        "  locked: {type: sqlite, path: locked.db, query_timeout: 1s}\n"
        "  down: {type: postgres, dsn: \"postgresql://dw@127.0.0.1:1/nowhere?connect_timeout=2\"}\n";
    if (!pg_.empty()) yaml += "  slow: {type: postgres, dsn: " + Json(pg_).dump() + ", query_timeout: 1s}\n";
    yaml += "platforms:\n"
            "  flink: {type: flink, url: \"" + flink_->url() + "\", timeout: 1s}\n"
            "  kestra: {type: kestra, url: \"" + kestra_->url() +
            "\", tenant: main, username: admin@kestra.io, password: \"Admin1234!\", timeout: 1s}\n"
            "  nowhere: {type: flink, url: \"http://dw-no-such-host.invalid:8081\", timeout: 1s}\n"
            "monitors:\n"
            "  - {name: good_rows, warehouse: good, sql: \"SELECT count(*) FROM t\", every: 1h}\n"
            "  - {name: down_rows, warehouse: down, sql: \"SELECT 1\", every: 1h}\n";
    if (with_locked) yaml += "  - {name: locked_rows, warehouse: locked, sql: \"SELECT count(*) FROM t\", every: 1h}\n";
    if (!pg_.empty()) yaml += "  - {name: slow_rows, warehouse: slow, sql: \"SELECT count(*) FROM pg_sleep(30)\", every: 1h}\n";
    yaml += "state: .dw/state.db\n";
    std::ofstream(tmp_.path() / "dataworkers.yaml") << yaml;
  }

  dw::testing::TempDir tmp_;
  std::unique_ptr<sim::RunningSim> flink_, kestra_;
  sqlite3* locker_ = nullptr;
  std::string pg_;
};

// `dw watch --once` under each Kestra fault: bounded, every failure named, the healthy jobs done.
TEST_F(WatchFaultsTest, DwWatchOnceRunsEveryOtherJobWhileOnePlatformAndThreeWarehousesFault) {
  WriteWorkspace(/*with_locked=*/true);
  for (const Json& fault : KestraFaults()) {
    SCOPED_TRACE(fault.dump().substr(0, 120));
    SetFault(PortOf(kestra_->url()), fault);
    const auto start = std::chrono::steady_clock::now();
    auto r = dw::testing::RunCommand(std::string(DW_BINARY) + " --workspace '" + tmp_.path().string() +
                                     "' --now 2026-11-25T02:36:00Z watch --once");
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    // Bounded: the locked SQLite's 1 s wait for its lock, the slow query's 1 s timeout, three attempts
    // of 1 s on Kestra with their backoff, and the rest, with room for a loaded host.
    EXPECT_LT(took, 40s) << r.err;
    std::cout << "[ faults ] dw watch --once, Kestra " << fault.dump().substr(0, 60) << "...: exit " << r.exit_code << " in "
              << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms\n";
    // Each failure is named, with what failed.
    EXPECT_NE(r.err.find("monitor:down_rows failed"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("127.0.0.1:1"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("monitor:locked_rows failed"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("locked"), std::string::npos) << r.err;
    if (!pg_.empty()) {
      EXPECT_NE(r.err.find("monitor:slow_rows failed"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("timeout"), std::string::npos) << r.err;
    }
    EXPECT_NE(r.err.find("collect failed"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("Admin1234!"), std::string::npos) << "a secret in the output";
    EXPECT_EQ(r.out.find("Admin1234!"), std::string::npos) << "a secret in the output";
  }
  // The healthy jobs did their work: the good monitor's points, Flink's change events.
  SimulatedClock clock(TimePoint(std::chrono::seconds(0)));
  auto st = store::OpenStateStore((tmp_.path() / ".dw" / "state.db").string(), clock);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  auto points = (*st)->MetricPoints("good_rows", TimePoint(std::chrono::seconds(0)), TimePoint(std::chrono::seconds(4000000000)));
  ASSERT_TRUE(points.ok());
  ASSERT_FALSE(points->empty()) << "the healthy monitor did not run";
  EXPECT_EQ(points->back().value, 3.0);
  auto flink = (*st)->ChangeEventsFor("flink://flink/points-balance", TimePoint(std::chrono::seconds(0)),
                                      TimePoint(std::chrono::seconds(4000000000)));
  ASSERT_TRUE(flink.ok()) << flink.status().ToString();
  EXPECT_FALSE(flink->empty()) << "the healthy platform was not collected";
  // The failing platforms are recorded as unreachable, not skipped silently.
  auto all = (*st)->ChangeEventsBetween(TimePoint(std::chrono::seconds(0)), TimePoint(std::chrono::seconds(4000000000)));
  ASSERT_TRUE(all.ok());
  int unreachable = 0;
  for (const auto& e : *all) unreachable += e.kind == "platform_unreachable";
  EXPECT_GE(unreachable, 1);
}

// Round after round of the same jobs in this process under faults: no descriptor or thread left.
TEST_F(WatchFaultsTest, ThousandsOfFaultsLeaveNoDescriptorOrThreadBehind) {
  WriteWorkspace(/*with_locked=*/false);
  const char* env = std::getenv("DW_WATCH_FAULTS");
  const int wanted = env != nullptr && std::atoi(env) > 0 ? std::atoi(env) : 40;
  SimulatedClock clock(*ParseRfc3339("2026-11-25T02:36:00Z"));
  auto services = workspace::Services::Load(tmp_.path(), clock);
  ASSERT_TRUE(services->workspace_status().ok()) << services->workspace_status().ToString();
  auto env_for = workspace::WatchEnvironmentFor(services, [](const std::string&) {});
  observe::watch::WatchLoop loop(clock, {});
  ASSERT_TRUE(observe::watch::AddWatchJobs(loop, workspace::WatchJobKinds(services), env_for).ok());

  // Only the fast faults here (a 5xx storm, a reset mid-body, a refused connection, DNS): a round
  // must stay short for the count to be high.
  const std::vector<Json> faults = {KestraFaults()[0], KestraFaults()[1]};
  auto round = [&](int i) {
    SetFault(PortOf(kestra_->url()), faults[static_cast<size_t>(i) % faults.size()]);
    int failed = 0;
    for (const auto& r : loop.RunAllNow()) failed += !r.status.ok();
    return failed;
  };
  round(0);  // warm up: the pools, the store, libcurl's and libpq's one-time state
  round(1);
  const size_t fds_before = CountEntries("/proc/self/fd"), threads_before = CountEntries("/proc/self/task");
  // A round faults: Kestra and the unresolvable platform (two platforms in the collect job), the
  // refused PostgreSQL warehouse, and the slow query when PostgreSQL is here.
  const int per_round = 3 + (pg_.empty() ? 0 : 1);
  int faults_met = 0, rounds = 0;
  const auto start = std::chrono::steady_clock::now();
  while (faults_met < wanted) {
    const int failed_jobs = round(rounds++);
    ASSERT_GE(failed_jobs, 2) << "a round without its faults";
    faults_met += per_round;
  }
  const auto took = std::chrono::steady_clock::now() - start;
  // Threads that end (libcurl's resolver, the checkpointer) may take a moment to be reaped.
  size_t fds_after = 0, threads_after = 0;
  for (int i = 0; i < 50; ++i) {
    fds_after = CountEntries("/proc/self/fd");
    threads_after = CountEntries("/proc/self/task");
    if (fds_after <= fds_before && threads_after <= threads_before) break;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_LE(fds_after, fds_before) << "descriptors leaked over " << faults_met << " faults";
  EXPECT_LE(threads_after, threads_before) << "threads leaked over " << faults_met << " faults";
  std::cout << "[ faults ] dw watch jobs: " << rounds << " rounds, " << faults_met << " faults in "
            << std::chrono::duration_cast<std::chrono::seconds>(took).count() << " s; descriptors " << fds_before << " -> "
            << fds_after << ", threads " << threads_before << " -> " << threads_after << "\n";
}

}  // namespace watch_faults_test
}  // namespace
}  // namespace dw
