// Faults below the state store (docs/RELIABILITY.md). SQLite: a VFS shim (tests/store/faulty_vfs.h)
// under the product's own connections fails writes, fails fsyncs and reports a full disk on
// command. PostgreSQL: the throwaway server is restarted with `pg_ctl restart -m immediate` while
// a writer runs (scripts/with-postgres.sh exports how: DW_TEST_PG_RESTART). Either way the failure
// comes back as an error that names the store and the operation, nothing committed is lost,
// nothing of the failed write is kept, and the same store object carries on once the fault ends,
// without a manual step.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <deque>
#include <fstream>
#include <map>
#include <set>
#include <filesystem>
#include <thread>

#include "base/clock.h"
#include "store/state_store.h"
#include "tests/store/faulty_vfs.h"
#include "tests/store/store_test_support.h"

namespace dw::store {
namespace {

using test_support::FaultyVfs;

std::vector<MetricPoint> Batch(int b) {
  std::vector<MetricPoint> points;
  for (int j = 0; j < 8; ++j) {
    const int64_t n = int64_t{b} * 8 + j;
    points.push_back({TimePoint(std::chrono::seconds(1700000000 + n)), static_cast<double>(n)});
  }
  return points;
}

// The batches of metric "m" in `st`: batch number -> points present.
std::map<int64_t, int> Batches(StateStore& st) {
  std::map<int64_t, int> out;
  auto points = st.MetricPoints("m", TimePoint(std::chrono::seconds(0)), TimePoint(std::chrono::seconds(4000000000)));
  EXPECT_TRUE(points.ok()) << points.status().ToString();
  if (!points.ok()) return out;
  for (const auto& p : *points)
    ++out[(std::chrono::duration_cast<std::chrono::seconds>(p.ts.time_since_epoch()).count() - 1700000000) / 8];
  return out;
}

std::string IntegrityOf(const std::string& path) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* q = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &q, nullptr);
  std::string out = sqlite3_step(q) == SQLITE_ROW ? reinterpret_cast<const char*>(sqlite3_column_text(q, 0)) : "no answer";
  sqlite3_finalize(q);
  sqlite3_close(db);
  return out;
}

class SqliteStoreFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = std::filesystem::temp_directory_path() / ("dw-vfs-faults-" + std::to_string(getpid()));
    std::filesystem::remove_all(folder_);
    std::filesystem::create_directories(folder_);
    vfs_ = &FaultyVfs::Install(folder_.string());
    path_ = (folder_ / "state.db").string();
  }
  void TearDown() override {
    vfs_->Set(FaultyVfs::Fault::kNone);
    std::error_code ec;
    std::filesystem::remove_all(folder_, ec);
  }

  std::filesystem::path folder_;
  std::string path_;
  FaultyVfs* vfs_ = nullptr;
  SimulatedClock clock_{TimePoint(std::chrono::seconds(1764547200))};
};

