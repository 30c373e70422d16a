// Every check type passing and failing on data built for it, on SQLite and PostgreSQL; one scan per
// table; incremental runs; the scan budget; samples with pii masked; schema drift and row-count
// change across runs; warehouse failures reported as errors, never as passes.
#include "observe/quality/quality_run.h"

#include <gtest/gtest.h>

#include "observe/quality/partitioned_scan.h"
#include "observe/quality/table_plan.h"
#include "observe/quality/table_run.h"
#include "tests/observe/quality/quality_fixture.h"

namespace dw::observe::quality {
namespace {

using test_support::FixtureNow;
using test_support::QualityFixture;

Json FullSpec() {
  return Json::parse(R"({
    "time_column": "updated_at",
    "not_null": ["member_id", "balance"],
    "unique": ["member_id"],
    "freshness": {"max_age": "30m"},
    "volume": {"min_rows": 10},
    "accepted_values": {"tier": ["bronze", "silver", "gold"]},
    "range": {"balance": {"min": 0}},
    "schema": true,
    "row_count_change": {"max_drop_pct": 50},
    "custom": [{"name": "negative_balances", "sql": "SELECT count(*) FROM TABLE WHERE balance < 0", "must_be": 0}]
  })");
}

class QualityRunTest : public QualityFixture {
 protected:
  Json Spec() {
    Json spec = FullSpec();
    std::string sql = spec["custom"][0]["sql"];
    sql.replace(sql.find("TABLE"), 5, wh_->Sql("balances"));
    spec["custom"][0]["sql"] = sql;
    return spec;
  }
};

TEST_P(QualityRunTest, EveryCheckPassesOnCleanDataInOneScanPerTable) {
  Configure(Spec());
  auto r = Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->ExitCode(), 0) << Dump(*r);
  ASSERT_EQ(r->tables.size(), 1u);
  const TableReport& t = r->tables[0];
  EXPECT_EQ(t.outcomes.size(), 10u);
  for (const CheckOutcome& o : t.outcomes) EXPECT_EQ(o.verdict, Verdict::kPass) << o.name << ": " << o.message;
  EXPECT_EQ(t.rows, 20);
  // One aggregate SELECT, one GROUP BY for the key, one custom query: nothing per column.
  EXPECT_EQ(t.queries, 3);
  EXPECT_EQ(Outcome(*r, "range:balance").observed["min"], Json(10.0));
  // A range with only a minimum computes no maximum: the scan reads what the checks need.
  EXPECT_FALSE(Outcome(*r, "range:balance").observed.contains("max"));
  EXPECT_EQ(Outcome(*r, "range:balance").observed["out_of_range"], 0);
  EXPECT_EQ(Outcome(*r, "freshness").observed["latest"], "2026-11-24T13:59:00.000Z");
  EXPECT_EQ(Outcome(*r, "freshness").observed["age_seconds"], Json(60.0));
}

