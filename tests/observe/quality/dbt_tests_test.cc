// The tests a team wrote in dbt become checks: every generic test the product pushes down runs in
// the table's one statement keeping its dbt name, severity and where; every other test is listed
// with why. Levels (warn) and allowed rates (max_fraction, mostly) on the workspace's own checks;
// the failing-rows query of every failed check, pii masked. On SQLite and PostgreSQL.
#include "observe/quality/dbt_tests.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "observe/quality/check_spec.h"
#include "tests/observe/quality/quality_fixture.h"

namespace dw::observe::quality {
namespace {

using test_support::QualityFixture;

Json Model(const std::string& name, const std::string& schema) {
  return {{"resource_type", "model"}, {"name", name}, {"package_name", "shop"}, {"database", ""},
          {"schema", schema},        {"alias", name}, {"config", {{"materialized", "table"}}}};
}

// A generic test node on `model` (macro "ns.name" or "name") with `kwargs` and `config`.
Json TestNode(const std::string& name, const std::string& macro, Json kwargs, const std::string& model,
          Json config = Json::object(), Json deps = Json()) {
  Json meta = {{"name", macro}, {"namespace", nullptr}, {"kwargs", std::move(kwargs)}};
  if (size_t dot = macro.find('.'); dot != std::string::npos) {
    meta["namespace"] = macro.substr(0, dot);
    meta["name"] = macro.substr(dot + 1);
  }
  if (deps.is_null()) deps = Json::array({model});
  return {{"resource_type", "test"}, {"name", name},         {"package_name", "shop"},
          {"attached_node", model},  {"test_metadata", meta}, {"config", std::move(config)},
          {"depends_on", {{"nodes", std::move(deps)}, {"macros", Json::array()}}}};
}

DbtRelationPlaces OneWarehouse(bool schemas) { return {{{"wh", "", schemas}}, "wh"}; }

TEST(DbtTestImport, EveryTestIsImportedOrListedWithWhy) {
  Json m = {{"metadata", {{"project_name", "shop"}}}, {"nodes", Json::object()}, {"sources", Json::object()}};
  Json& n = m["nodes"];
  n["model.shop.orders"] = Model("orders", "analytics");
  n["model.shop.customers"] = Model("customers", "analytics");
  n["model.shop.stg"] = Model("stg", "analytics");
  n["model.shop.stg"]["config"]["materialized"] = "ephemeral";
  const std::string o = "model.shop.orders";
  n["test.shop.nn"] = TestNode("not_null_orders_id", "not_null", {{"column_name", "id"}}, o, {{"severity", "warn"}});
  n["test.shop.u"] = TestNode("unique_orders_id", "unique", {{"column_name", "id"}}, o, {{"where", "status <> 'test'"}});
  n["test.shop.av"] = TestNode("av_status", "accepted_values", {{"column_name", "status"}, {"values", {"a", "b"}}}, o);
  n["test.shop.rel"] = TestNode("rel_customer", "relationships",
                            {{"column_name", "customer_id"}, {"to", "ref('customers')"}, {"field", "id"}}, o, {},
                            Json::array({"model.shop.customers", o}));
  n["test.shop.expr"] = TestNode("expr", "dbt_utils.expression_is_true", {{"expression", "amount >= 0"}}, o);
  n["test.shop.combo"] = TestNode("combo", "dbt_utils.unique_combination_of_columns",
                              {{"combination_of_columns", {"id", "line"}}}, o);
  n["test.shop.prop"] = TestNode("prop", "dbt_utils.not_null_proportion", {{"column_name", "email"}, {"at_least", 0.95}}, o);
  n["test.shop.rec"] = TestNode("rec", "dbt_utils.recency", {{"field", "updated_at"}, {"datepart", "hour"}, {"interval", 2}}, o);
  n["test.shop.one"] = TestNode("one", "dbt_utils.at_least_one", {{"column_name", "id"}}, o);
  n["test.shop.mostly"] = TestNode("mostly", "not_null", {{"column_name", "email"}}, o, {{"meta", {{"mostly", 0.99}}}});
  // What is not imported, one reason each.
  n["test.shop.singular"] = {{"resource_type", "test"}, {"name", "assert_positive"}, {"raw_code", "select 1"},
                             {"depends_on", {{"nodes", {o}}}}, {"config", Json::object()}};
  n["test.shop.macro"] = TestNode("custom_macro", "my_pkg.is_even", {{"column_name", "id"}}, o);
  n["test.shop.expr_col"] = TestNode("expr_col", "not_null", {{"column_name", "coalesce(a, b)"}}, o);
  n["test.shop.unquoted"] = TestNode("unquoted", "accepted_values",
                                 {{"column_name", "status"}, {"values", {"'a'"}}, {"quote", false}}, o);
  n["test.shop.grouped"] = TestNode("grouped", "dbt_utils.at_least_one", {{"column_name", "id"}, {"group_by_columns", {"day"}}}, o);
  n["test.shop.errif"] = TestNode("errif", "not_null", {{"column_name", "id"}}, o, {{"error_if", ">10"}});
  n["test.shop.eph"] = TestNode("eph", "not_null", {{"column_name", "id"}}, "model.shop.stg");
  n["test.shop.jinja"] = TestNode("jinja", "accepted_values", {{"column_name", "s"}, {"values", {"{{ var('x') }}"}}}, o);
  n["test.shop.gone"] = TestNode("gone", "relationships",
                             {{"column_name", "customer_id"}, {"to", "ref('nowhere')"}, {"field", "id"}}, o);

  auto r = ImportDbtTests(m, OneWarehouse(true));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->project, "shop");
  EXPECT_EQ(r->tests, 19);
  ASSERT_EQ(r->tables.size(), 1u);
  const DbtTestsOfTable& t = r->tables[0];
  EXPECT_EQ(t.ref.AssetIdString(), "table://wh/analytics.orders");
  EXPECT_EQ(t.tests.size(), 10u);
  EXPECT_EQ(static_cast<int>(t.tests.size() + r->not_imported.size()), r->tests);
  auto test = [&](const std::string& name) -> const ImportedTest& {
    for (const ImportedTest& x : t.tests)
      if (x.name == name) return x;
    static ImportedTest none;
    ADD_FAILURE() << "not imported: " << name;
    return none;
  };
  EXPECT_EQ(test("not_null_orders_id").tuning.level, CheckLevel::kWarn);
  EXPECT_EQ(test("unique_orders_id").where, "status <> 'test'");
  EXPECT_EQ(test("unique_orders_id").key, std::vector<std::string>{"id"});
  EXPECT_EQ(test("rel_customer").to_table, "customers");
  EXPECT_EQ(test("rel_customer").to_schema, "analytics");
  EXPECT_EQ(test("combo").key, (std::vector<std::string>{"id", "line"}));
  EXPECT_NEAR(*test("prop").tuning.max_fraction, 0.05, 1e-12);
  EXPECT_NEAR(*test("mostly").tuning.max_fraction, 0.01, 1e-12);
  EXPECT_EQ(test("rec").max_age, std::chrono::hours(2));
  EXPECT_EQ(test("expr").test, "dbt_utils.expression_is_true");

