// Migrations: the list is well-formed, upgrades apply only what is pending, and a migration that
// fails leaves the store exactly as it was. Runs on both backends.
#include "store/migrate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>

#include "store/migrations.h"
#include "store/state_store.h"
#include "store_test_support.h"

namespace dw::store {
namespace {

TEST(StoreMigrationsTest, VersionsStartAtOneWithoutGaps) {
  std::span<const Migration> all = AllMigrations();
  ASSERT_FALSE(all.empty());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].version, static_cast<int>(i) + 1);
    EXPECT_FALSE(all[i].description.empty());
    EXPECT_FALSE(all[i].ddl.empty());
  }
  EXPECT_EQ(CurrentSchemaVersion(), all.back().version);
}

TEST(StoreMigrationsTest, PlaceholdersAreSpelledPerDialect) {
  std::string_view ddl = "CREATE TABLE t (id {ID}, a {DOUBLE}, b {DOUBLE})";
  EXPECT_EQ(RenderDdl(ddl, "sqlite"),
            "CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, a REAL, b REAL)");
  EXPECT_EQ(RenderDdl(ddl, "postgresql"),
            "CREATE TABLE t (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, a DOUBLE PRECISION, "
            "b DOUBLE PRECISION)");
}

constexpr Migration kOne{1, "one", "CREATE TABLE t1 (x INTEGER)"};
constexpr Migration kTwo{2, "two", "CREATE TABLE t2 (y {DOUBLE}); INSERT INTO t1 VALUES (7)"};
// Creates t3, then fails on a table that already exists: t3 must not survive.
constexpr Migration kBrokenTwo{2, "broken",
                               "CREATE TABLE t3 (z INTEGER); CREATE TABLE t1 (z INTEGER)"};

class StoreMigrateTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgresql" && test_support::PostgresTestUrl().empty()) {
      GTEST_SKIP() << test_support::kPgSkipMessage;
    }
    Result<std::unique_ptr<test_support::ScratchLocation>> scratch =
        test_support::ScratchLocation::Create(GetParam());
    ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
    scratch_ = std::move(scratch).value();
    Result<std::unique_ptr<SqlConnection>> conn = scratch_->Connect();
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    conn_ = std::move(conn).value();
  }

  int64_t Scalar(const std::string& sql) {
    Result<std::vector<SqlRow>> rows = conn_->Query(sql);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() && rows->size() == 1 ? std::get<int64_t>((*rows)[0][0]) : -1;
  }

  SimulatedClock clock_{FromUnixMillis(1'800'000'000'000)};
  std::unique_ptr<test_support::ScratchLocation> scratch_;
  std::unique_ptr<SqlConnection> conn_;
};

TEST_P(StoreMigrateTest, AnUpgradeAppliesOnlyThePendingMigrations) {
  std::array v1 = {kOne};
  Result<int> version = ApplyMigrations(*conn_, v1, clock_);
  ASSERT_TRUE(version.ok()) << version.status().ToString();
  EXPECT_EQ(*version, 1);
  std::array v2 = {kOne, kTwo};
  version = ApplyMigrations(*conn_, v2, clock_);
  ASSERT_TRUE(version.ok()) << version.status().ToString();
  EXPECT_EQ(*version, 2);
  EXPECT_EQ(Scalar("SELECT COUNT(*) FROM t1"), 1);  // migration 2 ran exactly once
  EXPECT_EQ(Scalar("SELECT COUNT(*) FROM schema_migrations"), 2);
  version = ApplyMigrations(*conn_, v2, clock_);
  ASSERT_TRUE(version.ok());
  EXPECT_EQ(Scalar("SELECT COUNT(*) FROM t1"), 1);
}

TEST_P(StoreMigrateTest, AFailedMigrationChangesNothing) {
  std::array broken = {kOne, kBrokenTwo};
  Result<int> version = ApplyMigrations(*conn_, broken, clock_);
  ASSERT_FALSE(version.ok());
  EXPECT_THAT(version.status().message(), ::testing::HasSubstr("applying schema migration 2"));
  // Not even migration 1, which came first in the same transaction, was kept.
  Result<std::vector<SqlRow>> t1 = conn_->Query("SELECT COUNT(*) FROM t1");
  EXPECT_FALSE(t1.ok());
  std::array v1 = {kOne};
  ASSERT_TRUE(ApplyMigrations(*conn_, v1, clock_).ok());
  version = ApplyMigrations(*conn_, broken, clock_);
  ASSERT_FALSE(version.ok());
  EXPECT_EQ(Scalar("SELECT MAX(version) FROM schema_migrations"), 1);
  EXPECT_FALSE(conn_->Query("SELECT COUNT(*) FROM t3").ok());
}

// A PostgreSQL-only migration (a storage setting SQLite has no form of): run there, recorded
// without running anything on SQLite, where its DDL would fail.
constexpr Migration kPostgresOnlyTwo{2, "postgres only",
                                     "CREATE TABLE t_pg (x BIGINT); ALTER TABLE t_pg ALTER COLUMN x SET STORAGE PLAIN",
                                     "postgresql"};

TEST_P(StoreMigrateTest, AMigrationForOneBackendRunsThereAndIsOnlyRecordedOnTheOther) {
  std::array v2 = {kOne, kPostgresOnlyTwo};
  Result<int> version = ApplyMigrations(*conn_, v2, clock_);
  ASSERT_TRUE(version.ok()) << version.status().ToString();
  EXPECT_EQ(*version, 2);
  EXPECT_EQ(Scalar("SELECT MAX(version) FROM schema_migrations"), 2);
  EXPECT_EQ(conn_->Query("SELECT COUNT(*) FROM t_pg").ok(), GetParam() == "postgresql");
}

TEST_P(StoreMigrateTest, ANewerStoreIsRefusedWithBothVersions) {
  std::array v2 = {kOne, kTwo};
  ASSERT_TRUE(ApplyMigrations(*conn_, v2, clock_).ok());
  std::array v1 = {kOne};
  Result<int> version = ApplyMigrations(*conn_, v1, clock_);
  ASSERT_FALSE(version.ok());
  EXPECT_EQ(version.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(version.status().message(),
              ::testing::HasSubstr("(schema version 2; this build supports up to 1)"));
}

INSTANTIATE_TEST_SUITE_P(Store, StoreMigrateTest, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace dw::store
