#include "graph/sql_table_refs.h"

#include <gtest/gtest.h>

namespace dw::graph {
namespace {


TEST(SqlTableRefs, InsertSelectReadsSourcesAndWritesTarget) {
  auto r = ExtractTableRefs(
      "INSERT INTO raw.rated_sessions SELECT s.id FROM staging.sessions s JOIN pricing.tariffs t ON t.c = s.c");
  EXPECT_EQ(r.writes, std::vector<std::string>{"raw.rated_sessions"});
  EXPECT_EQ(r.reads, (std::vector<std::string>{"staging.sessions", "pricing.tariffs"}));
}

TEST(SqlTableRefs, InsertWithAColumnListAndValues) {
  auto r = ExtractTableRefs("INSERT INTO raw.rated_sessions (session_id, kwh) VALUES ('{{ x }}', {{ y }})");
  EXPECT_EQ(r.writes, std::vector<std::string>{"raw.rated_sessions"});
  EXPECT_TRUE(r.reads.empty());
}

TEST(SqlTableRefs, MergeUsingReadsTheSourceAndWritesTheTarget) {
  auto r = ExtractTableRefs(
      "merge into raw.rated_sessions s using (select * from raw.rated_sessions r join pricing.tariffs t "
      "on t.a = r.a) n on s.id = n.id when matched then update set rate = n.rate");
  EXPECT_EQ(r.writes, std::vector<std::string>{"raw.rated_sessions"});
  EXPECT_EQ(r.reads, (std::vector<std::string>{"raw.rated_sessions", "pricing.tariffs"}));
}

TEST(SqlTableRefs, MergeUsingATableDirectly) {
  auto r = ExtractTableRefs("MERGE INTO dst AS d USING src AS s ON d.id = s.id WHEN MATCHED THEN DELETE");
  EXPECT_EQ(r.writes, std::vector<std::string>{"dst"});
  EXPECT_EQ(r.reads, std::vector<std::string>{"src"});
}

TEST(SqlTableRefs, CreateTableAsAndViews) {
  auto r = ExtractTableRefs(
      "CREATE OR REPLACE TABLE marts.daily AS SELECT * FROM raw.events;\n"
      "CREATE VIEW IF NOT EXISTS v.latest AS SELECT * FROM marts.daily");
  EXPECT_EQ(r.writes, (std::vector<std::string>{"marts.daily", "v.latest"}));
  EXPECT_EQ(r.reads, (std::vector<std::string>{"raw.events", "marts.daily"}));
}

TEST(SqlTableRefs, CtesSubqueriesAndTableFunctionsAreNotTables) {
  auto r = ExtractTableRefs(
      "WITH recent AS (SELECT * FROM raw.sessions WHERE d > 1), t2 AS (SELECT 1) "
      "SELECT * FROM recent, t2, (SELECT * FROM audit.x) sub "
      "JOIN EXTERNAL_QUERY('pg', 'SELECT * FROM tariffs') e ON true "
      "CROSS JOIN UNNEST(arr) AS u");
  EXPECT_TRUE(r.writes.empty());
  EXPECT_EQ(r.reads, (std::vector<std::string>{"raw.sessions", "audit.x"}));
}

TEST(SqlTableRefs, CommentsStringsAndTemplatesAreSkipped) {
  auto r = ExtractTableRefs(
      "-- FROM commented.out\n/* JOIN also.commented */\n"
      "SELECT 'FROM not.a_table' AS s, {{ kv('FROM x.y') }} FROM `proj.ds.events` "
      "WHERE EXTRACT(DAY FROM ts) = 1 AND TRIM(BOTH ' ' FROM name) <> ''");
  EXPECT_EQ(r.reads, std::vector<std::string>{"proj.ds.events"});
}

TEST(SqlTableRefs, UpdateDeleteTruncateWrite) {
  auto r = ExtractTableRefs(
      "UPDATE a.t SET x = 1 FROM b.u WHERE a.t.id = b.u.id; DELETE FROM c.v WHERE 1=1; TRUNCATE TABLE d.w");
  EXPECT_EQ(r.writes, (std::vector<std::string>{"a.t", "c.v", "d.w"}));
  EXPECT_EQ(r.reads, std::vector<std::string>{"b.u"});
}

TEST(SqlTableRefs, QuotedNamesAndCommaLists) {
  auto r = ExtractTableRefs("SELECT * FROM \"Sales\".\"Orders\" o, public.customers c, items");
  EXPECT_EQ(r.reads, (std::vector<std::string>{"Sales.Orders", "public.customers", "items"}));
}

TEST(SqlTableRefs, GarbageNeverCrashes) {
  for (const char* s : {"", "FROM", "INSERT INTO", "MERGE", "'unterminated", "\"open", "/* open",
                        "{{ open", "SELECT ((((", "FROM ."})
    ExtractTableRefs(s);
  SUCCEED();
}

}  // namespace
}  // namespace dw::graph

namespace dw::graph {
namespace {

// Found by tests/fuzz/ (fuzz_sql_table_refs; the input is tests/fuzz/regressions/sql_table_refs/):
// an empty quoted identifier came out as a table named "" (or ".x").
TEST(SqlTableRefsFuzzRegression, AnEmptyQuotedIdentifierNamesNoTable) {
  TableRefs refs = ExtractTableRefs("SELECT * FROM \"\" JOIN \"\".x ON 1 JOIN ``.`` ON 1; INSERT INTO [] SELECT 1");
  EXPECT_TRUE(refs.reads.empty()) << refs.reads.size();
  EXPECT_TRUE(refs.writes.empty());
  refs = ExtractTableRefs("SELECT i FROM s lranded from 09:50 to 10:00 (partitions 0)\"\"");
  for (const std::string& name : refs.reads) EXPECT_FALSE(name.empty());
  EXPECT_EQ(ExtractTableRefs("SELECT 1 FROM \"raw\".\"t\"").reads, std::vector<std::string>{"raw.t"});
}

}  // namespace
}  // namespace dw::graph