  std::map<std::string, std::string> why;
  for (const DbtTestNotImported& x : r->not_imported) why[x.name] = x.reason;
  ASSERT_EQ(why.size(), 9u);
  EXPECT_NE(why["assert_positive"].find("singular test"), std::string::npos);
  EXPECT_NE(why["custom_macro"].find("my_pkg.is_even is not one the product pushes down"), std::string::npos);
  EXPECT_NE(why["expr_col"].find("is an expression"), std::string::npos);
  EXPECT_NE(why["unquoted"].find("quote: false"), std::string::npos);
  EXPECT_NE(why["grouped"].find("group_by_columns"), std::string::npos);
  EXPECT_NE(why["errif"].find("error_if '>10'"), std::string::npos);
  EXPECT_NE(why["eph"].find("ephemeral"), std::string::npos);
  EXPECT_NE(why["jinja"].find("Jinja"), std::string::npos);
  EXPECT_NE(why["gone"].find("ref('nowhere')"), std::string::npos);
}

TEST(DbtTestImport, ANodelessManifestIsRefusedNamingThePath) {
  auto r = ImportDbtTests(Json::parse(R"({"metadata": {}})"), OneWarehouse(true));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("$.nodes"), std::string::npos);
}

TEST(CheckTune, RefusesWhatCannotBeTuned) {
  auto bad = [](const char* block) {
    auto r = ParseCheckSpec(Json::parse(block), "checks[0]", SpecSource::kWorkspace);
    return r.ok() ? std::string("accepted") : r.status().message();
  };
  EXPECT_NE(bad(R"({"not_null": ["a"], "tune": {"not_null:b": {"level": "warn"}}})").find("checks[0].tune.not_null:b"),
            std::string::npos);
  EXPECT_NE(bad(R"({"time_column": "t", "freshness": {"max_age": "1h"}, "tune": {"freshness": {"max_fraction": 0.1}}})")
                .find("allowed rates apply to not_null"),
            std::string::npos);
  EXPECT_NE(bad(R"({"not_null": ["a"], "tune": {"not_null": {"max_fraction": 0.1, "mostly": 0.9}}})").find("not both"),
            std::string::npos);
  EXPECT_NE(bad(R"({"not_null": ["a"], "tune": {"not_null": {"max_fraction": 2}}})").find("between 0 and 1"),
            std::string::npos);
  EXPECT_NE(bad(R"({"not_null": ["a"], "tune": {"not_null": {"level": "loud"}}})").find("warn or fail"), std::string::npos);
  auto ok = ParseCheckSpec(Json::parse(R"({"not_null": ["a"], "tune": {"not_null": {"mostly": 0.99, "level": "warn"}}})"),
                           "c", SpecSource::kWorkspace);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_NEAR(*ok->TuningOf("not_null:a", "not_null").max_fraction, 0.01, 1e-12);
  EXPECT_EQ(ok->TuningOf("not_null:a", "not_null").level, CheckLevel::kWarn);
}