TEST_P(QualityRunTest, EachCheckFailsOnDataBuiltForIt) {
  Insert(21, "NULL", "gold", 3);        // a NULL balance
  Insert(5, "50", "silver", 4);         // member 5 twice
  Insert(22, "-5", "platinum", 2);      // negative, and a tier outside the list
  Flush();
  Configure(Spec());
  auto r = Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->ExitCode(), 1);
  const CheckOutcome& nulls = Outcome(*r, "not_null:balance");
  EXPECT_EQ(nulls.verdict, Verdict::kFail);
  EXPECT_EQ(nulls.observed["null_count"], 1);
  EXPECT_EQ(nulls.observed["rows"], 23);
  ASSERT_TRUE(nulls.sample.has_value());
  ASSERT_EQ(nulls.sample->size(), 1u);
  EXPECT_EQ((*nulls.sample)[0], Json::parse(R"({"member_id": 21, "balance": null})"));

  const CheckOutcome& dup = Outcome(*r, "unique:member_id");
  EXPECT_EQ(dup.verdict, Verdict::kFail);
  EXPECT_EQ(dup.observed["duplicated_keys"], 1);
  ASSERT_TRUE(dup.sample.has_value());
  EXPECT_EQ((*dup.sample)[0], Json::parse(R"({"member_id": 5, "count": 2})"));

  const CheckOutcome& tier = Outcome(*r, "accepted_values:tier");
  EXPECT_EQ(tier.verdict, Verdict::kFail);
  EXPECT_EQ(tier.observed["invalid_count"], 1);
  EXPECT_EQ((*tier.sample)[0], Json::parse(R"({"member_id": 22, "tier": "platinum"})"));

  const CheckOutcome& range = Outcome(*r, "range:balance");
  EXPECT_EQ(range.verdict, Verdict::kFail);
  EXPECT_EQ(range.observed["min"], Json(-5.0));
  // How many rows fall outside, counted in the same scan (as not_null and accepted_values do).
  EXPECT_EQ(range.observed["out_of_range"], 1);
  EXPECT_EQ(range.message.rfind("1 row(s) of balance outside the range (at least 0; min -5.0)", 0), 0u)
      << range.message;
  EXPECT_EQ((*range.sample)[0], Json::parse(R"({"member_id": 22, "balance": -5.0})"));

  const CheckOutcome& custom = Outcome(*r, "custom:negative_balances");
  EXPECT_EQ(custom.verdict, Verdict::kFail);
  EXPECT_EQ(custom.observed["value"], 1);
  EXPECT_EQ(Outcome(*r, "not_null:member_id").verdict, Verdict::kPass);
  EXPECT_EQ(Outcome(*r, "freshness").verdict, Verdict::kPass);
}

TEST_P(QualityRunTest, FreshnessAndVolumeFailWhenTheDataStopsArriving) {
  Json spec = Json::parse(R"({"time_column": "updated_at", "freshness": {"max_age": "30m"},
                              "volume": {"min_rows": 5, "window": "10m"}})");
  Configure(spec);
  clock_.Advance(std::chrono::hours(2));
  auto r = Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const CheckOutcome& fresh = Outcome(*r, "freshness");
  EXPECT_EQ(fresh.verdict, Verdict::kFail);
  EXPECT_EQ(fresh.observed["age_seconds"], Json(2 * 3600.0 + 60.0));
  const CheckOutcome& volume = Outcome(*r, "volume");
  EXPECT_EQ(volume.verdict, Verdict::kFail);
  EXPECT_EQ(volume.observed["rows_in_window"], 0);
  EXPECT_EQ(volume.observed["rows"], 20);
}

TEST_P(QualityRunTest, VolumeWindowCountsOnlyRecentRows) {
  Configure(Json::parse(R"({"time_column": "updated_at", "volume": {"min_rows": 5, "window": "10m"}})"));
  auto r = Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Outcome(*r, "volume").observed["rows_in_window"], 10);  // minutes 1..10
  EXPECT_EQ(Outcome(*r, "volume").verdict, Verdict::kPass);
  Configure(Json::parse(R"({"volume": {"max_rows": 5}})"));
  r = Run();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Outcome(*r, "volume").verdict, Verdict::kFail);
}

TEST_P(QualityRunTest, IncrementalRunReadsOnlyNewRows) {
  Insert(30, "NULL", "gold", 120);  // an old NULL: outside the incremental window
  Flush();
  Configure(Spec());
  QualityRequest req;
  req.since = FixtureNow() - std::chrono::minutes(5);
  auto r = Run(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->incremental);
  EXPECT_EQ(r->tables[0].rows, 5);  // minutes 1..5
  EXPECT_EQ(Outcome(*r, "not_null:balance").verdict, Verdict::kPass);
  EXPECT_EQ(Outcome(*r, "volume").verdict, Verdict::kSkipped);
  EXPECT_EQ(Outcome(*r, "row_count_change").verdict, Verdict::kSkipped);
  EXPECT_EQ(r->ExitCode(), 0);
  // Skipped checks are not recorded as run.
  auto stored = store_->CheckResultsOfRun(r->run_id);
  ASSERT_TRUE(stored.ok());
  for (const auto& row : *stored) EXPECT_NE(row.check_name, "volume");
  // The full run sees the old NULL.
  auto full = Run();
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(Outcome(*full, "not_null:balance").verdict, Verdict::kFail);
}

