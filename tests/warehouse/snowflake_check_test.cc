// The product's checks end to end on Snowflake: a quality run (observe/quality's front door) over
// a table served by `dw-sim snowflake`, its SQL evaluated on the rows the test seeded, each verdict
// and figure the one those rows imply, the workspace naming the table and columns in lower case
// as a person types them.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "base/time_text.h"
#include "config/workspace.h"
#include "observe/metrics/monitor_query.h"
#include "observe/quality/quality_run.h"
#include "tests/warehouse/snowflake_sim_support.h"

namespace dw::warehouse {
namespace {

using observe::quality::CheckOutcome;
using observe::quality::QualityReport;
using observe::quality::Verdict;

// 2026-12-07T02:00:00Z.
TimePoint Now() { return FromUnixMillis(1796608800000); }

std::string MinutesAgo(int minutes) {
  return FormatTimestamp(ToUnixMillis(Now()) - minutes * 60000LL, {false, 'T', 3, "Z"});
}

const CheckOutcome& Outcome(const QualityReport& r, const std::string& name) {
  for (const CheckOutcome& o : r.tables.at(0).outcomes)
    if (o.name == name) return o;
  static CheckOutcome missing;
  ADD_FAILURE() << "no outcome " << name << " in " << r.ToJson().dump(2);
  return missing;
}

class SnowflakeCheckTest : public ::testing::Test, public test_support::SnowflakeSimFixture {
 protected:
  // Eight orders, the latest placed 10 minutes ago: two without a customer, one negative amount,
  // one status outside the accepted list, order 4 twice. PLACED_AT is TIMESTAMP_NTZ in UTC and
  // SHIPPED_ON a DATE; the table is read in partitions of three rows.
  void SetUp() override {
    Json rows = Json::array();
    const struct { int id; const char* customer; double amount; const char* status; int minutes_ago; } kRows[] = {
        {1, "ann", 10.5, "paid", 90}, {2, nullptr, 20, "open", 80},  {3, "cy", -3.25, "paid", 70},
        {4, "di", 7, "lost", 60},      {4, "di", 7, "paid", 50},     {6, nullptr, 1, "open", 40},
        {7, "gus", 2, "paid", 30},     {8, "hal", 3, "open", 10}};
    for (const auto& r : kRows)
      rows.push_back({r.id, r.customer == nullptr ? Json() : Json(r.customer), r.amount, r.status, MinutesAgo(r.minutes_ago)});
    Json table = {{"schema", "SHOP"}, {"table", "ORDERS"}, {"rows", rows},
                  {"columns", Json::parse(R"J([{"name": "ID", "type": "NUMBER(38,0)", "nullable": false},
                      {"name": "CUSTOMER", "type": "VARCHAR(64)"}, {"name": "AMOUNT", "type": "NUMBER(10,2)"},
                      {"name": "STATUS", "type": "VARCHAR"}, {"name": "PLACED_AT", "type": "TIMESTAMP_NTZ"}])J")}};
    Start({{"tables", Json::array({table})}, {"partition_rows", 3}, {"async_polls", 1}});
    workspace_.warehouses["sf"] = config_;
    config::CheckConfig c;
    c.table = "sf.shop.orders";
    c.warehouse = "sf";
    c.asset_id = "table://sf/shop.orders";
    c.spec = Json::parse(R"({"table": "sf.shop.orders", "time_column": "placed_at", "not_null": ["customer", "id"],
        "unique": ["id"], "freshness": {"max_age": "30m"}, "volume": {"min_rows": 5, "window": "45m"},
        "accepted_values": {"status": ["open", "paid"]}, "range": {"amount": {"min": 0}}})");
    workspace_.checks = {c};
  }