class DbtTestsRunTest : public QualityFixture {
 protected:
  // Writes a manifest with model `balances` (and `members`, holding ids 1..19) and `tests` on it,
  // and points the workspace at it with dbt_tests on.
  void Manifest(const std::vector<Json>& tests) {
    Json m = {{"metadata", {{"project_name", "loyalty"}}}, {"nodes", Json::object()}};
    const std::string schema = wh_->postgres() ? wh_->schema() : "main";
    m["nodes"]["model.loyalty.balances"] = Model("balances", schema);
    m["nodes"]["model.loyalty.members"] = Model("members", schema);
    for (size_t i = 0; i < tests.size(); ++i) m["nodes"]["test.loyalty.t" + std::to_string(i)] = tests[i];
    const auto path = dir_.path() / "manifest.json";
    std::ofstream(path) << m.dump();
    workspace_.lineage.dbt_manifest = path.string();
    workspace_.lineage.dbt_tests = true;
  }
  void Members() {
    std::string sql = "CREATE TABLE " + wh_->Sql("members") + " (id INTEGER);";
    for (int i = 1; i <= 19; ++i) sql += "INSERT INTO " + wh_->Sql("members") + " VALUES (" + std::to_string(i) + ");";
    ASSERT_TRUE(wh_->Exec(sql).ok());
  }
  // The rows `sql` returns (-1 when it does not run): a failing-rows query run as printed.
  int64_t Rows(const std::string& sql) { return wh_->Scalar("SELECT count(*) FROM (" + sql + ") AS dw_rows"); }
  const TableReport& Balances(const QualityReport& r) {
    for (const TableReport& t : r.tables)
      if (t.asset_id == wh_->AssetId("balances")) return t;
    ADD_FAILURE() << "no balances table in " << Dump(r);
    return r.tables.at(0);
  }
  const CheckOutcome& In(const TableReport& t, const std::string& name) {
    for (const CheckOutcome& o : t.outcomes)
      if (o.name == name) return o;
    ADD_FAILURE() << "no outcome " << name;
    static CheckOutcome none;
    return none;
  }
};

