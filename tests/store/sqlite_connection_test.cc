// What only the SQLite backend does: files, folders, pragmas, and files that are not databases.
#include "store/sqlite_connection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "store/state_store.h"
#include "store_test_support.h"

namespace dw::store {
namespace {

using ::testing::HasSubstr;

class StoreSqliteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("dw-sqlite-test-" + test_support::UniqueSuffix());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string PathOf(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

int64_t PragmaInt(SqlConnection& conn, const std::string& pragma) {
  Result<std::vector<SqlRow>> rows = conn.Query("PRAGMA " + pragma);
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  if (!rows.ok() || rows->empty()) return -1;
  return std::get<int64_t>((*rows)[0][0]);
}

TEST_F(StoreSqliteTest, CreatesParentFoldersAndConfiguresTheConnection) {
  std::string path = PathOf("workspace/.dw/state.db");
  Result<std::unique_ptr<StateStore>> store = OpenStateStore(path);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->backend(), "sqlite");
  EXPECT_TRUE(std::filesystem::exists(path));

  Result<std::unique_ptr<SqlConnection>> conn = OpenSqliteConnection(path);
  ASSERT_TRUE(conn.ok());
  Result<std::vector<SqlRow>> mode = (*conn)->Query("PRAGMA journal_mode");
  ASSERT_TRUE(mode.ok());
  EXPECT_EQ(std::get<std::string>((*mode)[0][0]), "wal");
  EXPECT_EQ(PragmaInt(**conn, "foreign_keys"), 1);
  EXPECT_EQ(PragmaInt(**conn, "synchronous"), 1);  // NORMAL
  EXPECT_EQ(PragmaInt(**conn, "busy_timeout"), kSqliteBusyTimeoutMs);
}

TEST_F(StoreSqliteTest, AFileThatIsNotADatabaseIsAClearError) {
  std::string path = PathOf("state.db");
  {
    std::ofstream out(path, std::ios::binary);
    out << "version: 1\nname: loyalty\n";
    for (int i = 0; i < 200; ++i) out << "this is a workspace file, not a database\n";
  }
  Result<std::unique_ptr<StateStore>> store = OpenStateStore(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(store.status().message(), HasSubstr(path));
  EXPECT_THAT(store.status().message(), HasSubstr("not a readable SQLite database"));
  // The file is left as it was for the user to inspect.
  EXPECT_GT(std::filesystem::file_size(path), 1000u);
}

TEST_F(StoreSqliteTest, ADatabaseWithACorruptPageIsAClearError) {
  std::string path = PathOf("state.db");
  {
    Result<std::unique_ptr<StateStore>> store = OpenStateStore(path);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    std::vector<MetricPoint> points;
    for (int i = 0; i < 2000; ++i) points.push_back({FromUnixMillis(i), 1.0 * i});
    ASSERT_TRUE((*store)->UpsertMetricPoints("m", points).ok());
  }
  // Checkpointed and closed: scribble over everything after the 100-byte header.
  ASSERT_FALSE(std::filesystem::exists(path + "-wal") &&
               std::filesystem::file_size(path + "-wal") > 0);
  auto size = std::filesystem::file_size(path);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    std::string junk(size - 100, '\xAB');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  Result<std::unique_ptr<StateStore>> store = OpenStateStore(path);
  if (store.ok()) {
    // The schema page may survive; the data pages cannot.
    Result<std::vector<MetricPoint>> points =
        (*store)->MetricPoints("m", FromUnixMillis(0), FromUnixMillis(5000));
    EXPECT_FALSE(points.ok());
    EXPECT_EQ(points.status().code(), StatusCode::kDataLoss) << points.status().ToString();
  } else {
    EXPECT_EQ(store.status().code(), StatusCode::kDataLoss) << store.status().ToString();
    EXPECT_THAT(store.status().message(), HasSubstr(path));
  }
}

// The store holds incidents, evidence, approvals and the people's keys: under the usual umask
// (022) it and the folders made for it are still readable by their owner only, its WAL too. A
// folder that was already there keeps its permissions.
TEST_F(StoreSqliteTest, CreatesTheStoreAndItsFoldersReadableByTheirOwnerOnly) {
  namespace fs = std::filesystem;
  const mode_t old_umask = ::umask(022);
  fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
  const std::string path = PathOf("workspace/.dw/state.db");
  {
    Result<std::unique_ptr<StateStore>> store = OpenStateStore(path);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    ASSERT_TRUE((*store)->SetCursor("c", "1").ok());  // a write, so the WAL exists
    auto mode = [](const fs::path& p) { return fs::status(p).permissions() & fs::perms::mask; };
    EXPECT_EQ(mode(dir_ / "workspace"), fs::perms::owner_all);
    EXPECT_EQ(mode(dir_ / "workspace" / ".dw"), fs::perms::owner_all);
    EXPECT_EQ(mode(path), fs::perms::owner_read | fs::perms::owner_write);
    ASSERT_TRUE(fs::exists(path + "-wal"));
    EXPECT_EQ(mode(path + "-wal"), fs::perms::owner_read | fs::perms::owner_write);
    EXPECT_EQ(mode(dir_) & fs::perms::others_read, fs::perms::others_read) << "an existing folder was changed";
  }
  ::umask(old_umask);
}

TEST_F(StoreSqliteTest, AFolderInPlaceOfTheFileIsAClearError) {
  std::string path = PathOf("state.db");
  std::filesystem::create_directories(path);
  Result<std::unique_ptr<StateStore>> store = OpenStateStore(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kUnavailable) << store.status().ToString();
  EXPECT_THAT(store.status().message(), HasSubstr(path));
}

TEST_F(StoreSqliteTest, AnEmptyFileBecomesAStore) {
  std::string path = PathOf("state.db");
  { std::ofstream out(path); }
  Result<std::unique_ptr<StateStore>> store = OpenStateStore(path);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->schema_version(), CurrentSchemaVersion());
}

TEST_F(StoreSqliteTest, ADatabaseOfSomethingElseIsNotTakenOver) {
  std::string path = PathOf("other.db");
  {
    Result<std::unique_ptr<SqlConnection>> conn = OpenSqliteConnection(path);
    ASSERT_TRUE(conn.ok());
    ASSERT_TRUE((*conn)->ExecScript("CREATE TABLE check_results (x INTEGER)").ok());
  }
  Result<std::unique_ptr<StateStore>> store = OpenStateStore(path);
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(), HasSubstr("applying schema migration 1"));
  // The failed migration left nothing behind, not even its bookkeeping.
  Result<std::unique_ptr<SqlConnection>> conn = OpenSqliteConnection(path);
  ASSERT_TRUE(conn.ok());
  Result<std::vector<SqlRow>> tables =
      (*conn)->Query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  ASSERT_TRUE(tables.ok());
  ASSERT_EQ(tables->size(), 1u);
  EXPECT_EQ(std::get<std::string>((*tables)[0][0]), "check_results");
}

TEST_F(StoreSqliteTest, TwoStoresOnOneFileShareItSafely) {
  std::string path = PathOf("state.db");
  Result<std::unique_ptr<StateStore>> a = OpenStateStore(path);
  Result<std::unique_ptr<StateStore>> b = OpenStateStore(path);
  ASSERT_TRUE(a.ok() && b.ok());
  std::thread ta([&] {
    for (int i = 0; i < 50; ++i) EXPECT_TRUE((*a)->SetCursor("a" + std::to_string(i), "x").ok());
  });
  std::thread tb([&] {
    for (int i = 0; i < 50; ++i) EXPECT_TRUE((*b)->SetCursor("b" + std::to_string(i), "x").ok());
  });
  ta.join();
  tb.join();
  Result<std::optional<std::string>> seen = (*a)->GetCursor("b49");
  ASSERT_TRUE(seen.ok());
  EXPECT_EQ(seen->value_or(""), "x");
}

}  // namespace
}  // namespace dw::store