  config::Workspace workspace_;
  SimulatedClock clock_{Now()};
};

TEST_F(SnowflakeCheckTest, AQualityRunOnTheSimulatedWarehouseFindsWhatWasSeeded) {
  observe::quality::QualityRequest req;
  req.http = http_.get();
  req.record = false;
  auto r = observe::quality::RunQuality(workspace_, nullptr, clock_, req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->tables.size(), 1u);
  EXPECT_EQ(r->tables[0].rows, 8) << r->ToJson().dump(2);
  EXPECT_EQ(r->ExitCode(), 1) << r->ToJson().dump(2);

  const CheckOutcome& nulls = Outcome(*r, "not_null:customer");
  EXPECT_EQ(nulls.verdict, Verdict::kFail);
  EXPECT_EQ(nulls.observed["null_count"], 2);
  ASSERT_TRUE(nulls.sample.has_value()) << nulls.message;
  EXPECT_EQ(nulls.sample->size(), 2u);
  EXPECT_EQ(Outcome(*r, "not_null:id").verdict, Verdict::kPass);

  const CheckOutcome& dup = Outcome(*r, "unique:id");
  EXPECT_EQ(dup.verdict, Verdict::kFail);
  EXPECT_EQ(dup.observed["duplicated_keys"], 1);

  const CheckOutcome& status = Outcome(*r, "accepted_values:status");
  EXPECT_EQ(status.verdict, Verdict::kFail);
  EXPECT_EQ(status.observed["invalid_count"], 1);

  const CheckOutcome& range = Outcome(*r, "range:amount");
  EXPECT_EQ(range.verdict, Verdict::kFail);
  EXPECT_EQ(range.observed["min"], Json(-3.25));
  EXPECT_EQ(range.observed["out_of_range"], 1);

  const CheckOutcome& fresh = Outcome(*r, "freshness");
  EXPECT_EQ(fresh.verdict, Verdict::kPass) << fresh.message;
  EXPECT_EQ(fresh.observed["latest"], MinutesAgo(10));
  EXPECT_EQ(fresh.observed["age_seconds"], Json(600.0));

  // Orders placed in the last 45 minutes: 40, 30 and 10 minutes ago.
  const CheckOutcome& volume = Outcome(*r, "volume");
  EXPECT_EQ(volume.verdict, Verdict::kFail) << volume.observed.dump();
  EXPECT_EQ(volume.observed["rows_in_window"], 3) << volume.observed.dump();

  // Every statement carried the run's tag, so the account's query history attributes its cost.
  Json state = SimState();
  ASSERT_FALSE(state["query_tags"].empty());
  for (const Json& tag : state["query_tags"]) {
    Json t = Json::parse(tag.get<std::string>(), nullptr, false);
    ASSERT_TRUE(t.is_object()) << tag;
    EXPECT_EQ(t["dw"], "checks");
  }
  bool run_tagged = false;
  for (const Json& tag : state["query_tags"])
    run_tagged = run_tagged || Json::parse(tag.get<std::string>()).value("dw_run", "") == r->run_id;
  EXPECT_TRUE(run_tagged) << state["query_tags"].dump();
}

TEST_F(SnowflakeCheckTest, FreshnessFailsAnHourLaterAndAnUnreachableWarehouseIsAnError) {
  clock_.Advance(std::chrono::hours(1));
  observe::quality::QualityRequest req;
  req.http = http_.get();
  req.record = false;
  req.checks = {"freshness"};
  auto r = observe::quality::RunQuality(workspace_, nullptr, clock_, req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const CheckOutcome& fresh = Outcome(*r, "freshness");
  EXPECT_EQ(fresh.verdict, Verdict::kFail);
  EXPECT_EQ(fresh.observed["age_seconds"], Json(4200.0));

  workspace_.warehouses["sf"].api_url = "http://127.0.0.1:1";
  workspace_.warehouses["sf"].query_timeout = std::chrono::milliseconds(500);
  auto down = observe::quality::RunQuality(workspace_, nullptr, clock_, req);
  ASSERT_TRUE(down.ok()) << down.status().ToString();
  EXPECT_EQ(down->ExitCode(), 2) << down->ToJson().dump(2);
}

TEST_F(SnowflakeCheckTest, AMonitorQuerysNamedWindowIsBoundAsPositionalBindings) {
  // :window_start and :window_end become :1 and :2, then the SQL API's ?s; the orders placed in
  // [45, 5) minutes ago.
  auto rows = observe::metrics::RunMonitorQuery(
      config_, "SELECT count(*) FROM analytics.shop.orders WHERE placed_at >= to_timestamp_ntz(:window_start) "
               "AND placed_at < to_timestamp_ntz(:window_end)",
      MinutesAgo(45), MinutesAgo(5), http_.get());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].value, 3.0);
}

}  // namespace
}  // namespace dw::warehouse