TEST_P(DbtTestsRunTest, EveryImportedTestRunsInOneStatementPerTable) {
  Members();
  Insert(21, "NULL", "platinum", 3, "vip@example.com");  // a NULL balance, a tier outside the list, member 21 unknown
  Insert(5, "50", "silver", 4);                            // member 5 twice
  Flush();
  const std::string b = "model.loyalty.balances";
  Manifest({
      TestNode("not_null_balances_member_id", "not_null", {{"column_name", "member_id"}}, b),
      TestNode("not_null_balances_balance", "not_null", {{"column_name", "balance"}}, b),
      TestNode("not_null_balance_recent", "not_null", {{"column_name", "balance"}}, b, {{"where", "member_id <= 20"}}),
      TestNode("unique_balances_member_id", "unique", {{"column_name", "member_id"}}, b, {{"severity", "warn"}}),
      TestNode("accepted_values_tier", "accepted_values", {{"column_name", "tier"}, {"values", {"bronze", "silver", "gold"}}}, b),
      TestNode("relationships_member", "relationships",
           {{"column_name", "member_id"}, {"to", "ref('members')"}, {"field", "id"}}, b, {},
           Json::array({"model.loyalty.members", b})),
      TestNode("balance_positive", "dbt_utils.expression_is_true", {{"expression", "balance > 0"}}, b),
      TestNode("member_tier_unique", "dbt_utils.unique_combination_of_columns",
           {{"combination_of_columns", {"member_id", "tier"}}}, b),
      TestNode("balance_mostly_there", "dbt_utils.not_null_proportion", {{"column_name", "balance"}, {"at_least", 0.9}}, b),
      TestNode("recent_updates", "dbt_utils.recency", {{"field", "updated_at"}, {"datepart", "minute"}, {"interval", 30}}, b),
      TestNode("some_email", "dbt_utils.at_least_one", {{"column_name", "email"}}, b),
      TestNode("odd_macro", "my_pkg.is_even", {{"column_name", "member_id"}}, b),
  });
  Configure(Json::parse(R"({"pii": ["email"]})"));
  auto r = Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const TableReport& t = Balances(*r);
  EXPECT_EQ(t.queries, 1) << Dump(*r);  // every imported test in the one statement
  EXPECT_EQ(t.outcomes.size(), 11u) << Dump(*r);
  EXPECT_EQ(In(t, "not_null_balances_member_id").verdict, Verdict::kPass);
  EXPECT_EQ(In(t, "not_null_balances_member_id").type, "not_null");
  EXPECT_EQ(In(t, "not_null_balances_balance").verdict, Verdict::kFail);
  EXPECT_EQ(In(t, "not_null_balances_balance").observed["failing_rows"], 1);
  // The where keeps member 21 out: the same test passes under it.
  EXPECT_EQ(In(t, "not_null_balance_recent").verdict, Verdict::kPass);
  EXPECT_EQ(In(t, "not_null_balance_recent").observed["rows"], 21);
  // Severity warn: shown, never a failure of the run.
  EXPECT_EQ(In(t, "unique_balances_member_id").verdict, Verdict::kWarn);
  EXPECT_EQ(In(t, "unique_balances_member_id").observed["duplicated_keys"], 1);
  EXPECT_EQ(In(t, "unique_balances_member_id").threshold["level"], "warn");
  EXPECT_EQ(In(t, "accepted_values_tier").observed["failing_rows"], 1);
  EXPECT_EQ(In(t, "relationships_member").verdict, Verdict::kFail);  // 20 and 21 are not members
  EXPECT_EQ(In(t, "relationships_member").observed["failing_rows"], 2);
  EXPECT_EQ(In(t, "balance_positive").verdict, Verdict::kPass);  // NULL is not false
  EXPECT_EQ(In(t, "member_tier_unique").verdict, Verdict::kPass);  // member 5: gold and silver
  EXPECT_EQ(In(t, "balance_mostly_there").verdict, Verdict::kPass);  // 1 NULL in 22 rows: under 10%
  EXPECT_EQ(In(t, "recent_updates").verdict, Verdict::kPass);
  EXPECT_EQ(In(t, "some_email").verdict, Verdict::kPass);
  // The failing rows of a failed test, pii masked in the query itself, and runnable.
  const CheckOutcome& nulls = In(t, "not_null_balances_balance");
  ASSERT_TRUE(nulls.failing_rows_query.has_value());
  EXPECT_NE(nulls.failing_rows_query->find("'***' AS \"email\""), std::string::npos) << *nulls.failing_rows_query;
  EXPECT_EQ(Rows(*nulls.failing_rows_query), 1) << *nulls.failing_rows_query;
  EXPECT_EQ(In(t, "accepted_values_tier").failing_rows_query.value_or("").find("'bronze'") != std::string::npos, true);
  EXPECT_EQ(Rows(In(t, "relationships_member").failing_rows_query.value_or("-")), 2);
  // Listed, with why; and the run's verdict counts the failures, not the warning.
  ASSERT_TRUE(r->dbt.has_value());
  EXPECT_EQ(r->dbt->tests, 12);
  EXPECT_EQ(r->dbt->imported, 11);
  ASSERT_EQ(r->dbt->not_imported.size(), 1u);
  EXPECT_EQ(r->dbt->not_imported[0].name, "odd_macro");
  EXPECT_EQ(r->ExitCode(), 1);
  EXPECT_EQ(r->ToJson()["dbt"]["not_imported"][0]["test"], "odd_macro");
}