TEST_P(QualityRunTest, IncrementalRunNeedsATimeColumn) {
  Configure(Json::parse(R"({"not_null": ["balance"]})"));
  QualityRequest req;
  req.tables = {wh_->Ref("balances")};
  req.since = FixtureNow() - std::chrono::minutes(5);
  auto r = Run(req);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("time_column"), std::string::npos) << r.status().ToString();
}

TEST_P(QualityRunTest, ScanBudgetRefusesARunBeforeAnythingRuns) {
  ASSERT_TRUE(wh_->Exec("CREATE INDEX balances_updated ON " + wh_->Sql("balances") + " (updated_at)").ok());
  if (wh_->postgres()) {
    ASSERT_TRUE(wh_->Exec("ANALYZE " + wh_->Sql("balances")).ok());
  }
  Configure(Spec());
  QualityRequest req;
  req.max_scan_rows = 30;  // 20 rows x 2 passes (aggregate + key) = 40
  auto r = Run(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(r.status().message().find("budget of 30"), std::string::npos) << r.status().ToString();
  auto stored = store_->CheckResultsFor(wh_->AssetId("balances"), 10);
  ASSERT_TRUE(stored.ok());
  EXPECT_TRUE(stored->empty());
  // The warehouse's own budget applies too.
  workspace_.warehouses["wh"].max_scan_rows = 30;
  auto again = Run();
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("max_scan_rows of 30"), std::string::npos);
  // An incremental run over a few new rows fits.
  req.since = FixtureNow() - std::chrono::seconds(150);  // minutes 1 and 2
  auto small = Run(req);
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  EXPECT_EQ(small->tables[0].rows, 2);
}

TEST_P(QualityRunTest, SamplesMaskPersonalData) {
  Insert(40, "-1", "gold", 1, "m1@example.com");  // duplicate email, negative balance
  Flush();
  Json spec = Json::parse(R"({"unique": ["email"], "range": {"balance": {"min": 0}}, "pii": ["email"]})");
  Configure(spec);
  auto r = Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const CheckOutcome& dup = Outcome(*r, "unique:email");
  ASSERT_TRUE(dup.sample.has_value());
  EXPECT_EQ((*dup.sample)[0]["email"], "***");
  EXPECT_EQ((*dup.sample)[0]["count"], 2);
  const CheckOutcome& range = Outcome(*r, "range:balance");
  ASSERT_TRUE(range.sample.has_value());
  EXPECT_EQ((*range.sample)[0]["email"], "***");  // the key is personal data
  EXPECT_EQ((*range.sample)[0]["balance"], Json(-1.0));
  EXPECT_EQ(r->ToJson().dump().find("m1@example.com"), std::string::npos);
  // The sample selects only the key and the offending column.
  EXPECT_EQ(range.sample->at(0).size(), 2u);
}

