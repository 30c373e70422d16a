// The Warehouse interface on both backends: catalog reads, bound parameters, read-only enforcement,
// one statement per query, timeouts and row estimates.
#include "warehouse/warehouse.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>

#include "tests/warehouse/scratch_warehouse.h"
#include "warehouse/history.h"
#include "warehouse/probe.h"
#include "warehouse/spend.h"

namespace dw::warehouse {
namespace {

using test_support::ScratchWarehouse;

class WarehouseTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgres" && store::test_support::PostgresTestUrl().empty())
      GTEST_SKIP() << store::test_support::kPgSkipMessage;
    auto s = ScratchWarehouse::Create(GetParam());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    scratch_ = std::move(s).value();
    ASSERT_TRUE(scratch_->Exec("CREATE TABLE " + scratch_->Sql("items") +
                               " (id INTEGER NOT NULL, label TEXT, price " + scratch_->DoubleType() +
                               "); INSERT INTO " + scratch_->Sql("items") +
                               " VALUES (1, 'a', 1.5), (2, 'b', NULL), (3, NULL, 7)")
                    .ok());
    auto wh = OpenWarehouse(scratch_->config());
    ASSERT_TRUE(wh.ok()) << wh.status().ToString();
    wh_ = std::move(wh).value();
  }

  TableId Items() const { return {scratch_->schema(), "items"}; }
  std::string Table() const { return wh_->dialect().Table(Items()); }

  std::unique_ptr<ScratchWarehouse> scratch_;
  std::unique_ptr<Warehouse> wh_;
};