TEST_P(DbtTestsRunTest, FailuresOfImportedTestsFailAndWarningsAloneDoNot) {
  Insert(5, "50", Tier(5), 4);  // member 5 twice, with the same tier
  Flush();
  const std::string b = "model.loyalty.balances";
  Manifest({TestNode("u", "dbt_utils.unique_combination_of_columns", {{"combination_of_columns", {"member_id", "tier"}}}, b,
                 {{"severity", "warn"}}),
            TestNode("stale", "dbt_utils.recency", {{"field", "updated_at"}, {"datepart", "minute"}, {"interval", 1}}, b,
                 {{"severity", "warn"}}),
            TestNode("none", "dbt_utils.at_least_one", {{"column_name", "email"}}, b,
                 {{"severity", "warn"}, {"where", "member_id > 100"}})});
  workspace_.checks.clear();
  clock_.Advance(std::chrono::hours(1));  // the newest row is now an hour old
  auto r = Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const TableReport& t = Balances(*r);
  EXPECT_EQ(In(t, "u").verdict, Verdict::kWarn);
  EXPECT_EQ(In(t, "u").observed["duplicated_keys"], 1);
  EXPECT_EQ(In(t, "stale").verdict, Verdict::kWarn);
  EXPECT_EQ(In(t, "none").verdict, Verdict::kWarn);
  EXPECT_EQ(r->ExitCode(), 0) << Dump(*r);
  EXPECT_EQ(r->Count(Verdict::kWarn), 3);
  // Recorded as failures marked level warn, so the desk shows them and no incident opens.
  auto stored = store_->LatestCheckResult(wh_->AssetId("balances"), "u");
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->status, store::CheckStatus::kFail);
  EXPECT_EQ((*stored)->threshold["level"], "warn");
  EXPECT_TRUE((*stored)->observed.contains("failing_rows_query"));
}

TEST_P(DbtTestsRunTest, AllowedRatesAndLevelsOnTheWorkspacesOwnChecks) {
  Insert(21, "NULL", "platinum", 3);  // 1 row in 21: 4.76%
  Flush();
  auto run = [&](const char* tune) {
    Json spec = Json::parse(R"({"not_null": ["balance"], "accepted_values": {"tier": ["bronze", "silver", "gold"]},
                                "range": {"balance": {"min": 15}}, "unique": ["member_id"], "pii": ["email"]})");
    spec["tune"] = Json::parse(tune);
    Configure(spec);
    auto r = Run();
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : QualityReport{};
  };
  // 4.76% NULL: within 5%, over 1%; mostly 0.95 is the same as max_fraction 0.05.
  QualityReport r = run(R"({"not_null": {"max_fraction": 0.05}, "accepted_values:tier": {"mostly": 0.95},
                             "range": {"max_fraction": 0.05}})");
  EXPECT_EQ(Outcome(r, "not_null:balance").verdict, Verdict::kPass) << Dump(r);
  EXPECT_EQ(Outcome(r, "accepted_values:tier").verdict, Verdict::kPass) << Dump(r);
  EXPECT_EQ(Outcome(r, "range:balance").verdict, Verdict::kPass) << Dump(r);  // 1 row (10) below 15
  EXPECT_EQ(r.ExitCode(), 0);
  r = run(R"({"not_null:balance": {"max_fraction": 0.01}})");
  EXPECT_EQ(Outcome(r, "not_null:balance").verdict, Verdict::kFail);
  EXPECT_NE(Outcome(r, "not_null:balance").message.find("over the allowed 1.00%"), std::string::npos);
  EXPECT_EQ(r.ExitCode(), 1);
  r = run(R"({"not_null": {"level": "warn"}, "accepted_values": {"level": "warn"}, "range": {"level": "warn"}})");
  EXPECT_EQ(Outcome(r, "not_null:balance").verdict, Verdict::kWarn);
  EXPECT_EQ(r.ExitCode(), 0) << Dump(r);
  // Every failed check carries the query listing its rows, email masked; each runs as printed.
  for (const char* name : {"not_null:balance", "accepted_values:tier", "range:balance"}) {
    const CheckOutcome& o = Outcome(r, name);
    ASSERT_TRUE(o.failing_rows_query.has_value()) << name;
    EXPECT_NE(o.failing_rows_query->find("'***' AS \"email\""), std::string::npos) << *o.failing_rows_query;
    EXPECT_GE(Rows(*o.failing_rows_query), 1) << *o.failing_rows_query;
    EXPECT_EQ(o.ToJson()["failing_rows_query"], *o.failing_rows_query);
  }
}

