// The catalog readers of the automatic monitors (warehouse/table_catalog.h), on SQLite and on
// PostgreSQL ($DW_TEST_PG_URL, skipped when unset): every table and view with its columns, a row
// count and a token that moves with writes, from a fixed number of statements however many tables;
// a table dropped between the listing and the counting is left out, not an error; a role that
// cannot read some columns gets the rest and the missing grant named; an engine without a reader
// says so.
#include <gtest/gtest.h>

#include <map>

#include "warehouse/table_catalog.h"
#include "tests/warehouse/scratch_warehouse.h"

namespace dw::warehouse {
namespace {

using test_support::ScratchWarehouse;

class TableCatalogTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgres" && store::test_support::PostgresTestUrl().empty())
      GTEST_SKIP() << "needs scripts/with-postgres.sh (DW_TEST_PG_URL)";
    auto wh = ScratchWarehouse::Create(GetParam());
    ASSERT_TRUE(wh.ok()) << wh.status().ToString();
    wh_ = std::move(wh).value();
  }

  Result<CatalogRead> Read(Warehouse& w) { return ReadTableCatalog(wh_->config(), w, {wh_->schema()}); }

  std::map<std::string, CatalogTable> ByName(const CatalogRead& r) {
    std::map<std::string, CatalogTable> out;
    for (const auto& t : r.tables) out[t.id.table] = t;
    return out;
  }

  std::unique_ptr<ScratchWarehouse> wh_;
};

TEST_P(TableCatalogTest, EveryTableAndViewWithColumnsCountsAndAMovingToken) {
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(wh_->Exec("CREATE TABLE " + wh_->Sql("t" + std::to_string(i)) + " (id INTEGER NOT NULL, name TEXT)").ok());
  }
  ASSERT_TRUE(wh_->Exec("INSERT INTO " + wh_->Sql("t3") + " VALUES (1, 'a'), (2, 'b'), (3, 'c')").ok());
  ASSERT_TRUE(wh_->Exec("CREATE VIEW " + wh_->Sql("v_t3") + " AS SELECT id FROM " + wh_->Sql("t3")).ok());
  if (wh_->postgres()) {
    ASSERT_TRUE(wh_->Exec("SELECT pg_stat_force_next_flush()").ok());
  }
  auto opened = OpenWarehouse(wh_->config());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  auto read = Read(**opened);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  auto by = ByName(*read);
  ASSERT_TRUE(by.count("t3") && by.count("v_t3") && by.count("t11"));
  // Not one statement per table: SQLite's columns and counts, PostgreSQL's schema list and schema.
  EXPECT_LE(read->statements, 2);
  EXPECT_TRUE(read->problems.empty()) << read->problems.front();
  const CatalogTable& t3 = by["t3"];
  EXPECT_FALSE(t3.view);
  ASSERT_TRUE(t3.row_count.has_value());
  EXPECT_EQ(*t3.row_count, 3);
  ASSERT_TRUE(t3.columns.has_value());
  ASSERT_EQ(t3.columns->size(), 2u);
  EXPECT_EQ((*t3.columns)[0].name, "id");
  EXPECT_FALSE((*t3.columns)[0].nullable);
  EXPECT_EQ((*t3.columns)[0].type, "integer");
  EXPECT_FALSE(t3.change_token.empty());
  EXPECT_TRUE(by["v_t3"].view);
  EXPECT_FALSE(by["v_t3"].row_count.has_value());
  EXPECT_TRUE(by["v_t3"].change_token.empty());
  ASSERT_TRUE(by["v_t3"].columns.has_value());

  // A write moves the token of that table alone.
  ASSERT_TRUE(wh_->Exec("INSERT INTO " + wh_->Sql("t5") + " VALUES (9, 'z')" +
                        (wh_->postgres() ? "; SELECT pg_stat_force_next_flush()" : ""))
                  .ok());
  auto again = Read(**opened);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  auto after = ByName(*again);
  EXPECT_NE(after["t5"].change_token, by["t5"].change_token);
  EXPECT_EQ(after["t3"].change_token, by["t3"].change_token);
  EXPECT_EQ(after["t5"].row_count.value_or(-1), 1);
  if (wh_->postgres()) {
    EXPECT_EQ(after["t5"].rows_inserted.value_or(-1), by["t5"].rows_inserted.value_or(0) + 1);
  }
}

