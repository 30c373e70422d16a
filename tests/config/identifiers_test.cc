// Canonical asset ids and check table references (src/base/identifiers.h). The suite lives with
// the config tests because the workspace file is where people first write these ids.
#include <gtest/gtest.h>

#include "base/identifiers.h"

namespace dw {
namespace {

TEST(ConfigIdentifiersTest, ParsesEveryKindFromTheArchitecture) {
  for (const char* id :
       {"kafka://prod/points-events", "flink://flink/points-balance",
        "table://main/loyalty.member_balances", "dbt://loyalty/fct_member_tier",
        "kestra://kestra/pricing.tariff_sync", "connect://connect/bq-sink-balances",
        "sync://hightouch/tier-changes-to-braze", "dashboard://superset/network-revenue",
        "kv://kestra/pricing/tariffs_current", "api://pricing/v1/tariffs/current",
        "pubsub://charging/session-stopped", "subject://registry/member-balances-value",
        "table://main/member_balances"}) {
    auto parsed = ParseAssetId(id);
    ASSERT_TRUE(parsed.ok()) << id << ": " << parsed.status().ToString();
    EXPECT_EQ(parsed->ToString(), id);
  }
  auto t = ParseAssetId("table://main/loyalty.member_balances");
  EXPECT_EQ(t->kind, "table");
  EXPECT_EQ(t->instance, "main");
  EXPECT_EQ(t->name, "loyalty.member_balances");
}

TEST(ConfigIdentifiersTest, RejectsNonCanonicalIds) {
  auto why = [](const char* id) { return ParseAssetId(id).status().message(); };
  EXPECT_NE(why("points-events").find("expected <kind>://<instance>/<name>"), std::string::npos);
  EXPECT_NE(why("topic://prod/x").find("unknown kind 'topic'"), std::string::npos);
  EXPECT_NE(why("Kafka://prod/x").find("lower case ('kafka')"), std::string::npos);
  EXPECT_NE(why("kafka://prod").find("missing"), std::string::npos);
  EXPECT_NE(why("kafka:///x").find("missing"), std::string::npos);
  EXPECT_NE(why("kafka://prod/").find("name after the instance is empty"), std::string::npos);
  EXPECT_NE(why("kafka://pr od/x").find("instance"), std::string::npos);
  EXPECT_NE(why("kafka://prod/a b").find("whitespace"), std::string::npos);
  EXPECT_NE(why("kv://kestra/ns//key").find("empty path segment"), std::string::npos);
  EXPECT_NE(why("table://main/a.b.c").find("schema.table"), std::string::npos);
  EXPECT_NE(why("kestra://kestra/flow_without_namespace").find("namespace.flow_id"), std::string::npos);
  EXPECT_FALSE(IsCanonicalAssetId("dashboard://superset/a?b"));
  EXPECT_TRUE(IsKnownAssetKind("sync"));
  EXPECT_FALSE(IsKnownAssetKind("SYNC"));
}

TEST(ConfigIdentifiersTest, TableReferencesInChecks) {
  auto three = ParseTableRef("main.loyalty.member_balances");
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(three->warehouse, "main");
  EXPECT_EQ(three->schema, "loyalty");
  EXPECT_EQ(three->QualifiedName(), "loyalty.member_balances");
  EXPECT_EQ(three->AssetIdString(), "table://main/loyalty.member_balances");
  auto two = ParseTableRef("main.member_balances");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->schema, "");
  EXPECT_EQ(two->AssetIdString(), "table://main/member_balances");
  auto id = ParseTableRef("table://pg/public.orders");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->warehouse, "pg");
  EXPECT_EQ(id->schema, "public");
  EXPECT_EQ(id->table, "orders");
  EXPECT_FALSE(ParseTableRef("orders").ok());
  EXPECT_FALSE(ParseTableRef("a.b.c.d").ok());
  EXPECT_FALSE(ParseTableRef("main..t").ok());
  EXPECT_FALSE(ParseTableRef("main.t; DROP TABLE x").ok());
  EXPECT_FALSE(ParseTableRef("kafka://prod/t").ok());
}

TEST(ConfigIdentifiersTest, ConfigNames) {
  EXPECT_TRUE(IsValidConfigName("main"));
  EXPECT_TRUE(IsValidConfigName("pg_2-eu"));
  EXPECT_FALSE(IsValidConfigName("2pg"));
  EXPECT_FALSE(IsValidConfigName("my.wh"));
  EXPECT_FALSE(IsValidConfigName(""));
}

}  // namespace
}  // namespace dw