TEST_P(WarehouseTest, ReadsTablesAndColumnsFromTheCatalog) {
  auto tables = wh_->ListTables();
  ASSERT_TRUE(tables.ok()) << tables.status().ToString();
  EXPECT_NE(std::find(tables->begin(), tables->end(), Items()), tables->end());
  auto schema = wh_->DescribeTable(Items());
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  ASSERT_TRUE(schema->has_value());
  ASSERT_EQ((*schema)->columns.size(), 3u);
  EXPECT_EQ((*schema)->columns[0].name, "id");
  EXPECT_EQ((*schema)->columns[0].type, "integer");
  EXPECT_FALSE((*schema)->columns[0].nullable);
  EXPECT_TRUE((*schema)->columns[1].nullable);
  EXPECT_EQ((*schema)->columns[2].type, GetParam() == "postgres" ? "double precision" : "real");
  auto missing = wh_->DescribeTable({scratch_->schema(), "nope"});
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

TEST_P(WarehouseTest, BindsParametersAsDataNeverAsSql) {
  auto r = wh_->Query("SELECT count(*) FROM " + Table() + " WHERE label = $1",
                      {std::string("a' OR '1'='1")}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(std::get<int64_t>(r->rows[0][0]), 0);
  r = wh_->Query("SELECT count(*) FROM " + Table() + " WHERE label = $1", {std::string("a")}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::get<int64_t>(r->rows[0][0]), 1);
}

TEST_P(WarehouseTest, BindsParametersByNumberWhereverTheyAppear) {
  // $2 appears before $1: each must still receive its own value.
  auto r = wh_->Query("SELECT sum(CASE WHEN label = $2 THEN 1 ELSE 0 END) FROM " + Table() +
                          " WHERE id >= $1",
                      {int64_t{2}, std::string("b")}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(std::get<int64_t>(r->rows[0][0]), 1);
}

TEST_P(WarehouseTest, RefusesWritesAndLeavesTheDataAlone) {
  for (const std::string& sql :
       {"DELETE FROM " + Table(), "UPDATE " + Table() + " SET price = 0",
        "DROP TABLE " + Table(), "INSERT INTO " + Table() + " VALUES (9, 'x', 1)"}) {
    auto r = wh_->Query(sql, {}, {});
    ASSERT_FALSE(r.ok()) << sql;
    EXPECT_EQ(r.status().code(), StatusCode::kPermissionDenied) << sql << ": " << r.status().ToString();
  }
  EXPECT_EQ(scratch_->Scalar("SELECT count(*) FROM " + scratch_->Sql("items")), 3);
}

TEST_P(WarehouseTest, RefusesASecondStatement) {
  auto r = wh_->Query("SELECT 1; DELETE FROM " + Table(), {}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(scratch_->Scalar("SELECT count(*) FROM " + scratch_->Sql("items")), 3);
}

TEST_P(WarehouseTest, InterruptsAQueryPastItsTimeout) {
  std::string slow = GetParam() == "postgres"
                         ? "SELECT count(*) FROM pg_sleep(30)"
                         : "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                           "SELECT count(*) FROM c";
  auto r = wh_->Query(slow, {}, {std::chrono::milliseconds(100)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDeadlineExceeded) << r.status().ToString();
  EXPECT_NE(r.status().message().find("timeout"), std::string::npos);
  // The connection is still usable afterwards.
  auto after = wh_->Query("SELECT count(*) FROM " + Table(), {}, {});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(std::get<int64_t>(after->rows[0][0]), 3);
}

// A SQLite file another process holds locked: the query waits for the lock no longer than its own
// timeout (at most SQLite's 5 s busy wait), and says the database is locked.
TEST_P(WarehouseTest, WaitsForALockedSqliteFileNoLongerThanTheQuerysTimeout) {
  if (GetParam() != "sqlite") GTEST_SKIP() << "a lock wait on PostgreSQL is bounded by statement_timeout";
  sqlite3* locker = nullptr;
  ASSERT_EQ(sqlite3_open(scratch_->config().path.c_str(), &locker), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(locker, "PRAGMA journal_mode=DELETE; BEGIN EXCLUSIVE; INSERT INTO items VALUES (4, 'd', 1)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  const auto start = std::chrono::steady_clock::now();
  auto r = wh_->Query("SELECT count(*) FROM " + Table(), {}, {std::chrono::milliseconds(300)});
  const auto took = std::chrono::steady_clock::now() - start;
  // Opening it meanwhile reads its schema under the same bound, and a lock is not a damaged file.
  config::WarehouseConfig bounded = scratch_->config();
  bounded.query_timeout = std::chrono::milliseconds(300);
  const auto open_start = std::chrono::steady_clock::now();
  auto opened = OpenWarehouse(bounded);
  const auto open_took = std::chrono::steady_clock::now() - open_start;
  sqlite3_exec(locker, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(locker);
  ASSERT_FALSE(r.ok()) << "a locked file was read";
  EXPECT_NE(r.status().message().find("locked"), std::string::npos) << r.status().ToString();
  EXPECT_GE(took, std::chrono::milliseconds(250)) << "it did not wait for the lock at all";
  EXPECT_LT(took, std::chrono::milliseconds(2500)) << "it waited past its 300 ms timeout";
  ASSERT_FALSE(opened.ok()) << "a locked file was opened";
  EXPECT_EQ(opened.status().code(), StatusCode::kUnavailable) << opened.status().ToString();
  EXPECT_NE(opened.status().message().find("locked"), std::string::npos) << opened.status().ToString();
  EXPECT_LT(open_took, std::chrono::milliseconds(2500)) << "the open waited past the warehouse's 300 ms";
  // Once the lock is gone the same connection reads again.
  auto after = wh_->Query("SELECT count(*) FROM " + Table(), {}, {});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(std::get<int64_t>(after->rows[0][0]), 3);
}

TEST_P(WarehouseTest, KeepsTheEnginesMessageForABadQuery) {
  auto r = wh_->Query("SELECT no_such_column FROM " + Table(), {}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no_such_column"), std::string::npos) << r.status().ToString();
}

TEST_P(WarehouseTest, EstimatesRowsWithoutReadingThem) {
  if (GetParam() == "postgres") {
    ASSERT_TRUE(scratch_->Exec("ANALYZE " + scratch_->Sql("items")).ok());
  }
  auto e = wh_->EstimateRowsRead(Items(), "", {});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  ASSERT_TRUE(e->has_value());
  EXPECT_EQ(**e, 3);
}

TEST(WarehouseOpenTest, AMissingSqliteFileIsAnErrorAndIsNotCreated) {
  config::WarehouseConfig c;
  c.name = "wh";
  c.type = "sqlite";
  c.path = (std::filesystem::temp_directory_path() / "dw-no-such-warehouse.db").string();
  auto wh = OpenWarehouse(c);
  ASSERT_FALSE(wh.ok());
  EXPECT_EQ(wh.status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(c.path));
}

TEST(WarehouseOpenTest, AnUnreachablePostgresNamesTheWarehouseAndHidesThePassword) {
  config::WarehouseConfig c;
  c.name = "pg";
  c.type = "postgres";
  c.dsn = "postgresql://dw:s3cretpw@127.0.0.1:1/db?connect_timeout=2";
  auto wh = OpenWarehouse(c);
  ASSERT_FALSE(wh.ok());
  EXPECT_EQ(wh.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(wh.status().message().find("warehouse 'pg'"), std::string::npos) << wh.status().ToString();
  EXPECT_EQ(wh.status().message().find("s3cretpw"), std::string::npos);
}

// The REST warehouses are handed the process's HTTP client; opened without one, each of their
// entry points says which warehouse and why instead of reaching out on its own.
TEST(WarehouseOpenTest, ARestWarehouseOpenedWithoutAnHttpClientSaysSo) {
  for (const char* type : {"bigquery", "snowflake"}) {
    config::WarehouseConfig c;
    c.name = std::string("rest_") + type;
    c.type = type;
    c.project = "p";
    c.credentials = "/nonexistent/key.json";
    c.account = "acct";
    c.user = "u";
    c.private_key = "/nonexistent/key.p8";
    c.database = "db";
    auto check = [&](const Status& s, const char* what) {
      EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << type << " " << what << ": " << s.ToString();
      EXPECT_NE(s.message().find("warehouse '" + c.name + "'"), std::string::npos) << s.ToString();
      EXPECT_NE(s.message().find("no HTTP client"), std::string::npos) << s.ToString();
    };
    check(OpenWarehouse(c).status(), "open");
    check(OpenWarehouseHistory(c).status(), "history");
    check(OpenWarehouseSpend(c).status(), "spend");
    WarehouseProbe probe = ProbeWarehouse(c, std::chrono::seconds(1));
    EXPECT_FALSE(probe.reachable) << type;
    EXPECT_NE(probe.detail.find("no HTTP client"), std::string::npos) << probe.detail;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, WarehouseTest, ::testing::Values("sqlite", "postgres"),
                         test_support::BackendName);

}  // namespace
}  // namespace dw::warehouse
