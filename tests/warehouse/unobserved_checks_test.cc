// Bad input from a REST warehouse is a gap in what is known, never a data incident: a table that
// vanishes between the catalog read and the scan, a role without rights, a quota or a cost cap, a
// query past its timeout, an answer in an encoding the client does not read. On each simulator
// (dw-sim bigquery, dw-sim snowflake) a seeded family of check sets meets each failure; every
// check stopped by it is recorded as an error whose message is the warehouse's own words and what
// to do, the signal pass turns each into an observation gap naming the table and the check, and no
// signal at all comes out of it.
#include <gtest/gtest.h>

#include <random>

#include "base/time_text.h"
#include "config/workspace.h"
#include "incidents/incidents.h"
#include "observe/quality/quality_run.h"
#include "store/state_store.h"
#include "tests/warehouse/bigquery_sim_support.h"
#include "tests/warehouse/snowflake_sim_support.h"

namespace dw::warehouse {
namespace {

using observe::quality::CheckOutcome;
using observe::quality::Verdict;

// 2026-12-07T02:00:00Z.
TimePoint Now() { return FromUnixMillis(1796608800000); }

std::string MinutesAgo(int minutes) {
  return FormatTimestamp(ToUnixMillis(Now()) - minutes * 60000LL, {false, 'T', 3, "Z"});
}

// One failure class: what the simulator is told, and what the recorded message must hold (the
// warehouse's own words and the class's advice).
struct Failure {
  std::string name;
  Json script;               // merged into the simulator's script (faults, denied datasets)
  std::optional<int64_t> max_bytes_billed;
  std::vector<std::string> says;  // substrings of every stopped check's message
};

// The aggregate checks a seed picks from: every one is answered by the table's one scan, so the
// failure that stops the scan stops each of them.
std::vector<std::pair<std::string, Json>> CheckChoices() {
  return {{"not_null", Json::array({"customer", "id"})},
          {"volume", {{"min_rows", 2}, {"window", "2h"}}},
          {"freshness", {{"max_age", "30m"}}},
          {"accepted_values", {{"status", {"open", "paid"}}}},
          {"range", {{"amount", {{"min", 0}}}}}};
}

// A seeded, non-empty subset of CheckChoices as a check spec on `table`.
Json SeededSpec(uint32_t seed, const std::string& table) {
  std::mt19937 rng(seed);
  Json spec = {{"table", table}, {"time_column", "placed_at"}};
  const auto choices = CheckChoices();
  for (const auto& [key, value] : choices)
    if (rng() % 2 == 0) spec[key] = value;
  if (spec.size() == 2) spec[choices[seed % choices.size()].first] = choices[seed % choices.size()].second;
  return spec;
}

// Runs the checks of `ws` with a store, gathers the signal pass and checks what the brief promises.
void ExpectGapsNotIncidents(const config::Workspace& ws, const Failure& f, HttpClient* http, const std::string& where) {
  SCOPED_TRACE(where + ", " + f.name);
  ::dw::testing::TempDir dir;
  SimulatedClock clock(Now());
  auto store = store::OpenStateStore((dir.path() / "state.db").string(), clock);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  observe::quality::QualityRequest req;
  req.http = http;
  auto report = observe::quality::RunQuality(ws, store->get(), clock, req);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->tables.size(), 1u);
  const auto& outcomes = report->tables[0].outcomes;
  ASSERT_FALSE(outcomes.empty());
  for (const CheckOutcome& o : outcomes) {
    EXPECT_EQ(o.verdict, Verdict::kError) << o.name << ": " << o.message;
    EXPECT_NE(o.message.find("; what to do: "), std::string::npos) << o.message;
    EXPECT_NE(o.message.find("the data was not judged"), std::string::npos) << o.message;
    for (const std::string& s : f.says) EXPECT_NE(o.message.find(s), std::string::npos) << "want '" << s << "' in: " << o.message;
    // One failure, one message: the surfaces say it once for all the checks it stopped.
    EXPECT_EQ(o.message, outcomes[0].message);
    EXPECT_EQ(o.message.find("BEGIN"), std::string::npos) << "a key in: " << o.message;
    EXPECT_EQ(o.message.find("ya29."), std::string::npos) << "a token in: " << o.message;
  }
  auto batch = incidents::GatherSignals(ws, **store, clock, {Now() - std::chrono::hours(1)});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_TRUE(batch->signals.empty()) << batch->signals.size() << " signal(s), the first: " << batch->signals[0].summary;
  ASSERT_EQ(batch->gaps.size(), outcomes.size());
  const std::string asset = ws.checks.at(0).asset_id;
  for (const incidents::ObservationGap& g : batch->gaps) {
    EXPECT_EQ(g.asset_id, asset);
    EXPECT_EQ(g.source.rfind("check:" + asset + ":", 0), 0u) << g.source;  // the table and the check
    EXPECT_EQ(g.message, outcomes[0].message);
  }
}

Json Fault(const std::string& path, int status, const Json& body, int every, int times) {
  return {{"method", "POST"}, {"path", path}, {"status", status}, {"body", body.dump()}, {"every", every}, {"times", times}};
}

Json Merged(Json script, const Json& more) {
  for (const auto& [k, v] : more.items()) script[k] = v;
  return script;
}

// ---- BigQuery ----

Json BigQueryError(int code, const std::string& reason, const std::string& message) {
  return {{"error", {{"code", code}, {"message", message}, {"errors", Json::array({{{"message", message}, {"domain", "global"},
                                                                                     {"reason", reason}}})}}}};
}

// The first jobs.query reads the dataset's catalog; the second is the table's scan.
std::vector<Failure> BigQueryFailures() {
  const std::string queries = "/bigquery/v2/projects/dw-test/queries";
  const std::string gone = "Not found: Table dw-test:shop.orders was not found in location US";
  const std::string quota = "Quota exceeded: Your project exceeded quota for free query bytes scanned.";
  // A RANGE column: a type this client has no reading for.
  const Json range_answer = {{"kind", "bigquery#queryResponse"}, {"jobComplete", true}, {"totalRows", "1"},
                             {"jobReference", {{"projectId", "dw-test"}, {"jobId", "job_range"}, {"location", "US"}}},
                             {"schema", {{"fields", Json::array({{{"name", "r"}, {"type", "RANGE"}}})}}},
                             {"rows", Json::array({{{"f", Json::array({{{"v", "[2026-01-01, 2026-02-01)"}}})}}})}};
  return {
      {"the table vanishes after the catalog was read",
       {{"faults", Json::array({Fault(queries, 404, BigQueryError(404, "notFound", gone), 2, 1)})}}, std::nullopt,
       {gone, "is not in the warehouse, dropped or renamed"}},
      {"accessDenied", {{"denied_datasets", {"shop"}}}, std::nullopt,
       {"accessDenied", "Access Denied: Table dw-test:shop.orders", "grant the warehouse user"}},
      {"quota exceeded", {{"faults", Json::array({Fault(queries, 403, BigQueryError(403, "quotaExceeded", quota), 2, 1)})}},
       std::nullopt, {quota, "wait for the quota to reset"}},
      {"a scan over its cap", Json::object(), 1000,
       {"bytesBilledLimitExceeded", "Query exceeded limit for bytes billed: 1000", "raise max_bytes_billed"}},
      {"an unknown encoding", {{"faults", Json::array({Fault(queries, 200, range_answer, 2, 1)})}}, std::nullopt,
       {"(RANGE) holds a value this client cannot read", "an encoding Data Workers does not read"}},
  };
}

class BigQueryUnobservedTest : public ::testing::Test, public test_support::BigQuerySimFixture {
 protected:
  static Json Script() {
    Json rows = Json::array();
    for (int i = 1; i <= 6; ++i)
      rows.push_back({i, i % 3 == 0 ? Json() : Json("c" + std::to_string(i)), i - 2.5, i % 2 ? "open" : "lost", MinutesAgo(10 * i)});
    Json table = {{"dataset", "shop"}, {"table", "orders"}, {"rows", rows},
                  {"columns", Json::parse(R"([{"name": "id", "type": "INT64"}, {"name": "customer", "type": "STRING"},
                      {"name": "amount", "type": "FLOAT64"}, {"name": "status", "type": "STRING"},
                      {"name": "placed_at", "type": "TIMESTAMP"}])")}};
    return {{"tables", Json::array({table})}};
  }
};

TEST_F(BigQueryUnobservedTest, EachFailureIsAGapNamingTheTableTheCheckAndWhatToDo) {
  uint32_t seed = 3600;
  for (const Failure& f : BigQueryFailures()) {
    for (int k = 0; k < 2; ++k, ++seed) {
      Start(Merged(Script(), f.script));
      config_.max_bytes_billed = f.max_bytes_billed;
      config::Workspace ws;
      ws.warehouses["bq"] = config_;
      config::CheckConfig c;
      c.table = "bq.shop.orders";
      c.warehouse = "bq";
      c.asset_id = "table://bq/shop.orders";
      c.spec = SeededSpec(seed, c.table);
      ws.checks = {c};
      ExpectGapsNotIncidents(ws, f, http_.get(), "seed " + std::to_string(seed) + " " + c.spec.dump());
    }
  }
}

// ---- Snowflake ----

Json SnowflakeFailure(const std::string& code, const std::string& state, const std::string& message) {
  return {{"code", code}, {"sqlState", state}, {"message", message}, {"statementHandle", "01b2c3d4-0000-4a5b-0000-000000000001"}};
}

// The first statement reads the schema's catalog; the second is the table's scan.
std::vector<Failure> SnowflakeFailures() {
  const std::string statements = "/api/v2/statements";
  const std::string gone = "SQL compilation error:\nObject 'ANALYTICS.SHOP.ORDERS' does not exist or not authorized.";
  // The client reads the resource monitor's words; the code is not what it relies on.
  const std::string quota = "Warehouse 'CHECKS_XS' cannot be resumed because resource monitor 'DAILY_CAP' has exceeded its quota.";
  const std::string timeout = "Statement reached its statement or warehouse timeout of 30 second(s) and was canceled.";
  const Json arrow_answer = {{"code", "090001"}, {"statementHandle", "01b2c3d4-0000-4a5b-0000-000000000002"},
                             {"resultSetMetaData", {{"format", "arrowv1"}, {"numRows", 1},
                                                    {"rowType", Json::array({{{"name", "N"}, {"type", "fixed"}}})},
                                                    {"partitionInfo", Json::array({{{"rowCount", 1}}})}}},
                             {"data", Json::array({Json::array({"1"})})}};
  return {
      {"the table vanishes after the catalog was read",
       {{"faults", Json::array({Fault(statements, 422, SnowflakeFailure("002003", "42S02", gone), 2, 1)})}}, std::nullopt,
       {"002003", "does not exist or not authorized", "is not in the warehouse, dropped or renamed"}},
      {"access denied", {{"denied_schemas", {"SHOP"}}}, std::nullopt, {"003001", "grant the warehouse user"}},
      {"a resource monitor's quota",
       {{"faults", Json::array({Fault(statements, 422, SnowflakeFailure("000000", "57014", quota), 2, 1)})}}, std::nullopt,
       {quota, "wait for the quota to reset"}},
      {"a statement past its timeout",
       {{"faults", Json::array({Fault(statements, 422, SnowflakeFailure("000630", "57014", timeout), 2, 1)})}}, std::nullopt,
       {"000630", "raise it, or check only new rows"}},
      {"an unknown encoding", {{"faults", Json::array({Fault(statements, 200, arrow_answer, 2, 1)})}}, std::nullopt,
       {"format 'arrowv1'", "an encoding Data Workers does not read"}},
  };
}

class SnowflakeUnobservedTest : public ::testing::Test, public test_support::SnowflakeSimFixture {
 protected:
  static Json Script() {
    Json rows = Json::array();
    for (int i = 1; i <= 6; ++i)
      rows.push_back({i, i % 3 == 0 ? Json() : Json("c" + std::to_string(i)), i - 2.5, i % 2 ? "open" : "lost", MinutesAgo(10 * i)});
    Json table = {{"schema", "SHOP"}, {"table", "ORDERS"}, {"rows", rows},
                  {"columns", Json::parse(R"J([{"name": "ID", "type": "NUMBER(38,0)"}, {"name": "CUSTOMER", "type": "VARCHAR"},
                      {"name": "AMOUNT", "type": "NUMBER(10,2)"}, {"name": "STATUS", "type": "VARCHAR"},
                      {"name": "PLACED_AT", "type": "TIMESTAMP_NTZ"}])J")}};
    return {{"tables", Json::array({table})}};
  }
};

TEST_F(SnowflakeUnobservedTest, EachFailureIsAGapNamingTheTableTheCheckAndWhatToDo) {
  uint32_t seed = 3610;
  for (const Failure& f : SnowflakeFailures()) {
    for (int k = 0; k < 2; ++k, ++seed) {
      Start(Merged(Script(), f.script));
      config::Workspace ws;
      ws.warehouses["sf"] = config_;
      config::CheckConfig c;
      c.table = "sf.shop.orders";
      c.warehouse = "sf";
      c.asset_id = "table://sf/shop.orders";
      c.spec = SeededSpec(seed, c.table);
      ws.checks = {c};
      ExpectGapsNotIncidents(ws, f, http_.get(), "seed " + std::to_string(seed) + " " + c.spec.dump());
    }
  }
}

}  // namespace
}  // namespace dw::warehouse
