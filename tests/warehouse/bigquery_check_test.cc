// The product's checks end to end on BigQuery: a quality run (observe/quality's front door) over a
// table served by `dw-sim bigquery`, its SQL evaluated on the rows the test seeded, each verdict
// and figure the one those rows imply.
#include <gtest/gtest.h>

#include "base/time_text.h"
#include "config/workspace.h"
#include "observe/metrics/monitor_query.h"
#include "observe/quality/quality_run.h"
#include "warehouse/backends.h"
#include "tests/warehouse/bigquery_sim_support.h"

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

class BigQueryCheckTest : public ::testing::Test, public test_support::BigQuerySimFixture {
 protected:
  // Eight orders, the latest placed 10 minutes ago: two without a customer, one negative amount,
  // one status outside the accepted list, order 4 twice.
  void SetUp() override {
    Json rows = Json::array();
    const struct { int id; const char* customer; double amount; const char* status; int minutes_ago; } kRows[] = {
        {1, "ann", 10.5, "paid", 90}, {2, nullptr, 20, "open", 80},  {3, "cy", -3.25, "paid", 70},
        {4, "di", 7, "lost", 60},      {4, "di", 7, "paid", 50},     {6, nullptr, 1, "open", 40},
        {7, "gus", 2, "paid", 30},     {8, "hal", 3, "open", 10}};
    for (const auto& r : kRows)
      rows.push_back({r.id, r.customer == nullptr ? Json() : Json(r.customer), r.amount, r.status, MinutesAgo(r.minutes_ago)});
    Json table = {{"dataset", "shop"}, {"table", "orders"}, {"rows", rows},
                  {"columns", Json::parse(R"([{"name": "id", "type": "INT64", "mode": "REQUIRED"},
                      {"name": "customer", "type": "STRING"}, {"name": "amount", "type": "FLOAT64"},
                      {"name": "status", "type": "STRING"}, {"name": "placed_at", "type": "TIMESTAMP"}])")}};
    Json script = {{"tables", Json::array({table})}, {"page_size", 3}};
    Start(script);
    workspace_.warehouses["bq"] = config_;
    config::CheckConfig c;
    c.table = "bq.shop.orders";
    c.warehouse = "bq";
    c.asset_id = "table://bq/shop.orders";
    c.spec = Json::parse(R"({"table": "bq.shop.orders", "time_column": "placed_at", "not_null": ["customer", "id"],
        "unique": ["id"], "freshness": {"max_age": "30m"}, "volume": {"min_rows": 5, "window": "45m"},
        "accepted_values": {"status": ["open", "paid"]}, "range": {"amount": {"min": 0}}})");
    workspace_.checks = {c};
  }

  config::Workspace workspace_;
  SimulatedClock clock_{Now()};
};

TEST_F(BigQueryCheckTest, AQualityRunOnTheSimulatedWarehouseFindsWhatWasSeeded) {
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

  // The jobs carry the run in labels BigQuery accepts, so INFORMATION_SCHEMA.JOBS attributes them.
  Json labels = SimState()["last_labels"];
  EXPECT_EQ(labels["dw"], "checks") << labels.dump();
  EXPECT_EQ(labels["dw_table"], "shop_orders") << labels.dump();
  std::string run = r->run_id;
  for (char& c : run) c = static_cast<char>(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? std::tolower(static_cast<unsigned char>(c)) : '_');
  EXPECT_EQ(labels["dw_run"], run.substr(0, 63)) << labels.dump();
}

TEST_F(BigQueryCheckTest, ARunIsPricedBeforeItRunsAndEveryJobCarriesItsCap) {
  // Each statement bills at least 10 MB (one table): the aggregate scan and the unique key's count.
  constexpr int64_t kMb = 1 << 20;
  observe::quality::QualityRequest req;
  req.http = http_.get();
  req.record = false;
  req.max_scan_bytes = 15 * kMb;
  auto refused = observe::quality::RunQuality(workspace_, nullptr, clock_, req);
  ASSERT_EQ(refused.status().code(), StatusCode::kResourceExhausted) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("would bill about " + std::to_string(20 * kMb) + " bytes, over its budget of " +
                                            std::to_string(15 * kMb)),
            std::string::npos)
      << refused.status().message();
  // Refused after pricing: only the catalog was read, no check's statement ran.
  const Json refused_state = SimState();
  for (const Json& job : refused_state["jobs_log"])
    EXPECT_NE(job["query"].get<std::string>().find("INFORMATION_SCHEMA"), std::string::npos) << job["query"];

  req.max_scan_bytes = 20 * kMb;
  auto r = observe::quality::RunQuality(workspace_, nullptr, clock_, req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->tables[0].estimated_bytes, std::optional<int64_t>(20 * kMb));
  // What the jobs billed (their failed-row samples included) is reported with the table.
  ASSERT_TRUE(r->tables[0].bytes_billed.has_value()) << r->ToJson().dump(2);
  EXPECT_GE(*r->tables[0].bytes_billed, 20 * kMb);
  EXPECT_EQ(*r->tables[0].bytes_billed % (10 * kMb), 0);

  // The warehouse's own cap rides on every job; BigQuery refuses a job over its cap, billing nothing.
  workspace_.warehouses["bq"].max_bytes_billed = 10 * kMb;
  auto wh = OpenWarehouse(workspace_.warehouses["bq"], http_.get());
  ASSERT_TRUE(wh.ok());
  ASSERT_TRUE((*wh)->Query("SELECT count(*) FROM `dw-test`.`shop`.`orders`", {}, {}).ok());
  EXPECT_EQ(SimState()["jobs_log"].back()["maximumBytesBilled"], std::to_string(10 * kMb));
  auto over = (*wh)->Query("SELECT count(*) FROM `dw-test`.`shop`.`orders`", {}, {std::chrono::seconds(10), {}, 5 * kMb});
  ASSERT_EQ(over.status().code(), StatusCode::kResourceExhausted) << over.status().ToString();
  EXPECT_NE(over.status().message().find("bytesBilledLimitExceeded"), std::string::npos);
  EXPECT_NE(over.status().message().find("max_bytes_billed"), std::string::npos);
}