// A write that fails, and a disk that is full: the write is refused with an error naming the
// store, the operation and the failure; none of its points is kept; what was committed before
// is all there; the next write through the same store succeeds once the fault ends.
TEST_F(SqliteStoreFaultsTest, AFailedWriteAndAFullDiskAreReportedAndTheSameStoreCarriesOn) {
  auto st = OpenStateStore(path_, clock_);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  int next = 0;
  for (; next < 10; ++next) ASSERT_TRUE((*st)->UpsertMetricPoints("m", Batch(next)).ok());

  struct Case {
    FaultyVfs::Fault fault;
    StatusCode code;
    const char* says;
  };
  std::set<int> refused;
  for (const Case& c : {Case{FaultyVfs::Fault::kWrite, StatusCode::kUnavailable, "a write to the disk failed"},
                        Case{FaultyVfs::Fault::kDiskFull, StatusCode::kResourceExhausted, "full"}}) {
    SCOPED_TRACE(c.says);
    const int before = vfs_->injected();
    vfs_->Set(c.fault);
    const int failed = next++;
    refused.insert(failed);
    Status s = (*st)->UpsertMetricPoints("m", Batch(failed));
    vfs_->Set(FaultyVfs::Fault::kNone);
    ASSERT_FALSE(s.ok()) << "the fault was set and the write succeeded";
    EXPECT_GT(vfs_->injected(), before) << "the fault was never met";
    EXPECT_EQ(s.code(), c.code) << s.ToString();
    EXPECT_NE(s.message().find(path_), std::string::npos) << "names the store: " << s.message();
    EXPECT_TRUE(s.message().find("COMMIT") != std::string::npos || s.message().find("INSERT INTO metric_points") != std::string::npos)
        << "names the operation: " << s.message();
    EXPECT_NE(s.message().find(c.says), std::string::npos) << s.message();
    std::cout << "[ faults ] " << c.says << ": " << s.ToString() << "\n";

    // The same store object carries on, and the failed batch left nothing behind.
    auto batches = Batches(**st);
    EXPECT_EQ(batches.count(failed), 0u) << "a refused write left points behind";
    for (int b = 0; b < failed; ++b) {
      if (!refused.count(b)) {
        EXPECT_EQ(batches[b], 8) << "committed batch " << b << " is not whole";
      }
    }
    const int after = next++;
    Status again = (*st)->UpsertMetricPoints("m", Batch(after));
    ASSERT_TRUE(again.ok()) << "the store did not recover by itself: " << again.ToString();
    EXPECT_EQ(Batches(**st)[after], 8);
  }
  st->reset();
  EXPECT_EQ(IntegrityOf(path_), "ok");
  auto reopened = OpenStateStore(path_, clock_);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  auto batches = Batches(**reopened);
  EXPECT_EQ(batches.size(), 12u) << "10 committed before, 2 after the faults; the 2 refused ones absent";
  for (const auto& [b, n] : batches) EXPECT_EQ(n, 8) << b;
}