TEST_P(DbtTestsRunTest, AFailedCustomCheckListsItsRowsOrSaysWhyNot) {
  Insert(22, "-5", "gold", 2);
  Flush();
  const std::string t = wh_->Sql("balances");
  Json spec = {{"pii", {"email"}},
               {"custom",
                {{{"name", "negative"}, {"sql", "select  COUNT(*) from " + t + " where balance < 0"}, {"must_be", 0}},
                 {{"name", "grouped"}, {"sql", "SELECT count(*) FROM (SELECT tier FROM " + t + " GROUP BY tier) x"}, {"must_be", 0}},
                 {{"name", "own"}, {"sql", "SELECT sum(balance) FROM " + t + " WHERE balance < 0"}, {"must_be", 0},
                  {"failing_rows", "SELECT member_id FROM " + t + " WHERE balance < 0"}, {"level", "warn"}}}}};
  Configure(spec);
  auto r = Run();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const CheckOutcome& negative = Outcome(*r, "custom:negative");
  ASSERT_TRUE(negative.failing_rows_query.has_value());
  EXPECT_NE(negative.failing_rows_query->find("'***' AS \"email\""), std::string::npos);
  EXPECT_EQ(Rows(*negative.failing_rows_query), 1) << *negative.failing_rows_query;
  const CheckOutcome& grouped = Outcome(*r, "custom:grouped");
  EXPECT_FALSE(grouped.failing_rows_query.has_value());
  EXPECT_NE(grouped.message.find("no failing-rows query"), std::string::npos) << grouped.message;
  EXPECT_NE(grouped.message.find("add failing_rows"), std::string::npos) << grouped.message;
  const CheckOutcome& own = Outcome(*r, "custom:own");
  EXPECT_EQ(own.verdict, Verdict::kWarn);
  EXPECT_EQ(own.failing_rows_query.value_or(""), "SELECT member_id FROM " + t + " WHERE balance < 0");
}

INSTANTIATE_TEST_SUITE_P(Backends, DbtTestsRunTest, ::testing::Values("sqlite", "postgres"),
                         warehouse::test_support::BackendName);

