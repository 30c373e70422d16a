// The aggregate scan compiled for each registered dialect, found by its `type:` name as the
// workspace names it: only the aggregates the declared checks need (a range with only `min` reads
// no max), names quoted and qualified as the engine wants, native time columns read as epoch
// milliseconds only where the engine has them. Nothing here runs SQL.
#include "observe/quality/scan_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "warehouse/backends.h"

namespace dw::observe::quality {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TableCheckSpec RangeWithMinOnly() {
  TableCheckSpec spec;
  spec.range.push_back({"balance", RangeSpec{0.0, std::nullopt}});
  return spec;
}

TEST(ScanPlanTest, EveryRegisteredTypeHasADialectAndAnUnknownOneHasNone) {
  for (const char* type : {"sqlite", "postgres"}) {
    const warehouse::Dialect* d = warehouse::FindDialect(type);
    ASSERT_NE(d, nullptr) << type;
    EXPECT_EQ(d->name(), type);
  }
  EXPECT_EQ(warehouse::FindDialect("duckdb"), nullptr);
  EXPECT_EQ(warehouse::FindDialect(""), nullptr);
}

TEST(ScanPlanTest, ARangeWithOnlyAMinimumComputesNoMaximum) {
  for (const char* type : {"sqlite", "postgres"}) {
    const warehouse::Dialect& d = *warehouse::FindDialect(type);
    warehouse::TableSchema table{d.TableOf("loyalty", "balances"), {{"balance", "numeric"}}};
    AggregateScan scan = CompileAggregateScan(d, table, RangeWithMinOnly(), std::nullopt, {}, std::nullopt);
    EXPECT_THAT(scan.query.sql, HasSubstr("min(\"balance\")")) << type;
    EXPECT_THAT(scan.query.sql, Not(HasSubstr("max("))) << type;
    EXPECT_THAT(scan.query.sql, HasSubstr("count(*) FILTER (WHERE (\"balance\" < $1))")) << type;
    ASSERT_EQ(scan.min_max.size(), 1u);
    EXPECT_GE(scan.min_max[0].second.first, 0);
    EXPECT_EQ(scan.min_max[0].second.second, -1);
    ASSERT_EQ(scan.query.params.size(), 1u);
  }
}

TEST(ScanPlanTest, EachDialectNamesItsTablesAsItsEngineDoes) {
  const warehouse::Dialect& sqlite = *warehouse::FindDialect("sqlite");
  const warehouse::Dialect& postgres = *warehouse::FindDialect("postgres");
  // SQLite has one schema; PostgreSQL's default is public.
  EXPECT_EQ(sqlite.TableOf("loyalty", "balances"), (warehouse::TableId{"main", "balances"}));
  EXPECT_EQ(postgres.TableOf("", "balances"), (warehouse::TableId{"public", "balances"}));
  EXPECT_EQ(sqlite.Table({"main", "bal\"ances"}), "\"bal\"\"ances\"");
  EXPECT_EQ(postgres.Table({"loyalty", "balances"}), "\"loyalty\".\"balances\"");
}

TEST(ScanPlanTest, NativeTimeIsReadAsEpochMillisecondsOnlyWhereTheEngineHasIt) {
  const warehouse::Dialect& sqlite = *warehouse::FindDialect("sqlite");
  const warehouse::Dialect& postgres = *warehouse::FindDialect("postgres");
  EXPECT_TRUE(postgres.IsNativeTimeType("timestamp with time zone"));
  EXPECT_FALSE(postgres.IsNativeTimeType("text"));
  EXPECT_FALSE(sqlite.IsNativeTimeType("timestamp with time zone"));  // declared types are advisory
  EXPECT_TRUE(postgres.EnforcesColumnTypes());
  EXPECT_FALSE(sqlite.EnforcesColumnTypes());
  EXPECT_EQ(postgres.MaxTime("\"t\"", warehouse::TimeEncoding::kNative), "(extract(epoch from max(\"t\")) * 1000)");
  EXPECT_EQ(postgres.TimeParam(2, warehouse::TimeEncoding::kNative, "date"), "CAST($2 AS date)");
  EXPECT_EQ(sqlite.MaxTime("\"t\"", warehouse::TimeEncoding::kText), "max(\"t\")");
  EXPECT_EQ(sqlite.TimeParam(2, warehouse::TimeEncoding::kText, "text"), "$2");
  // Scans split into row ranges only where the engine numbers its rows.
  EXPECT_EQ(sqlite.RowIdColumn(), "rowid");
  EXPECT_EQ(postgres.RowIdColumn(), "");
}

}  // namespace
}  // namespace dw::observe::quality