TEST_P(QualityRunTest, SchemaDriftIsReportedOnceAgainstThePreviousRun) {
  Configure(Json::parse(R"({"schema": true})"));
  auto first = Run();
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(Outcome(*first, "schema").verdict, Verdict::kPass);
  EXPECT_NE(Outcome(*first, "schema").message.find("baseline of 5 columns"), std::string::npos);
  ASSERT_TRUE(wh_->Exec("ALTER TABLE " + wh_->Sql("balances") + " ADD COLUMN points INTEGER").ok());
  ASSERT_TRUE(wh_->Exec("ALTER TABLE " + wh_->Sql("balances") + " DROP COLUMN email").ok());
  if (wh_->postgres()) {
    ASSERT_TRUE(wh_->Exec("ALTER TABLE " + wh_->Sql("balances") + " ALTER COLUMN member_id TYPE bigint").ok());
  }
  auto second = Run();
  ASSERT_TRUE(second.ok());
  const CheckOutcome& drift = Outcome(*second, "schema");
  EXPECT_EQ(drift.verdict, Verdict::kFail);
  EXPECT_EQ(drift.observed["added"], Json::array({"points"}));
  EXPECT_EQ(drift.observed["removed"], Json::array({"email"}));
  if (wh_->postgres()) {
    EXPECT_EQ(drift.observed["type_changed"][0]["column"], "member_id");
    EXPECT_EQ(drift.observed["type_changed"][0]["after"], "bigint");
  }
  auto third = Run();
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(Outcome(*third, "schema").verdict, Verdict::kPass);
}

TEST_P(QualityRunTest, RowCountChangeComparesWithThePreviousRun) {
  Configure(Json::parse(R"({"row_count_change": {"max_drop_pct": 50}})"));
  auto first = Run();
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(Outcome(*first, "row_count_change").verdict, Verdict::kPass);
  ASSERT_TRUE(wh_->Exec("DELETE FROM " + wh_->Sql("balances") + " WHERE member_id > 5").ok());
  auto second = Run();
  ASSERT_TRUE(second.ok());
  const CheckOutcome& o = Outcome(*second, "row_count_change");
  EXPECT_EQ(o.verdict, Verdict::kFail);
  EXPECT_EQ(o.observed["previous_rows"], 20);
  EXPECT_EQ(o.observed["rows"], 5);
  EXPECT_EQ(o.observed["change_pct"], Json(-75.0));
}

TEST_P(QualityRunTest, UnknownNamesAreErrorsThatSuggestWhatExists) {
  Configure(Json::parse(R"({"not_null": ["balanse"], "range": {"balance": {"min": 0}}})"));
  auto r = Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const CheckOutcome& bad = Outcome(*r, "not_null:balanse");
  EXPECT_EQ(bad.verdict, Verdict::kError);
  EXPECT_NE(bad.message.find("column 'balanse' not found"), std::string::npos) << bad.message;
  EXPECT_NE(bad.message.find("closest: balance"), std::string::npos) << bad.message;
  EXPECT_EQ(Outcome(*r, "range:balance").verdict, Verdict::kPass);  // the rest still runs
  EXPECT_EQ(r->ExitCode(), 2);

  QualityRequest req;
  req.tables = {wh_->Ref("balanse")};
  req.inline_check = Json::parse(R"({"not_null": ["balance"]})");
  auto missing = Run(req);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("balances", missing.status().message().find("closest: ")),
            std::string::npos)
      << missing.status().ToString();

  req.tables = {"nowhere.balances"};
  auto no_wh = Run(req);
  ASSERT_FALSE(no_wh.ok());
  EXPECT_NE(no_wh.status().message().find("warehouse 'nowhere'"), std::string::npos);
}

TEST_P(QualityRunTest, InlineChecksSpeakTheSameVocabularyWithoutSql) {
  QualityRequest req;
  req.tables = {wh_->AssetId("balances")};
  req.inline_check = Json::parse(R"({"range": {"balance": {"max": 100}}, "unique": [["member_id", "tier"]]})");
  auto r = Run(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Outcome(*r, "range:balance").verdict, Verdict::kFail);
  EXPECT_EQ(Outcome(*r, "unique:member_id,tier").verdict, Verdict::kPass);
  req.inline_check = Json::parse(R"({"custom": [{"name": "x", "sql": "SELECT 1", "must_be": 1}]})");
  auto sql = Run(req);
  ASSERT_FALSE(sql.ok());
  EXPECT_NE(sql.status().message().find("cannot carry SQL"), std::string::npos);
}