// An fsync that fails. A new store cannot be created (SQLite syncs the file as it sets it up):
// the open fails naming the store, and succeeds once the fault ends. An open store keeps
// committing (in WAL mode with synchronous=NORMAL a commit is not synced: the checkpoint syncs),
// its background checkpoint fails and is retried; nothing is lost, and after the fault the
// store checkpoints, reopens and verifies.
TEST_F(SqliteStoreFaultsTest, AFailedFsyncIsReportedAtOpenAndLosesNothingCommitted) {
  vfs_->Set(FaultyVfs::Fault::kFsync);
  auto refused = OpenStateStore(path_, clock_);
  vfs_->Set(FaultyVfs::Fault::kNone);
  ASSERT_FALSE(refused.ok()) << "a new store was created while every fsync failed";
  EXPECT_GT(vfs_->injected(), 0);
  EXPECT_NE(refused.status().message().find(path_), std::string::npos) << refused.status().message();
  EXPECT_NE(refused.status().message().find("fsync"), std::string::npos) << refused.status().message();
  std::cout << "[ faults ] fsync at open: " << refused.status().ToString() << "\n";

  auto st = OpenStateStore(path_, clock_);
  ASSERT_TRUE(st.ok()) << "the open after the fault: " << st.status().ToString();
  vfs_->Set(FaultyVfs::Fault::kFsync);
  const int before = vfs_->injected();
  // Enough commits for the WAL to pass its checkpoint threshold (1,000 pages) several times.
  int written = 0;
  for (int b = 0; b < 1500; ++b) {
    Status s = (*st)->UpsertMetricPoints("m", Batch(b));
    ASSERT_TRUE(s.ok()) << "a commit failed under fsync faults: " << s.ToString();
    ++written;
  }
  // The background checkpoint met the fault (it runs on its own thread: wait for it a little).
  for (int i = 0; i < 200 && vfs_->injected() == before; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_GT(vfs_->injected(), before) << "no checkpoint met the failing fsync";
  vfs_->Set(FaultyVfs::Fault::kNone);
  for (int b = written; b < written + 300; ++b) ASSERT_TRUE((*st)->UpsertMetricPoints("m", Batch(b)).ok());
  written += 300;
  st->reset();
  EXPECT_EQ(IntegrityOf(path_), "ok");
  auto reopened = OpenStateStore(path_, clock_);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  auto batches = Batches(**reopened);
  EXPECT_EQ(batches.size(), static_cast<size_t>(written));
  for (const auto& [b, n] : batches) ASSERT_EQ(n, 8) << b;
}

// The last `lines` lines of the file at `path` (none when it is unset or unreadable).
std::string LogTail(const char* path, size_t lines) {
  if (path == nullptr) return "";
  std::ifstream in(path);
  std::deque<std::string> tail;
  for (std::string line; std::getline(in, line);) {
    tail.push_back(line);
    if (tail.size() > lines) tail.pop_front();
  }
  std::string out;
  for (const std::string& l : tail) out += l + "\n";
  return out;
}

// PostgreSQL restarted under load: a writer commits batches in a loop while the server is
// restarted with `pg_ctl restart -m immediate` (a crash of the server). The writes in flight fail
// with an error naming the store; the writer keeps the same store object and its writes succeed
// again once the server is back; every batch whose write returned ok is there, whole.
TEST(PostgresStoreFaultsTest, ARestartUnderLoadFailsTheWritesInFlightClearlyAndLosesNothingCommitted) {
  const char* restart = std::getenv("DW_TEST_PG_RESTART");
  if (test_support::PostgresTestUrl().empty() || restart == nullptr || *restart == '\0')
    GTEST_SKIP() << "needs scripts/with-postgres.sh (DW_TEST_PG_URL and DW_TEST_PG_RESTART)";
  auto scratch = test_support::ScratchLocation::Create("postgresql");
  ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
  SimulatedClock clock(TimePoint(std::chrono::seconds(1764547200)));
  auto st = OpenStateStore((*scratch)->location(), clock);
  ASSERT_TRUE(st.ok()) << st.status().ToString();

  std::atomic<bool> stop{false};
  std::atomic<int> restarted{0};
  // The writer's own lists, read by this thread only after it joined; the counts are shared.
  std::vector<int> acked;
  std::vector<std::string> errors;
  std::atomic<int> acked_count{0}, after_restart_ok{0}, failed_count{0};
  std::thread writer([&] {
    for (int b = 0; !stop; ++b) {
      Status s = (*st)->UpsertMetricPoints("m", Batch(b));
      if (s.ok()) {
        acked.push_back(b);
        ++acked_count;
        if (restarted > 0) ++after_restart_ok;
      } else {
        errors.push_back(s.ToString());
        ++failed_count;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
  });
  // Some writes committed before the restart (bounded: a loaded host is slow to connect).
  for (int waited = 0; acked_count < 3 && waited < 3000; ++waited) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const int before = acked_count;
  // On a loaded host the writer may not be scheduled while the server is down, and the restart
  // then fails no write: it is repeated (up to five times) until one write was in flight.
  for (int attempt = 0; attempt < 5 && failed_count == 0; ++attempt) {
    restarted = 0;
    after_restart_ok = 0;
    const auto started = std::chrono::steady_clock::now();
    const int restart_status = std::system(restart);
    if (restart_status != 0) {
      stop = true;  // the writer is joined before the test ends, or its thread aborts the run
      writer.join();
      FAIL() << "the restart command failed (status " << restart_status << "): " << restart
             << "\nthe server's log ends:\n" << LogTail(std::getenv("DW_TEST_PG_LOG"), 30);
    }
    restarted = 1;
    // The writer carries on by itself: wait (bounded) for writes to succeed again.
    while (after_restart_ok < 20 && std::chrono::steady_clock::now() - started < std::chrono::seconds(60))
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (after_restart_ok < 20) break;
  }
  stop = true;
  writer.join();
  ASSERT_GE(after_restart_ok.load(), 20) << "the writes did not succeed again after the restart; errors: "
                                  << (errors.empty() ? "" : errors.back());
  EXPECT_GT(before, 0);
  EXPECT_FALSE(errors.empty()) << "the restart failed no write in flight: the test would prove nothing";
  for (const std::string& e : errors) {
    EXPECT_NE(e.find("127.0.0.1"), std::string::npos) << "names the store: " << e;
  }
  auto batches = Batches(**st);
  for (int b : acked) ASSERT_EQ(batches[b], 8) << "batch " << b << " was acknowledged and is not whole";
  for (const auto& [b, n] : batches) ASSERT_EQ(n, 8) << "batch " << b << " is there in part";
  std::cout << "[ faults ] PostgreSQL restart: " << acked.size() << " batches acknowledged, all kept; " << errors.size()
            << " writes failed while the server was down, first: " << (errors.empty() ? "" : errors.front()) << "\n";
}

}  // namespace
}  // namespace dw::store
