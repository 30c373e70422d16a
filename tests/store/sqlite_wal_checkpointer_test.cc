// The WAL checkpointer takes checkpoints off the committing connection: once the WAL passes
// kCheckpointPages, its thread copies the pages into the database file while the writer goes on.
#include "store/sqlite_wal_checkpointer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "tests/support/subprocess.h"

namespace dw::store {
namespace {

class WalCheckpointerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (dir_.path() / "state.db").string();
    ASSERT_EQ(sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr), SQLITE_OK);
    Exec("PRAGMA journal_mode=WAL");
    Exec("CREATE TABLE t (x BLOB)");
  }
  void TearDown() override { sqlite3_close_v2(db_); }

  void Exec(const std::string& sql) {
    char* err = nullptr;
    ASSERT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  }
  // `pages` commits of one 4 KB-page row each (plus its B-tree pages).
  void Write(int pages) {
    for (int i = 0; i < pages; ++i) Exec("INSERT INTO t VALUES (zeroblob(3900))");
  }
  uintmax_t DatabaseBytes() const { return std::filesystem::file_size(path_); }

  dw::testing::TempDir dir_;
  std::string path_;
  sqlite3* db_ = nullptr;
};

TEST_F(WalCheckpointerTest, CommitsPastTheThresholdAreCheckpointedByTheThread) {
  const uintmax_t before = DatabaseBytes();
  {
    WalCheckpointer checkpointer(db_, path_);
    Write(10);
    EXPECT_EQ(checkpointer.checkpoints(), 0);  // not due yet
    Write(WalCheckpointer::kCheckpointPages);
    // The thread runs on its own schedule: wait for it (generously; it normally takes milliseconds).
    // Its first checkpoint may start while the writes are still coming and copy only what the WAL
    // held then (a passive checkpoint): the WAL had passed kCheckpointPages frames, about two a
    // commit (the row's page and the B-tree page above it), so at least a quarter of them are rows'
    // pages in the file. The rest stays in the WAL until it passes the threshold again (under
    // ASan in CI the checkpoint once started early and copied 808 of the 1,010 pages).
    const uintmax_t copied = before + uintmax_t{WalCheckpointer::kCheckpointPages} / 4 * 4096u;
    for (int i = 0; i < 1000 && (checkpointer.checkpoints() == 0 || DatabaseBytes() <= copied); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_GE(checkpointer.checkpoints(), 1);
    // The pages reached the database file without the writer checkpointing (its automatic
    // checkpoint is replaced by the hook); without any checkpoint the file stays under 64 pages
    // (the control below).
    EXPECT_GT(DatabaseBytes(), copied);
  }
  // Once destroyed, its hook is gone from the connection.
  EXPECT_EQ(sqlite3_wal_hook(db_, nullptr, nullptr), nullptr);
}

// The control for the test above: with no checkpoints at all, the file does not grow.
TEST_F(WalCheckpointerTest, WithoutCheckpointsThePagesStayInTheWal) {
  Exec("PRAGMA wal_autocheckpoint=0");
  Write(WalCheckpointer::kCheckpointPages + 100);
  EXPECT_LT(DatabaseBytes(), 64u * 4096u);  // everything is still in the WAL
}

}  // namespace
}  // namespace dw::store