TEST_P(QualityRunTest, InlineChecksRunOnlyOnTablesTheWorkspaceKnowsAndNeverOnCatalogs) {
  ASSERT_TRUE(wh_->Exec("CREATE TABLE " + wh_->Sql("secrets") + " (token TEXT); INSERT INTO " +
                        wh_->Sql("secrets") + " VALUES ('tok-1')").ok());
  QualityRequest req;
  req.inline_check = Json::parse(R"({"accepted_values": {"token": ["x"]}})");
  // A real table the workspace does not mention: refused, naming the rule, nothing queried.
  req.tables = {wh_->AssetId("secrets")};
  auto unknown = Run(req);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("tables the workspace knows"), std::string::npos)
      << unknown.status().message();
  // The database's own catalog: refused even if a note named it.
  const std::string catalog = wh_->postgres() ? "wh.pg_catalog.pg_class" : "wh.sqlite_master";
  config::AssetNote note;
  note.id = wh_->postgres() ? "table://wh/pg_catalog.pg_class" : "table://wh/sqlite_master";
  workspace_.assets.push_back(note);
  req.tables = {catalog};
  req.inline_check = Json::parse(R"({"not_null": ["name"]})");
  auto system = Run(req);
  ASSERT_FALSE(system.ok());
  EXPECT_NE(system.status().message().find("system catalog"), std::string::npos) << system.status().message();
  // A table known only from a note runs, but shows no sample rows (no `checks:` block declares its
  // personal columns); with a checks block, failed rows are sampled.
  req.tables = {wh_->AssetId("balances")};
  req.inline_check = Json::parse(R"({"range": {"balance": {"max": 100}}})");
  auto noted = Run(req);
  ASSERT_TRUE(noted.ok()) << noted.status().ToString();
  EXPECT_EQ(Outcome(*noted, "range:balance").verdict, Verdict::kFail);
  EXPECT_FALSE(Outcome(*noted, "range:balance").sample.has_value() &&
               !Outcome(*noted, "range:balance").sample->empty())
      << Dump(*noted);
  Configure(Json::parse(R"({"not_null": ["member_id"]})"));
  auto configured = Run(req);
  ASSERT_TRUE(configured.ok()) << configured.status().ToString();
  ASSERT_TRUE(Outcome(*configured, "range:balance").sample.has_value()) << Dump(*configured);
  EXPECT_FALSE(Outcome(*configured, "range:balance").sample->empty());
}

TEST_P(QualityRunTest, OnlySelectedChecksRunAndAreReported) {
  Configure(Spec());
  QualityRequest req;
  req.checks = {"not_null", "custom:negative_balances"};
  auto r = Run(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->tables[0].outcomes.size(), 3u);
  EXPECT_EQ(r->tables[0].outcomes[0].name, "not_null:member_id");
  EXPECT_EQ(r->tables[0].outcomes[2].name, "custom:negative_balances");
  req.checks = {"not_nul"};
  auto bad = Run(req);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("not_null:member_id"), std::string::npos);
}

TEST_P(QualityRunTest, CustomChecksNeedOneNumberAndMayUseBetween) {
  Json spec = Json::parse(R"({"custom": [
      {"name": "avg_balance", "sql": "SELECT avg(balance) FROM T", "between": [100, 110]},
      {"name": "text", "sql": "SELECT 'abc'", "must_be": 0},
      {"name": "two_rows", "sql": "SELECT 1 UNION ALL SELECT 2", "must_be": 1},
      {"name": "writes", "sql": "DELETE FROM T", "must_be": 0}]})");
  for (Json& c : spec["custom"]) {
    std::string sql = c["sql"];
    if (auto p = sql.find(" T"); p != std::string::npos && sql.back() == 'T') sql.replace(p + 1, 1, wh_->Sql("balances"));
    c["sql"] = sql;
  }
  Configure(spec);
  auto r = Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Outcome(*r, "custom:avg_balance").verdict, Verdict::kPass) << Outcome(*r, "custom:avg_balance").message;
  EXPECT_EQ(Outcome(*r, "custom:text").verdict, Verdict::kError);
  EXPECT_EQ(Outcome(*r, "custom:two_rows").verdict, Verdict::kError);
  EXPECT_EQ(Outcome(*r, "custom:writes").verdict, Verdict::kError);
  EXPECT_EQ(wh_->Scalar("SELECT count(*) FROM " + wh_->Sql("balances")), 20);
}

