// The warehouse's own history as a change timeline: Snowflake's ACCESS_HISTORY and QUERY_HISTORY,
// served by `dw-sim snowflake` from writes the test scripts, become warehouse_write events on the
// tables they wrote (under the ids the workspace's checks use), are read again as far back as the
// history lags so a late row is kept, and are judged against the damage's shape by diagnosis.
#include <gtest/gtest.h>

#include "incidents/cause_shape.h"
#include "observe/changes/change_kinds.h"
#include "observe/changes/warehouse_writes.h"
#include "tests/observe/change_test_support.h"
#include "tests/warehouse/bigquery_sim_support.h"
#include "tests/warehouse/snowflake_sim_support.h"
#include "warehouse/history.h"

namespace dw::observe::changes {
namespace {

using test_support::At;

Json Write(const char* at, const char* user, const char* type, const char* table, Json counts) {
  Json w = {{"start_time", at}, {"user", user}, {"query_type", type}, {"objects_modified", Json::array({table})},
            {"query_text", std::string(type) + " INTO " + table + " ..."}};
  for (auto& [k, v] : counts.items()) w[k] = v;
  return w;
}

class WarehouseWritesTest : public test_support::ChangeStoreTest, public warehouse::test_support::SnowflakeSimFixture {
 protected:
  WarehouseWritesTest() : ChangeStoreTest(At("2026-12-07T08:00:00Z")) {}

