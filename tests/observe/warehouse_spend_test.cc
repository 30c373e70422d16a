// What the warehouses' queries cost, read from their own accounting as served by the simulators
// (Snowflake's QUERY_ATTRIBUTION_HISTORY, BigQuery's INFORMATION_SCHEMA.JOBS) and totalled by dbt
// model (dbt's query comment, or its labels), user, label, and ours against everyone else's.
#include <gtest/gtest.h>

#include "base/iso_time.h"
#include "observe/spend/warehouse_spend.h"
#include "tests/warehouse/bigquery_sim_support.h"
#include "tests/warehouse/snowflake_sim_support.h"

namespace dw::observe::spend {
namespace {

TimePoint At(const char* iso) { return FromUnixMillis(*ParseIsoTimeMillis(iso)); }

const std::string kDbtComment =
    "/* {\"app\": \"dbt\", \"dbt_version\": \"1.8.7\", \"profile_name\": \"shop\", \"target_name\": \"prod\", "
    "\"node_id\": \"model.shop.fct_orders\"} */\n";

TEST(DbtNode, FromDbtsQueryCommentOrItsLabels) {
  warehouse::QuerySpend q;
  q.query_text = "  " + kDbtComment + "create or replace transient table ANALYTICS.SHOP.FCT_ORDERS as (select 1)";
  EXPECT_EQ(DbtNodeOf(q), "model.shop.fct_orders");
  q.query_text = "select 1 /* {\"node_id\": \"model.shop.x\"} */";  // not leading: not dbt's comment
  EXPECT_EQ(DbtNodeOf(q), "");
  q.tag = R"([{"key": "dbt_invocation_id", "value": "abc"}, {"key": "node_id", "value": "model.shop.dim_customers"}])";
  EXPECT_EQ(DbtNodeOf(q), "model.shop.dim_customers");
  q.tag = "/* not json */";
  EXPECT_EQ(DbtNodeOf(q), "");
  EXPECT_FALSE(RanByUs(q));
  q.tag = R"({"dw": "checks", "dw_run": "r1"})";
  EXPECT_TRUE(RanByUs(q));
}

class SnowflakeSpendTest : public ::testing::Test, public warehouse::test_support::SnowflakeSimFixture {};

TEST_F(SnowflakeSpendTest, CreditsTotalledByModelUserAndOurs) {
  auto run = [](const char* at, const char* user, const char* text, const char* tag, double credits) {
    return Json{{"start_time", at}, {"user", user}, {"query_type", "SELECT"}, {"query_text", text}, {"query_tag", tag},
                {"credits", credits}};
  };
  const std::string dbt = kDbtComment + "create or replace table ANALYTICS.SHOP.FCT_ORDERS as (select 1)";
  Start({{"tables", Json::array()},
         {"history", Json::array({run("2026-12-01T02:00:00Z", "DBT_PROD", dbt.c_str(), "", 1.25),
                                  run("2026-12-01T03:00:00Z", "DBT_PROD", dbt.c_str(), "", 0.75),
                                  run("2026-12-01T04:00:00Z", "LOOKER", "select sum(amount) from shop.orders", "looker", 0.5),
                                  run("2026-12-01T05:00:00Z", "DW_CHECKS", "select count(*) from shop.orders", R"({"dw":"checks"})", 0.01),
                                  run("2026-11-20T05:00:00Z", "LOOKER", "select 1", "looker", 9.0)})}});  // before the window
  config::Workspace ws;
  ws.warehouses["sf"] = config_;
  auto by_model = ReportSpend(ws, *http_, At("2026-11-30T00:00:00Z"), At("2026-12-02T00:00:00Z"), "model");
  ASSERT_TRUE(by_model.ok()) << by_model.status().ToString();
  ASSERT_EQ(by_model->warehouses.size(), 1u);
  const WarehouseSpendReport& w = by_model->warehouses[0];
  ASSERT_TRUE(w.error.empty()) << w.error;
  EXPECT_EQ(w.unit, "credits");
  ASSERT_EQ(w.groups.size(), 2u);
  EXPECT_EQ(w.groups[0].key, "model.shop.fct_orders");
  EXPECT_DOUBLE_EQ(w.groups[0].credits, 2.0);
  EXPECT_EQ(w.groups[0].queries, 2);
  EXPECT_EQ(w.groups[1].key, "(not dbt)");
  EXPECT_NEAR(w.groups[1].credits, 0.51, 1e-9);
  EXPECT_NEAR(w.total.credits, 2.51, 1e-9);
  EXPECT_EQ(w.ours.queries, 1);
  EXPECT_NEAR(w.ours.credits, 0.01, 1e-9);

  auto by_user = ReportSpend(ws, *http_, At("2026-11-30T00:00:00Z"), At("2026-12-02T00:00:00Z"), "user");
  ASSERT_TRUE(by_user.ok());
  EXPECT_EQ(by_user->warehouses[0].groups[0].key, "DBT_PROD");
  auto by_dw = ReportSpend(ws, *http_, At("2026-11-30T00:00:00Z"), At("2026-12-02T00:00:00Z"), "dw");
  ASSERT_TRUE(by_dw.ok());
  ASSERT_EQ(by_dw->warehouses[0].groups.size(), 2u);
  EXPECT_EQ(by_dw->warehouses[0].groups[1].key, "data-workers");
  Json j = by_dw->ToJson();
  EXPECT_EQ(j["warehouses"][0]["data_workers"]["queries"], 1);

  EXPECT_EQ(ReportSpend(ws, *http_, At("2026-11-30T00:00:00Z"), At("2026-12-02T00:00:00Z"), "cost").status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(SnowflakeSpendTest, AnAccountWhoseUsageTheRoleCannotReadIsReportedNotFatal) {
  Start({{"tables", Json::array()}, {"account_usage", false}});
  config::Workspace ws;
  ws.warehouses["sf"] = config_;
  ws.warehouses["lite"] = config::WarehouseConfig{.name = "lite", .type = "sqlite", .path = ":memory:"};
  auto r = ReportSpend(ws, *http_, At("2026-11-30T00:00:00Z"), At("2026-12-02T00:00:00Z"), "model");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->warehouses.size(), 1u);  // SQLite bills nothing per query
  EXPECT_NE(r->warehouses[0].error.find("QUERY_ATTRIBUTION_HISTORY' does not exist or not authorized"), std::string::npos)
      << r->warehouses[0].error;
}

class BigQuerySpendTest : public ::testing::Test, public warehouse::test_support::BigQuerySimFixture {};

TEST_F(BigQuerySpendTest, BytesAndSlotTimeTotalledByModelFromDbtsLabelsAndComment) {
  Start({{"tables", Json::array()},
         {"jobs", Json::array({
             {{"creation_time", "2026-12-01T02:00:00Z"}, {"user_email", "dbt@shop.iam.gserviceaccount.com"},
              {"labels", {{"dbt_invocation_id", "inv1"}, {"node_id", "model_shop_fct_orders"}}},
              {"query", "create or replace table shop.fct_orders as select 1"}, {"total_bytes_billed", int64_t{3} << 30},
              {"total_slot_ms", 7200000}},
             {{"creation_time", "2026-12-01T03:00:00Z"}, {"user_email", "dbt@shop.iam.gserviceaccount.com"},
              {"query", kDbtComment + "select 1"}, {"total_bytes_billed", int64_t{1} << 30}, {"total_slot_ms", 3600000}},
             {{"creation_time", "2026-12-01T04:00:00Z"}, {"user_email", "dw-checks@dw-test.iam.gserviceaccount.com"},
              {"labels", {{"dw", "checks"}}}, {"query", "select count(*) from shop.orders"}, {"total_bytes_billed", 10 << 20}},
         })}});
  config::Workspace ws;
  ws.warehouses["bq"] = config_;
  auto r = ReportSpend(ws, *http_, At("2026-11-30T00:00:00Z"), At("2026-12-02T00:00:00Z"), "model");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const WarehouseSpendReport& w = r->warehouses.at(0);
  ASSERT_TRUE(w.error.empty()) << w.error;
  EXPECT_EQ(w.unit, "bytes");
  ASSERT_EQ(w.groups.size(), 3u);
  EXPECT_EQ(w.groups[0].key, "model_shop_fct_orders");
  EXPECT_EQ(w.groups[0].bytes_billed, int64_t{3} << 30);
  EXPECT_EQ(w.groups[1].key, "model.shop.fct_orders");
  EXPECT_EQ(w.total.bytes_billed, (int64_t{4} << 30) + (10 << 20));
  EXPECT_EQ(w.total.slot_ms, 10800000);
  EXPECT_EQ(w.ours.bytes_billed, 10 << 20);
}

}  // namespace
}  // namespace dw::observe::spend