// A generated project: 220 models, each a table, with 5 to 7 tests each drawn from every macro the
// product pushes down and from what it does not. Every test is imported or listed with why, and
// the run of all imported tests issues one statement per table.
TEST(DbtTestImport, AGeneratedProjectOfTwoHundredModels) {
  dw::testing::TempDir dir;
  auto s = warehouse::test_support::ScratchWarehouse::Create("sqlite");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto& wh = **s;
  std::mt19937 rng(39);
  Json m = {{"metadata", {{"project_name", "big"}}}, {"nodes", Json::object()}};
  std::string ddl;
  const int kModels = 220;
  for (int i = 0; i < kModels; ++i) {
    const std::string name = "m" + std::to_string(i);
    m["nodes"]["model.big." + name] = Model(name, "main");
    ddl += "CREATE TABLE " + name + " (id INTEGER, parent_id INTEGER, status TEXT, amount REAL, updated_at TEXT);";
    for (int r = 1; r <= 5; ++r)
      ddl += "INSERT INTO " + name + " VALUES (" + std::to_string(r) + ", " + std::to_string(r) + ", 'open', " +
             std::to_string(r * 10) + ", '2026-11-24T13:00:00Z');";
  }
  ASSERT_TRUE(wh.Exec(ddl).ok());
  int tests = 0, expected_refused = 0;
  for (int i = 0; i < kModels; ++i) {
    const std::string model = "model.big.m" + std::to_string(i);
    const std::string parent = "model.big.m" + std::to_string(i == 0 ? 1 : i - 1);
    const int count = 5 + static_cast<int>(rng() % 3);
    for (int k = 0; k < count; ++k) {
      const std::string name = "t" + std::to_string(i) + "_" + std::to_string(k);
      Json node;
      switch (rng() % 12) {
        case 0: node = TestNode(name, "not_null", {{"column_name", "id"}}, model); break;
        case 1: node = TestNode(name, "unique", {{"column_name", "id"}}, model, {{"severity", "warn"}}); break;
        case 2: node = TestNode(name, "accepted_values", {{"column_name", "status"}, {"values", {"open", "closed"}}}, model); break;
        case 3:
          node = TestNode(name, "relationships",
                      {{"column_name", "parent_id"}, {"to", "ref('" + parent.substr(10) + "')"}, {"field", "id"}}, model,
                      {}, Json::array({parent, model}));
          break;
        case 4: node = TestNode(name, "dbt_utils.expression_is_true", {{"expression", "amount >= 0"}}, model); break;
        case 5: node = TestNode(name, "dbt_utils.unique_combination_of_columns", {{"combination_of_columns", {"id", "status"}}}, model); break;
        case 6: node = TestNode(name, "dbt_utils.not_null_proportion", {{"column_name", "amount"}, {"at_least", 0.5}}, model); break;
        case 7: node = TestNode(name, "dbt_utils.recency", {{"field", "updated_at"}, {"datepart", "day"}, {"interval", 1}}, model); break;
        case 8: node = TestNode(name, "dbt_utils.at_least_one", {{"column_name", "status"}}, model, {{"where", "amount > 0"}}); break;
        case 9:
          node = TestNode(name, "dbt_expectations.expect_column_values_to_be_between", {{"column_name", "amount"}}, model);
          ++expected_refused;
          break;
        case 10:
          node = {{"resource_type", "test"}, {"name", name}, {"raw_code", "select * from x"},
                  {"depends_on", {{"nodes", {model}}}}, {"config", Json::object()}};
          ++expected_refused;
          break;
        default:
          node = TestNode(name, "not_null", {{"column_name", "amount"}}, model, {{"meta", {{"mostly", 0.9}}}});
          break;
      }
      m["nodes"]["test.big." + name] = node;
      ++tests;
    }
  }
  ASSERT_GE(tests, 1000);
  auto imported = ImportDbtTests(m, OneWarehouse(false));
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  int n = 0;
  for (const DbtTestsOfTable& t : imported->tables) n += static_cast<int>(t.tests.size());
  EXPECT_EQ(imported->tests, tests);
  EXPECT_EQ(static_cast<int>(imported->not_imported.size()), expected_refused);
  EXPECT_EQ(n + expected_refused, tests);
  for (const DbtTestNotImported& x : imported->not_imported) EXPECT_FALSE(x.reason.empty()) << x.name;

  config::Workspace ws;
  ws.warehouses["wh"] = wh.config();
  const auto path = dir.path() / "manifest.json";
  std::ofstream(path) << m.dump();
  ws.lineage.dbt_manifest = path.string();
  ws.lineage.dbt_tests = true;
  SimulatedClock clock(test_support::FixtureNow());
  QualityRequest req;
  req.record = false;
  auto r = RunQuality(ws, nullptr, clock, req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(static_cast<int>(r->tables.size()), static_cast<int>(imported->tables.size()));
  int outcomes = 0;
  for (const TableReport& t : r->tables) {
    EXPECT_EQ(t.queries, 1) << t.asset_id;
    outcomes += static_cast<int>(t.outcomes.size());
    for (const CheckOutcome& o : t.outcomes) EXPECT_NE(o.verdict, Verdict::kError) << o.name << ": " << o.message;
  }
  EXPECT_EQ(outcomes, n);
  EXPECT_EQ(r->ExitCode(), 0) << r->ToJson()["summary"].dump();
}

}  // namespace
}  // namespace dw::observe::quality