  void StartWith(Json history) {
    Json orders = {{"schema", "SHOP"}, {"table", "ORDERS"}, {"rows", Json::array()},
                   {"columns", Json::parse(R"J([{"name": "ID", "type": "NUMBER(38,0)"}])J")}};
    Start({{"tables", Json::array({orders})}, {"history", history}});
    OpenStore();
    ws_.warehouses["sf"] = config_;
    config::CheckConfig c;
    c.table = "sf.shop.orders";
    c.warehouse = "sf";
    c.asset_id = "table://sf/shop.orders";
    ws_.checks = {c};
  }
  void AddHistory(const Json& writes) const {
    net::HttpRequest req;
    req.method = "POST";
    req.url = sim_->url() + "/_sim/history";
    req.body = Json{{"history", writes}}.dump();
    auto res = ChangeStoreTest::http_->Send(req);
    ASSERT_TRUE(res.ok() && res->status == 200) << (res.ok() ? res->body : res.status().ToString());
  }
};

TEST_F(WarehouseWritesTest, EachWriteTheHistoryRecordsIsAChangeOnTheTableItWrote) {
  StartWith(Json::array({
      Write("2026-12-07T06:41:00Z", "AIRFLOW_SVC", "MERGE", "SHOP.ORDERS", {{"rows_inserted", 3000}, {"rows_updated", 12}}),
      Write("2026-12-07T07:10:00Z", "DBT_PROD", "DELETE", "ANALYTICS.SHOP.ORDER_ITEMS", {{"rows_deleted", 40}}),
      Write("2026-12-07T07:20:00Z", "ETL", "INSERT", "OTHERDB.SHOP.ORDERS", {{"rows_inserted", 5}}),  // another database
      Write("2026-12-06T06:00:00Z", "AIRFLOW_SVC", "INSERT", "SHOP.ORDERS", {{"rows_inserted", 1}}),  // before the lookback
  }));
  CollectReport report = Collect();
  ASSERT_EQ(report.platforms.size(), 1u) << report.ToJson().dump();
  EXPECT_EQ(report.platforms[0].platform, "sf");
  EXPECT_TRUE(report.platforms[0].errors.empty()) << report.ToJson().dump();
  EXPECT_EQ(report.platforms[0].new_events, 2) << report.ToJson().dump();

  std::vector<store::ChangeEvent> writes = Events(kWarehouseWrite);
  ASSERT_EQ(writes.size(), 2u);
  const store::ChangeEvent& merge = writes[0];
  EXPECT_EQ(merge.asset_id, "table://sf/shop.orders");  // the check's id
  EXPECT_EQ(merge.happened_at, At("2026-12-07T06:41:00Z"));
  EXPECT_EQ(merge.evidence["user"], "AIRFLOW_SVC");
  EXPECT_EQ(merge.evidence["statement_type"], "MERGE");
  EXPECT_EQ(merge.evidence["rows_inserted"], 3000);
  EXPECT_EQ(merge.evidence["rows_updated"], 12);
  EXPECT_EQ(merge.reason, "MERGE by AIRFLOW_SVC (3000 inserted, 12 updated): it changed rows in place");
  EXPECT_DOUBLE_EQ(merge.risk, 0.6);
  const store::ChangeEvent& del = writes[1];
  EXPECT_EQ(del.asset_id, "table://sf/shop.order_items");  // no check: as a workspace would write it
  EXPECT_DOUBLE_EQ(del.risk, 0.7);

  // Five minutes later the history is not read again (it lags, and reading it is billed).
  clock_.Advance(std::chrono::minutes(5));
  report = Collect();
  EXPECT_EQ(report.platforms[0].new_events, 0);
  ASSERT_EQ(report.platforms[0].notes.size(), 1u);

  // A row recorded late, for a write before the last pass, is still collected; the others are
  // read again and dropped as duplicates.
  AddHistory(Json::array({Write("2026-12-07T07:50:00Z", "FIVETRAN", "TRUNCATE_TABLE", "SHOP.ORDERS", Json::object())}));
  clock_.Advance(std::chrono::minutes(10));
  report = Collect();
  EXPECT_EQ(report.platforms[0].new_events, 1) << report.ToJson().dump();
  EXPECT_EQ(report.platforms[0].duplicates, 2) << report.ToJson().dump();
  writes = Events(kWarehouseWrite);
  ASSERT_EQ(writes.size(), 3u);
  EXPECT_EQ(writes[2].evidence["statement_type"], "TRUNCATE_TABLE");
  EXPECT_DOUBLE_EQ(writes[2].risk, 0.8);
}

TEST_F(WarehouseWritesTest, AHistoryTheRoleCannotReadIsAnErrorOfThatWarehouseAlone) {
  Json orders = {{"schema", "SHOP"}, {"table", "ORDERS"}, {"columns", Json::parse(R"J([{"name": "ID", "type": "INTEGER"}])J")}};
  Start({{"tables", Json::array({orders})}, {"account_usage", false}});
  OpenStore();
  ws_.warehouses["sf"] = config_;
  CollectReport report = Collect();
  ASSERT_EQ(report.platforms.size(), 1u);
  ASSERT_EQ(report.platforms[0].errors.size(), 1u);
  EXPECT_NE(report.platforms[0].errors[0].find("SNOWFLAKE.ACCOUNT_USAGE.ACCESS_HISTORY' does not exist or not authorized"),
            std::string::npos)
      << report.platforms[0].errors[0];
  EXPECT_TRUE(Events(kWarehouseWrite).empty());
}

class BigQueryWritesTest : public test_support::ChangeStoreTest, public warehouse::test_support::BigQuerySimFixture {
 protected:
  BigQueryWritesTest() : ChangeStoreTest(At("2026-12-07T08:00:00Z")) {}
};

TEST_F(BigQueryWritesTest, EachJobThatWroteATableIsAChangeOnIt) {
  auto job = [](const char* at, const char* user, const char* type, Json destination, Json dml) {
    return Json{{"creation_time", at}, {"user_email", user}, {"statement_type", type}, {"query", std::string(type) + " ..."},
                {"destination_table", destination}, {"dml_statistics", dml}};
  };
  const Json orders = {{"project_id", "dw-test"}, {"dataset_id", "shop"}, {"table_id", "orders"}};
  Start({{"tables", Json::array()},
         {"jobs", Json::array({
             job("2026-12-07T06:41:00Z", "airflow@dw-test.iam.gserviceaccount.com", "MERGE", orders,
                 {{"inserted_row_count", "3000"}, {"updated_row_count", "12"}, {"deleted_row_count", "0"}}),
             job("2026-12-07T07:00:00Z", "dbt@dw-test.iam.gserviceaccount.com", "DELETE",
                 {{"project_id", "dw-test"}, {"dataset_id", "shop"}, {"table_id", "order_items"}}, {{"deleted_row_count", "40"}}),
             job("2026-12-07T07:10:00Z", "ana@example.com", "SELECT",
                 {{"project_id", "dw-test"}, {"dataset_id", "_8f3a"}, {"table_id", "anon1"}}, Json()),  // a result table
             job("2026-12-07T07:20:00Z", "etl@other.iam.gserviceaccount.com", "INSERT",
                 {{"project_id", "other"}, {"dataset_id", "shop"}, {"table_id", "orders"}}, {{"inserted_row_count", "5"}}),
         })}});
  OpenStore();
  ws_.warehouses["bq"] = config_;
  config::CheckConfig c;
  c.table = "bq.shop.orders";
  c.warehouse = "bq";
  c.asset_id = "table://bq/shop.orders";
  ws_.checks = {c};
  CollectReport report = Collect();
  ASSERT_EQ(report.platforms.size(), 1u);
  EXPECT_TRUE(report.platforms[0].errors.empty()) << report.ToJson().dump();
  std::vector<store::ChangeEvent> writes = Events(kWarehouseWrite);
  ASSERT_EQ(writes.size(), 2u) << report.ToJson().dump();
  EXPECT_EQ(writes[0].asset_id, "table://bq/shop.orders");
  EXPECT_EQ(writes[0].evidence["statement_type"], "MERGE");
  EXPECT_EQ(writes[0].evidence["rows_inserted"], 3000);
  EXPECT_EQ(writes[0].evidence["user"], "airflow@dw-test.iam.gserviceaccount.com");
  EXPECT_EQ(writes[1].asset_id, "table://bq/shop.order_items");
  EXPECT_EQ(writes[1].evidence["rows_deleted"], 40);
  EXPECT_DOUBLE_EQ(writes[1].risk, 0.7);
}

TEST(WarehouseHistory, EnginesWithoutOneSayWhatTheyKeepInstead) {
  config::WarehouseConfig pg;
  pg.name = "pg";
  pg.type = "postgres";
  auto h = warehouse::OpenWarehouseHistory(pg);
  ASSERT_EQ(h.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(h.status().message().find("pg_stat_statements"), std::string::npos) << h.status().message();
}

store::ChangeEvent WriteEvent(const char* type, Json counts) {
  store::ChangeEvent e;
  e.kind = kWarehouseWrite;
  e.asset_id = "table://sf/shop.orders";
  e.evidence = {{"statement_type", type}};
  for (auto& [k, v] : counts.items()) e.evidence[k] = v;
  return e;
}

TEST(WarehouseWriteShape, AWriteExplainsTheDamageItsTypeAndRowCountsCanCause) {
  using incidents::FitShape;
  using incidents::SignalShape;
  const std::vector<store::ChangeEvent> none;
  // Removing rows explains a drop; appending does not, and says so.
  EXPECT_DOUBLE_EQ(FitShape(WriteEvent("DELETE", {{"rows_deleted", 40}}), {SignalShape::kLevelDrop}, none, nullptr).fit, 0.9);
  EXPECT_DOUBLE_EQ(FitShape(WriteEvent("TRUNCATE_TABLE", {}), {SignalShape::kLevelDrop}, none, nullptr).fit, 0.9);
  auto append_drop = FitShape(WriteEvent("INSERT", {{"rows_inserted", 10}}), {SignalShape::kLevelDrop}, none, nullptr);
  EXPECT_DOUBLE_EQ(append_drop.fit, 0.2);
  ASSERT_EQ(append_drop.counter_evidence.size(), 1u);
  // Appending explains more rows, a doubling best.
  EXPECT_DOUBLE_EQ(FitShape(WriteEvent("INSERT", {{"rows_inserted", 3000}}), {SignalShape::kDoubling}, none, nullptr).fit, 0.8);
  EXPECT_DOUBLE_EQ(FitShape(WriteEvent("INSERT", {{"rows_inserted", 3000}}), {SignalShape::kLevelRise}, none, nullptr).fit, 0.7);
  // Rewriting rows in place explains nulls and stale values.
  EXPECT_DOUBLE_EQ(FitShape(WriteEvent("MERGE", {{"rows_updated", 12}}), {SignalShape::kNullRateJump}, none, nullptr).fit, 0.7);
  EXPECT_DOUBLE_EQ(FitShape(WriteEvent("UPDATE", {{"rows_updated", 3}}), {SignalShape::kRepeatsEarlier}, none, nullptr).fit, 0.7);
  // Nothing in the counts to say how: a middling fit.
  EXPECT_DOUBLE_EQ(FitShape(WriteEvent("INSERT", {}), {SignalShape::kNullRateJump}, none, nullptr).fit, 0.4);
}

}  // namespace
}  // namespace dw::observe::changes
