// The impact count runs trusted workspace SQL read-only, with :since bound by the driver.
#include "warehouse/read_only_count.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "tests/support/subprocess.h"

namespace dw::warehouse {
namespace {

class ReadOnlyCountTest : public ::testing::Test {
 protected:
  ReadOnlyCountTest() {
    wh_.name = "main";
    wh_.type = "sqlite";
    wh_.path = (dir_.path() / "wh.db").string();
    sqlite3* db = nullptr;
    sqlite3_open(wh_.path.c_str(), &db);
    sqlite3_exec(db,
                 "CREATE TABLE t (id INTEGER, updated_at TEXT);"
                 "INSERT INTO t VALUES (1, '2026-11-24T13:00:00.000Z'), (2, '2026-11-24T14:05:00.000Z'),"
                 " (3, '2026-11-24T15:00:00.000Z');",
                 nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  dw::testing::TempDir dir_;
  config::WarehouseConfig wh_;
};

TEST_F(ReadOnlyCountTest, CountsWithSinceBound) {
  auto n = RunReadOnlyCount(wh_, "SELECT count(*) FROM t WHERE updated_at >= :since",
                            {{"since", "2026-11-24T14:02:00.000Z"}});
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 2);
}

TEST_F(ReadOnlyCountTest, TheParameterIsAValueNeverSql) {
  auto n = RunReadOnlyCount(wh_, "SELECT count(*) FROM t WHERE updated_at >= :since",
                            {{"since", "x' OR '1'='1"}});
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 0);
}

TEST_F(ReadOnlyCountTest, WritesAndBadQueriesAreRefused) {
  EXPECT_EQ(RunReadOnlyCount(wh_, "DELETE FROM t", {}).status().code(), StatusCode::kPermissionDenied);
  EXPECT_FALSE(RunReadOnlyCount(wh_, "SELECT count(*) FROM t; DELETE FROM t", {}).ok());
  EXPECT_FALSE(RunReadOnlyCount(wh_, "SELECT count(*) FROM t WHERE id > :other", {{"since", "x"}}).ok());
  EXPECT_FALSE(RunReadOnlyCount(wh_, "SELECT 'text'", {}).ok());
  EXPECT_FALSE(RunReadOnlyCount(wh_, "SELEC nonsense", {}).ok());
  auto still = RunReadOnlyCount(wh_, "SELECT count(*) FROM t", {});
  ASSERT_TRUE(still.ok());
  EXPECT_EQ(*still, 3);
}

TEST_F(ReadOnlyCountTest, AMissingFileIsNotFound) {
  wh_.path = (dir_.path() / "missing.db").string();
  EXPECT_EQ(RunReadOnlyCount(wh_, "SELECT 1", {}).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace dw::warehouse