TEST_P(QualityRunTest, AQueryPastItsTimeoutIsAnErrorNeverAPass) {
  std::string slow = wh_->postgres()
                         ? "SELECT count(*) FROM pg_sleep(30)"
                         : "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) - count(*) FROM c";
  Json spec = Json::parse(R"({"not_null": ["balance"]})");
  spec["custom"] = Json::array({{{"name", "slow"}, {"sql", slow}, {"must_be", 0}}});
  Configure(spec);
  workspace_.warehouses["wh"].query_timeout = std::chrono::milliseconds(200);
  auto r = Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const CheckOutcome& o = Outcome(*r, "custom:slow");
  EXPECT_EQ(o.verdict, Verdict::kError);
  EXPECT_NE(o.message.find("timeout"), std::string::npos) << o.message;
  EXPECT_EQ(Outcome(*r, "not_null:balance").verdict, Verdict::kPass);
  EXPECT_EQ(r->ExitCode(), 2);
}

TEST_P(QualityRunTest, AnUnreachableWarehouseMakesEveryCheckAnError) {
  Configure(Spec());
  config::WarehouseConfig& c = workspace_.warehouses["wh"];
  if (wh_->postgres()) c.dsn = "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2";
  else c.path = (dir_.path() / "gone.db").string();
  auto r = Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->tables[0].outcomes.size(), 10u);
  for (const CheckOutcome& o : r->tables[0].outcomes) {
    EXPECT_EQ(o.verdict, Verdict::kError) << o.name;
    EXPECT_NE(o.message.find("warehouse 'wh'"), std::string::npos) << o.message;
  }
  EXPECT_EQ(r->ExitCode(), 2);
  auto stored = store_->CheckResultsOfRun(r->run_id);
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 10u);
  EXPECT_EQ((*stored)[0].status, store::CheckStatus::kError);
}

TEST_P(QualityRunTest, APermissionErrorIsAnErrorWithTheWarehousesMessage) {
  if (!wh_->postgres()) GTEST_SKIP() << "SQLite has no privileges";
  // A role that may log in but was granted nothing on the table.
  const std::string role = "dw_noaccess_" + wh_->schema().substr(6);
  ASSERT_TRUE(wh_->Exec("CREATE ROLE " + role + " LOGIN; GRANT USAGE ON SCHEMA " + wh_->schema() +
                        " TO " + role)
                  .ok());
  std::string dsn = wh_->config().dsn;
  dsn.replace(dsn.find("postgres@"), 9, role + "@");
  workspace_.warehouses["wh"].dsn = dsn;
  Configure(Json::parse(R"({"not_null": ["balance"], "schema": true})"));
  auto r = Run();
  ASSERT_TRUE(wh_->Exec("DROP OWNED BY " + role + "; DROP ROLE " + role).ok());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const CheckOutcome& o = Outcome(*r, "not_null:balance");
  EXPECT_EQ(o.verdict, Verdict::kError);
  EXPECT_NE(o.message.find("permission denied"), std::string::npos) << o.message;
  EXPECT_EQ(Outcome(*r, "schema").verdict, Verdict::kPass);  // the catalog is readable
  EXPECT_EQ(r->ExitCode(), 2);
}

