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

namespace dw::graph {
namespace {

using Names = std::vector<std::string>;

// Upserts and locks name no table after UPDATE: the write is the INSERT's target (issue 38: a
// PostgreSQL upsert made a table called SET).
TEST(SqlTableRefsUpserts, NoUpsertOrLockShapeNamesATableAfterUpdate) {
  struct Case {
    const char* sql;
    Names writes, reads;
  };
  for (const Case& c : std::vector<Case>{
           {"INSERT INTO marts.balances (id, amount) VALUES (1, 2) ON CONFLICT (id) DO UPDATE SET amount = EXCLUDED.amount",
            {"marts.balances"}, {}},
           {"insert into t (a) select a from s on conflict on constraint t_pkey do update set a = excluded.a "
            "where t.a is distinct from excluded.a",
            {"t"}, {"s"}},
           {"INSERT INTO t (a) VALUES (1) ON CONFLICT DO NOTHING", {"t"}, {}},
           {"INSERT INTO t (a, b) VALUES (1, 2) ON DUPLICATE KEY UPDATE b = VALUES(b)", {"t"}, {}},
           {"INSERT OR REPLACE INTO kv (k, v) VALUES ('a', 1)", {"kv"}, {}},
           {"INSERT IGNORE INTO app.users (id) SELECT id FROM app.staged", {"app.users"}, {"app.staged"}},
           {"REPLACE INTO app.users (id) VALUES (1)", {"app.users"}, {}},
           {"SELECT * FROM jobs WHERE state = 'new' FOR UPDATE SKIP LOCKED", {}, {"jobs"}},
           {"SELECT * FROM jobs FOR NO KEY UPDATE NOWAIT", {}, {"jobs"}},
           {"CREATE TABLE a.child (id int REFERENCES a.parent ON DELETE CASCADE ON UPDATE SET NULL)", {"a.child"}, {}},
           {"SELECT * FROM a WHERE x IS NOT DISTINCT FROM y", {}, {"a"}},
       }) {
    TableRefs r = ExtractTableRefs(c.sql);
    EXPECT_EQ(r.writes, c.writes) << c.sql;
    EXPECT_EQ(r.reads, c.reads) << c.sql;
  }
}

TEST(SqlTableRefsCtes, WithNamesInEveryShapeAreNotTables) {
  for (const char* sql : {
           "WITH recent AS (SELECT * FROM raw.s) INSERT INTO marts.t SELECT * FROM recent",
           "WITH recent (id, n) AS (SELECT * FROM raw.s) INSERT INTO marts.t SELECT * FROM recent",
           "WITH recent AS MATERIALIZED (SELECT * FROM raw.s) INSERT INTO marts.t SELECT * FROM recent",
           "WITH recent AS NOT MATERIALIZED (SELECT * FROM raw.s) INSERT INTO marts.t SELECT * FROM recent",
           "WITH RECURSIVE recent(n) AS (SELECT 1 FROM raw.s UNION ALL SELECT n + 1 FROM recent) "
           "INSERT INTO marts.t SELECT * FROM recent",
           "with a as (select * from raw.s), recent as (select * from a) insert into marts.t select * from recent",
       }) {
    TableRefs r = ExtractTableRefs(sql);
    EXPECT_EQ(r.writes, Names{"marts.t"}) << sql;
    EXPECT_EQ(r.reads, Names{"raw.s"}) << sql;
  }
}

TEST(SqlTableRefsQuoting, QuotedNamesInEveryDialect) {
  struct Case {
    const char* sql;
    Names reads;
  };
  for (const Case& c : std::vector<Case>{
           {"SELECT * FROM \"My Table\"", {"My Table"}},
           {"SELECT * FROM \"Sales\".\"Order Lines\" ol", {"Sales.Order Lines"}},
           {"SELECT * FROM `a`.`b`", {"a.b"}},
           {"SELECT * FROM `project.dataset.events`", {"project.dataset.events"}},
           {"SELECT * FROM [dbo].[Order Details]", {"dbo.Order Details"}},
           {"SELECT * FROM public.\"CamelCase\"", {"public.CamelCase"}},
       }) {
    EXPECT_EQ(ExtractTableRefs(c.sql).reads, c.reads) << c.sql;
  }
}

TEST(SqlTableRefsMerge, MergeInEveryShape) {
  struct Case {
    const char* sql;
    Names writes, reads;
  };
  for (const Case& c : std::vector<Case>{
           {"MERGE INTO marts.dim d USING staging.dim s ON d.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v "
            "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)",
            {"marts.dim"}, {"staging.dim"}},
           {"MERGE marts.dim AS d USING (SELECT * FROM staging.dim WHERE ok) AS s ON d.id = s.id "
            "WHEN MATCHED THEN DELETE",
            {"marts.dim"}, {"staging.dim"}},
           {"MERGE INTO `p.marts.dim` T USING `p.staging.dim` S ON T.id = S.id WHEN NOT MATCHED BY SOURCE THEN DELETE",
            {"p.marts.dim"}, {"p.staging.dim"}},
       }) {
    TableRefs r = ExtractTableRefs(c.sql);
    EXPECT_EQ(r.writes, c.writes) << c.sql;
    EXPECT_EQ(r.reads, c.reads) << c.sql;
  }
}

TEST(SqlTableRefsWrites, InsertSelectCopyDeleteUsingAndOnly) {
  struct Case {
    const char* sql;
    Names writes, reads;
  };
  for (const Case& c : std::vector<Case>{
           {"INSERT INTO a.t SELECT * FROM b.u UNION ALL SELECT * FROM c.v", {"a.t"}, {"b.u", "c.v"}},
           {"INSERT INTO a.t (x) (SELECT x FROM b.u)", {"a.t"}, {"b.u"}},
           {"INSERT INTO a.t DEFAULT VALUES", {"a.t"}, {}},
           {"COPY raw.events FROM '/tmp/e.csv' WITH (FORMAT csv)", {"raw.events"}, {}},
           {"COPY raw.events (id, ts) FROM STDIN", {"raw.events"}, {}},
           {"COPY marts.daily TO '/tmp/out.csv'", {}, {"marts.daily"}},
           {"COPY INTO raw.events FROM @stage/events/", {"raw.events"}, {}},
           {"DELETE FROM a.t USING b.u, c.v WHERE a.t.id = b.u.id", {"a.t"}, {"b.u", "c.v"}},
           {"UPDATE ONLY a.t SET x = 1", {"a.t"}, {}},
           {"DELETE FROM ONLY a.t", {"a.t"}, {}},
       }) {
    TableRefs r = ExtractTableRefs(c.sql);
    EXPECT_EQ(r.writes, c.writes) << c.sql;
    EXPECT_EQ(r.reads, c.reads) << c.sql;
  }
}

TEST(SqlTableRefsLiterals, CommentsAndEveryKindOfStringHideTheirText) {
  for (const char* sql : {
           "SELECT 'it''s FROM no.table' FROM real.t",
           "SELECT E'it\\'s FROM no.table' FROM real.t",
           "SELECT $$ FROM no.table $$ FROM real.t",
           "SELECT $body$ INSERT INTO no.table $body$ FROM real.t",
           "SELECT 1 -- FROM no.table\nFROM real.t",
           "SELECT /* INSERT INTO no.table */ 1 FROM real.t",
           "SELECT 1 {# FROM no.table #} FROM real.t",
           "SELECT $1 FROM real.t WHERE a = $2",
       }) {
    TableRefs r = ExtractTableRefs(sql);
    EXPECT_EQ(r.reads, Names{"real.t"}) << sql;
    EXPECT_TRUE(r.writes.empty()) << sql;
  }
}

TEST(SqlTableRefsTemplates, ATemplateWhereANameIsIsKeptInTheName) {
  TableRefs r = ExtractTableRefs(
      "INSERT INTO {{ inputs.table }} SELECT * FROM raw.events_{{ now() | date('yyyyMMdd') }} e "
      "JOIN {{ vars.schema }}.users u ON u.id = e.uid WHERE d = '{{ trigger.date }}' AND n > {{ vars.n }}");
  EXPECT_EQ(r.writes, Names{"{{ inputs.table }}"});
  EXPECT_EQ(r.reads, (Names{"raw.events_{{ now() | date('yyyyMMdd') }}", "{{ vars.schema }}.users"}));
}

}  // namespace
}  // namespace dw::graph