TEST_F(BigQueryCheckTest, FreshnessFailsAnHourLaterAndAnUnreachableWarehouseIsAnError) {
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

  workspace_.warehouses["bq"].api_url = "http://127.0.0.1:1";
  workspace_.warehouses["bq"].query_timeout = std::chrono::milliseconds(500);
  auto down = observe::quality::RunQuality(workspace_, nullptr, clock_, req);
  ASSERT_TRUE(down.ok()) << down.status().ToString();
  EXPECT_EQ(down->ExitCode(), 2) << down->ToJson().dump(2);
}

TEST_F(BigQueryCheckTest, AMonitorQuerysNamedWindowIsBoundAsBigQueryParameters) {
  // :window_start and :window_end become @p1 and @p2; the orders placed in [45, 5) minutes ago.
  auto rows = observe::metrics::RunMonitorQuery(
      config_, "SELECT count(*) FROM `dw-test`.`shop`.`orders` WHERE `placed_at` >= CAST(:window_start AS TIMESTAMP) "
               "AND `placed_at` < CAST(:window_end AS TIMESTAMP)",
      MinutesAgo(45), MinutesAgo(5), http_.get());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].value, 3.0);
}

TEST(BigQueryWorkspace, TheWorkspaceFileDeclaresABigQueryWarehouseWithItsKeys) {
  ::dw::testing::TempDir dir;
  dir.Write("dataworkers.yaml", R"(version: 1
name: bq-test
warehouses:
  bq:
    type: bigquery
    project: dw-test
    location: EU
    credentials: "${GOOGLE_APPLICATION_CREDENTIALS}"
    api_url: http://127.0.0.1:9050
  nokey: {type: bigquery, project: p, dsn: "postgresql://x"}
  tiny: {type: bigquery, project: p, credentials: k.json, max_bytes_billed: 1000}
  lite: {type: sqlite, path: w.db, max_scan_bytes: 5}
)");
  auto env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "GOOGLE_APPLICATION_CREDENTIALS") return std::string("keys/sa.json");
    return std::nullopt;
  };
  config::LoadResult r = config::LoadWorkspace(dir.path(), env);
  ASSERT_FALSE(r.ok());
  // The second warehouse lacks credentials and carries a postgres key: both named.
  EXPECT_NE(r.ErrorText().find("warehouses.nokey: a bigquery warehouse needs 'credentials'"), std::string::npos)
      << r.ErrorText();
  EXPECT_NE(r.ErrorText().find("warehouses.nokey.dsn: 'dsn' does not apply to bigquery warehouses"), std::string::npos)
      << r.ErrorText();
  EXPECT_EQ(r.ErrorText().find("warehouses.bq"), std::string::npos) << r.ErrorText();
  // A cap under BigQuery's 10 MB minimum would fail every job; a byte budget on SQLite means nothing.
  EXPECT_NE(r.ErrorText().find("warehouses.tiny.max_bytes_billed"), std::string::npos) << r.ErrorText();
  EXPECT_NE(r.ErrorText().find("warehouses.lite.max_scan_bytes: 'max_scan_bytes' applies to bigquery warehouses"),
            std::string::npos)
      << r.ErrorText();

  dir.Write("dataworkers.yaml", R"(version: 1
name: bq-test
warehouses:
  bq: {type: bigquery, project: dw-test, location: EU, credentials: "${GOOGLE_APPLICATION_CREDENTIALS}"}
)");
  r = config::LoadWorkspace(dir.path(), env);
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  const config::WarehouseConfig& bq = r.workspace->warehouses.at("bq");
  EXPECT_EQ(bq.project, "dw-test");
  EXPECT_EQ(bq.location, "EU");
  EXPECT_EQ(bq.credentials, (dir.path() / "keys/sa.json").lexically_normal().string());
  EXPECT_EQ(bq.api_url, "https://bigquery.googleapis.com");
  EXPECT_EQ(FindDialect("bigquery")->Param(2), "@p2");
}

}  // namespace
}  // namespace dw::warehouse