namespace dw::warehouse {
namespace {

// Many tables at once on a REST warehouse: a seeded family of tables with random row and null
// counts, run with the warehouse's bound on statements in flight and one table at a time. The two
// runs agree table by table with each other and with the counts the generator put in, and progress
// names every table once.
class SnowflakeParallelRunTest : public ::testing::Test, public test_support::SnowflakeSimFixture {};

TEST_F(SnowflakeParallelRunTest, ManyTablesAtOnceAgreeWithOneAtATimeAndWithWhatWasSeeded) {
  std::mt19937 rng(20261207);
  Json tables = Json::array();
  config::Workspace ws;
  std::map<std::string, int> nulls_of;
  for (int t = 0; t < 40; ++t) {
    const int rows = 1 + static_cast<int>(rng() % 30);
    int nulls = 0;
    Json data = Json::array();
    for (int r = 0; r < rows; ++r) {
      const bool null = rng() % 4 == 0;
      nulls += null;
      data.push_back({r, null ? Json() : Json("c" + std::to_string(r)), MinutesAgo(static_cast<int>(rng() % 120))});
    }
    const std::string name = "T" + std::to_string(t);
    tables.push_back({{"schema", "SHOP"}, {"table", name}, {"rows", data},
                      {"columns", Json::parse(R"J([{"name": "ID", "type": "NUMBER(38,0)"}, {"name": "CUSTOMER", "type": "VARCHAR"},
                                                   {"name": "PLACED_AT", "type": "TIMESTAMP_NTZ"}])J")}});
    config::CheckConfig c;
    c.table = "sf.shop.t" + std::to_string(t);
    c.warehouse = "sf";
    c.asset_id = "table://sf/shop.t" + std::to_string(t);
    c.spec = {{"table", c.table}, {"time_column", "placed_at"}, {"not_null", {"customer"}}, {"unique", {"id"}},
              {"volume", {{"min_rows", 10}}}};
    ws.checks.push_back(c);
    nulls_of[c.asset_id] = nulls;
  }
  Start({{"tables", tables}, {"latency_ms", 5}});
  ws.warehouses["sf"] = config_;
  SimulatedClock clock(Now());
  auto run = [&](std::optional<int> max_parallel, std::set<std::string>* progressed) {
    observe::quality::QualityRequest req;
    req.http = http_.get();
    req.record = false;
    req.max_parallel = max_parallel;
    return observe::quality::RunQuality(ws, nullptr, clock, req, [&](size_t, size_t total, const observe::quality::TableReport& t) {
      EXPECT_EQ(total, 40u);
      EXPECT_TRUE(progressed->insert(t.asset_id).second) << t.asset_id << " reported twice";
    });
  };
  std::set<std::string> parallel_progress, serial_progress;
  auto parallel = run(std::nullopt, &parallel_progress);
  auto serial = run(1, &serial_progress);
  ASSERT_TRUE(parallel.ok() && serial.ok());
  EXPECT_EQ(parallel_progress.size(), 40u);
  EXPECT_EQ(serial_progress.size(), 40u);
  ASSERT_EQ(parallel->tables.size(), 40u);
  for (size_t i = 0; i < 40; ++i) {
    const auto& p = parallel->tables[i];
    const auto& s = serial->tables[i];
    EXPECT_EQ(p.asset_id, s.asset_id);  // reported in the workspace's order, however they finished
    ASSERT_EQ(p.outcomes.size(), s.outcomes.size()) << p.asset_id;
    for (size_t o = 0; o < p.outcomes.size(); ++o) {
      EXPECT_EQ(p.outcomes[o].verdict, s.outcomes[o].verdict) << p.asset_id << " " << p.outcomes[o].name;
      EXPECT_EQ(p.outcomes[o].observed, s.outcomes[o].observed) << p.asset_id << " " << p.outcomes[o].name;
      if (p.outcomes[o].name == "not_null:customer") {
        EXPECT_EQ(p.outcomes[o].observed["null_count"], nulls_of[p.asset_id]) << p.asset_id;
      }
    }
  }
}

}  // namespace
}  // namespace dw::warehouse