TEST_P(QualityRunTest, ResultsAreRecordedForBaselines) {
  Configure(Spec());
  auto r = Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto stored = store_->CheckResultsOfRun(r->run_id);
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 10u);
  const store::CheckResultRow& first = (*stored)[0];
  EXPECT_EQ(first.table_ref, wh_->AssetId("balances"));
  EXPECT_EQ(first.check_name, "not_null:member_id");
  EXPECT_EQ(first.rows_scanned, 20);
  EXPECT_EQ(first.observed["null_count"], 0);
  EXPECT_EQ(first.observed_at, FixtureNow());
  EXPECT_EQ(stored->back().rows_scanned, -1);  // custom: the warehouse cannot say
  // Full runs feed series, so every checked table gets baselines.
  const std::string prefix = "quality:" + wh_->AssetId("balances") + ":";
  auto rows = store_->MetricPoints(prefix + "rows", FixtureNow() - std::chrono::hours(1),
                                   FixtureNow() + std::chrono::hours(1));
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].value, 20);
  auto age = store_->MetricPoints(prefix + "freshness_age_seconds", FixtureNow() - std::chrono::hours(1),
                                  FixtureNow() + std::chrono::hours(1));
  ASSERT_TRUE(age.ok());
  ASSERT_EQ(age->size(), 1u);
  EXPECT_EQ((*age)[0].value, 60);
}

INSTANTIATE_TEST_SUITE_P(Backends, QualityRunTest, ::testing::Values("sqlite", "postgres"),
                         warehouse::test_support::BackendName);

}  // namespace
}  // namespace dw::observe::quality

namespace dw::observe::quality {
namespace {

using test_support::FixtureNow;
using test_support::QualityFixture;

class PartitionedScanTest : public QualityFixture {};

// Splitting the scan across connections gives exactly the row one statement gives.
TEST_P(PartitionedScanTest, MatchesTheSingleStatement) {
  Insert(21, "NULL", "platinum", 3);
  Insert(22, "-7.5", "gold", 90);
  Flush();
  auto wh = warehouse::OpenWarehouse(wh_->config());
  ASSERT_TRUE(wh.ok());
  auto schema = (*wh)->DescribeTable({wh_->schema(), "balances"});
  ASSERT_TRUE(schema.ok() && schema->has_value());
  auto spec = ParseCheckSpec(Json::parse(R"({"time_column": "updated_at", "not_null": ["balance", "tier"],
      "freshness": {"max_age": "1h"}, "volume": {"min_rows": 1, "window": "30m"},
      "accepted_values": {"tier": ["gold", "silver", "bronze"]},
      "range": {"balance": {"min": 0}, "tier": {"max": 1}}})"), "check", SpecSource::kInline);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  {
    auto plan = PlanTable(**wh, **schema, *spec, std::nullopt);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    TableRunContext single;
    single.now_ms = ToUnixMillis(FixtureNow());
    TableRunContext split = single;
    split.scan_partitions = 3;
    split.partition_min_rows = 1;
    // The split really happens on SQLite (PostgreSQL parallelises by itself and is not split).
    auto scan = CompileAggregateScan((*wh)->dialect(), plan->table, plan->runnable, plan->time,
                                     plan->filter, ToUnixMillis(FixtureNow()) - 1800000);
    auto direct = RunPartitionedScan(**wh, plan->table.id, scan, {3, 1, std::chrono::seconds(60)});
    EXPECT_EQ(direct.has_value(), !wh_->postgres());
    TableRunResult a = RunTablePlan(**wh, *plan, single);
    TableRunResult b = RunTablePlan(**wh, *plan, split);
    ASSERT_EQ(a.outcomes.size(), b.outcomes.size());
    EXPECT_EQ(a.rows, b.rows);
    for (size_t i = 0; i < a.outcomes.size(); ++i) {
      EXPECT_EQ(a.outcomes[i].verdict, b.outcomes[i].verdict) << a.outcomes[i].name;
      EXPECT_EQ(a.outcomes[i].observed, b.outcomes[i].observed) << a.outcomes[i].name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, PartitionedScanTest, ::testing::Values("sqlite", "postgres"),
                         warehouse::test_support::BackendName);

}  // namespace
}  // namespace dw::observe::quality