// Drops a table just before the first statement that counts rows, as a concurrent job would.
class DropsBeforeCounting : public Warehouse {
 public:
  DropsBeforeCounting(Warehouse& inner, std::function<void()> drop) : inner_(inner), drop_(std::move(drop)) {}
  const std::string& name() const override { return inner_.name(); }
  const Dialect& dialect() const override { return inner_.dialect(); }
  Result<std::vector<TableId>> ListTables() override { return inner_.ListTables(); }
  Result<std::optional<TableSchema>> DescribeTable(const TableId& t) override { return inner_.DescribeTable(t); }
  Result<QueryOutcome> Query(const std::string& sql, const std::vector<SqlValue>& params,
                             const QueryOptions& options) override {
    if (drop_ && sql.find("count(*)") != std::string::npos) {
      drop_();
      drop_ = nullptr;
    }
    return inner_.Query(sql, params, options);
  }
  Result<std::unique_ptr<Warehouse>> Reopen() override { return inner_.Reopen(); }
  Result<std::optional<int64_t>> EstimateRowsRead(const TableId& t, const std::string& where,
                                                  const std::vector<SqlValue>& params) override {
    return inner_.EstimateRowsRead(t, where, params);
  }

 private:
  Warehouse& inner_;
  std::function<void()> drop_;
};

TEST_P(TableCatalogTest, ATableDroppedBetweenListingAndCountingIsLeftOutNotAnError) {
  if (wh_->postgres()) GTEST_SKIP() << "PostgreSQL reads a schema in one statement: nothing happens between";
  for (const char* t : {"a", "b", "c"}) {
    ASSERT_TRUE(wh_->Exec(std::string("CREATE TABLE ") + t + " (x INTEGER); INSERT INTO " + t + " VALUES (1), (2)").ok());
  }
  auto opened = OpenWarehouse(wh_->config());
  ASSERT_TRUE(opened.ok());
  DropsBeforeCounting racing(**opened, [&] { ASSERT_TRUE(wh_->Exec("DROP TABLE b").ok()); });
  auto read = Read(racing);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->vanished, (std::vector<std::string>{"b"}));
  auto by = ByName(*read);
  EXPECT_FALSE(by.count("b"));
  ASSERT_TRUE(by.count("a") && by.count("c"));
  EXPECT_EQ(by["a"].row_count.value_or(-1), 2);
  EXPECT_EQ(by["c"].row_count.value_or(-1), 2);
}

TEST_P(TableCatalogTest, ARoleThatCannotReadSomeColumnsGetsTheRestAndTheGrantNamed) {
  if (!wh_->postgres()) GTEST_SKIP() << "SQLite has no grants";
  const std::string role = "dw_cat_" + store::test_support::UniqueSuffix();
  ASSERT_TRUE(wh_->Exec("CREATE TABLE " + wh_->Sql("open_t") + " (id integer); CREATE TABLE " + wh_->Sql("closed_t") +
                        " (id integer, secret text); INSERT INTO " + wh_->Sql("closed_t") +
                        " VALUES (1, 'x'); SELECT pg_stat_force_next_flush(); CREATE ROLE " + role +
                        " LOGIN; GRANT USAGE ON SCHEMA " + wh_->schema() + " TO " + role + "; GRANT SELECT ON " +
                        wh_->Sql("open_t") + " TO " + role)
                  .ok());
  config::WarehouseConfig limited = wh_->config();
  const std::string url = store::test_support::PostgresTestUrl();
  limited.dsn = "postgresql://" + role + url.substr(url.find('@'));
  auto opened = OpenWarehouse(limited);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  auto read = ReadTableCatalog(limited, **opened, {wh_->schema()});
  (void)wh_->Exec("DROP OWNED BY " + role + "; DROP ROLE " + role);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->problems.size(), 1u);
  EXPECT_NE(read->problems[0].find("GRANT SELECT ON " + wh_->schema() + ".closed_t TO " + role), std::string::npos)
      << read->problems[0];
  auto by = ByName(*read);
  ASSERT_TRUE(by.count("open_t") && by.count("closed_t"));
  EXPECT_TRUE(by["open_t"].columns.has_value());
  EXPECT_FALSE(by["closed_t"].columns.has_value());
  // What metadata it can read is still read: the counters of the table it may not select from.
  EXPECT_FALSE(by["closed_t"].change_token.empty());
  EXPECT_EQ(by["closed_t"].rows_inserted.value_or(-1), 1);
}

TEST_P(TableCatalogTest, AnEngineWithoutAReaderIsFailedPreconditionNotAnEmptyAnswer) {
  auto opened = OpenWarehouse(wh_->config());
  ASSERT_TRUE(opened.ok());
  for (const char* type : {"snowflake", "bigquery"}) {
    config::WarehouseConfig other = wh_->config();
    other.type = type;
    auto read = ReadTableCatalog(other, **opened);
    EXPECT_EQ(read.status().code(), StatusCode::kFailedPrecondition) << type;
    EXPECT_NE(read.status().message().find("not built for " + std::string(type) + " yet"), std::string::npos)
        << read.status().message();
    EXPECT_FALSE(HasTableCatalog(type));
  }
  EXPECT_TRUE(HasTableCatalog("sqlite"));
  EXPECT_TRUE(HasTableCatalog("postgres"));
}

INSTANTIATE_TEST_SUITE_P(Warehouses, TableCatalogTest, ::testing::Values("sqlite", "postgres"),
                         test_support::BackendName);

}  // namespace
}  // namespace dw::warehouse
