// check_compatibility and assess_impact through the dw-schema catalog, against the Schema
// Registry simulator and the held-out fixture (tests/schema/testdata/crm): a rename of
// customer_email to email under NONE reaches the landing table's column, the models that select
// it and the CRM sync that reads them, and not the model that does not.
#include <gtest/gtest.h>

#include "agents/agents.h"
#include "mcp/json_schema.h"
#include "net/http_client.h"
#include "tests/schema/crm_workspace.h"

namespace dw::agents {
namespace {
namespace schema_tools_test {

using dw::testing::NullCall;

std::string Fixture(const std::string& name) { return dw::testing::CrmFixture(name); }

class SchemaToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dw::testing::WriteCrmWorkspace(ws_));
    ASSERT_TRUE(ws_.Load("dw-schema"));
  }
  mcp::ToolResult Call(const std::string& tool, const Json& args) {
    return ws_.Call(tool, args, dw::testing::AgentWorkspace::Args::kValid);
  }
  static std::string ErrorText(const mcp::ToolResult& r) { return r.content.dump(); }
  static bool Lists(const Json& assets, const std::string& id) {
    for (const auto& a : assets)
      if (a.value("asset", "") == id) return true;
    return false;
  }
  static const Json* Find(const Json& assets, const std::string& id) {
    for (const auto& a : assets)
      if (a.value("asset", "") == id) return &a;
    return nullptr;
  }

  dw::testing::AgentWorkspace ws_{FromUnixMillis(1795532400000)};  // 2026-11-24T15:00:00Z
};

TEST_F(SchemaToolsTest, BothToolsAreReadOnlyWithSchemas) {
  for (const char* name : {"check_compatibility", "assess_impact"}) {
    const auto* t = ws_.catalog().FindTool(name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_TRUE(t->annotations.read_only);
    EXPECT_FALSE(t->annotations.destructive);
    EXPECT_TRUE(t->output_schema.has_value());
  }
}

TEST_F(SchemaToolsTest, TheRenameUnderNoneReachesTheColumnTheModelsThatSelectItAndTheCrmSync) {
  auto r = Call("assess_impact", {{"subject", "orders-value"}, {"schema", Fixture("orders-v2-renamed.avsc")}});
  ASSERT_FALSE(r.is_error) << ErrorText(r);
  const Json& b = *r.structured;
  EXPECT_EQ(b["topics"], Json::array({"kafka://prod/orders"}));
  EXPECT_EQ(b["compared_with_version"], 1);
  EXPECT_EQ(b["verdict"]["level"], "NONE");
  EXPECT_TRUE(b["verdict"]["compatible"]);  // the registry accepts it: nothing stops it
  ASSERT_FALSE(b["changed_fields"].empty());
  EXPECT_EQ(b["changed_fields"][0]["field"], "customer_email");
  EXPECT_EQ(b["changed_fields"][0]["change"], "likely_renamed");
  EXPECT_EQ(b["changed_fields"][0]["renamed_to"], "email");
  EXPECT_EQ(b["fields_followed"], Json::array({"customer_email"}));

  EXPECT_TRUE(Lists(b["sinks"], "connect://connect/warehouse-sink-orders"));
  const Json* table = Find(b["tables"], "table://main/shop.orders");
  ASSERT_NE(table, nullptr) << b["tables"].dump();
  EXPECT_EQ((*table)["fields"], Json::array({"customer_email"}));
  EXPECT_EQ((*table)["lineage"], "column_name");
  EXPECT_TRUE((*table)["coarser"]);
  EXPECT_TRUE(Lists(b["models"], "dbt://shop/stg_orders"));
  EXPECT_TRUE(Lists(b["models"], "dbt://shop/crm_customers"));
  EXPECT_FALSE(Lists(b["models"], "dbt://shop/fct_daily_revenue"));
  EXPECT_TRUE(Lists(b["not_affected"], "dbt://shop/fct_daily_revenue"));
  const Json* sync = Find(b["consumers"], "sync://hightouch/customers-to-crm");
  ASSERT_NE(sync, nullptr) << b["consumers"].dump();
  EXPECT_EQ((*sync)["next_run"], "2026-11-24T22:00:00.000Z");
  EXPECT_EQ((*sync)["lineage"], "table");  // the sync's columns are unknown: table lineage, coarsest
  EXPECT_TRUE((*sync)["customer_facing"]);
  bool crm_owner = false;
  for (const auto& o : b["owners"]) crm_owner |= o["owner"] == "crm@example.com";
  EXPECT_TRUE(crm_owner);
}

// Where a hop has only table lineage (the sync's columns are unknown), the answer says which hop
// carried every changed field whole, instead of widening silently.
TEST_F(SchemaToolsTest, AHopWithOnlyTableLineageIsNamedInTheAnswer) {
  auto r = Call("assess_impact", {{"subject", "orders-value"}, {"schema", Fixture("orders-v2-renamed.avsc")}});
  ASSERT_FALSE(r.is_error) << ErrorText(r);
  const Json& b = *r.structured;
  bool sync_hop = false;
  for (const auto& h : b["table_lineage_only"]) {
    sync_hop |= h.value("to", "") == "sync://hightouch/customers-to-crm";
    EXPECT_TRUE(Lists(b["reached"], h.value("to", ""))) << h.dump();
  }
  EXPECT_TRUE(sync_hop) << b["table_lineage_only"].dump();
  EXPECT_NE(b["summary"].get<std::string>().find("have table lineage only"), std::string::npos) << b["summary"];
  // Hops with column lineage or known columns are not listed.
  for (const auto& h : b["table_lineage_only"]) EXPECT_NE(h.value("to", ""), "table://main/shop.orders");
}

TEST_F(SchemaToolsTest, ForwardAgainstTheRegistryNamesTheRemovedField) {
  auto r = Call("check_compatibility", {{"subject", "orders-value"}, {"schema", Fixture("orders-v2-renamed.avsc")}, {"level", "FORWARD"}});
  ASSERT_FALSE(r.is_error) << ErrorText(r);
  const Json& b = *r.structured;
  EXPECT_FALSE(b["compatible"]);
  EXPECT_EQ(b["mode"], "subject");
  EXPECT_EQ(b["checked_versions"], Json::array({1}));
  ASSERT_EQ(b["incompatibilities"].size(), 1u);
  EXPECT_EQ(b["incompatibilities"][0]["type"], "READER_FIELD_MISSING_DEFAULT_VALUE");
  EXPECT_EQ(b["incompatibilities"][0]["path"], "/fields/1");
  EXPECT_EQ(b["incompatibilities"][0]["field"], "customer_email");
  EXPECT_NE(b["incompatibilities"][0]["message"].get<std::string>().find("field customer_email was removed; readers on v1 get no default"),
            std::string::npos);
  // Without a level the subject's own (NONE) applies.
  auto none = Call("check_compatibility", {{"subject", "orders-value"}, {"schema", Fixture("orders-v2-renamed.avsc")}});
  ASSERT_FALSE(none.is_error) << ErrorText(none);
  EXPECT_TRUE((*none.structured)["compatible"]);
  EXPECT_EQ((*none.structured)["level"], "NONE");
}

TEST_F(SchemaToolsTest, ASubjectAloneJudgesItsLatestVersionAgainstTheOnesBefore) {
  // v2 (the rename) is registered under NONE, as the registry allows.
  net::HttpRequest reg;
  reg.method = "POST";
  reg.url = ws_.sim_url() + "/subjects/orders-value/versions";
  reg.body = Json{{"schema", Fixture("orders-v2-renamed.avsc")}}.dump();
  reg.headers.push_back({"Content-Type", "application/vnd.schemaregistry.v1+json"});
  auto http = net::MakeCurlHttpClient();
  auto sent = http->Send(reg);
  ASSERT_TRUE(sent.ok());
  ASSERT_EQ(sent->status, 200) << sent->body;
  auto r = Call("check_compatibility", {{"subject", "orders-value"}, {"level", "FORWARD"}});
  ASSERT_FALSE(r.is_error) << ErrorText(r);
  const Json& b = *r.structured;
  EXPECT_EQ(b["checked_schema_version"], 2);
  EXPECT_FALSE(b["compatible"]);
  std::string text = b.dump();
  EXPECT_NE(text.find("READER_FIELD_MISSING_DEFAULT_VALUE"), std::string::npos);
  EXPECT_NE(text.find("customer_email"), std::string::npos);
  EXPECT_EQ(text.find("fct_daily_revenue"), std::string::npos);
}

TEST_F(SchemaToolsTest, InlineModeNeedsNoRegistry) {
  Json v1 = {{"type", "record"}, {"name", "r"}, {"fields", {{{"name", "a"}, {"type", "int"}}}}};
  Json v2 = {{"type", "record"}, {"name", "r"}, {"fields", {{{"name", "a"}, {"type", "string"}}}}};
  auto r = Call("check_compatibility", {{"schema", v2.dump()}, {"previous", {v1.dump()}}});
  ASSERT_FALSE(r.is_error) << ErrorText(r);
  EXPECT_EQ((*r.structured)["mode"], "inline");
  EXPECT_EQ((*r.structured)["level"], "BACKWARD");
  ASSERT_EQ((*r.structured)["incompatibilities"].size(), 1u);
  EXPECT_EQ((*r.structured)["incompatibilities"][0]["additional_info"], "reader type: STRING not compatible with writer type: INT");
}

TEST_F(SchemaToolsTest, BadSchemasAndUnknownSubjectsAreErrorsNamingWhatIsWrong) {
  auto bad = Call("check_compatibility", {{"subject", "orders-value"}, {"schema", R"({"type":"record","name":"r","fields":[{"name":"a","type":"strng"}]})"}});
  ASSERT_TRUE(bad.is_error);
  EXPECT_NE(ErrorText(bad).find("42201"), std::string::npos);
  EXPECT_NE(ErrorText(bad).find("/fields/0/type"), std::string::npos);
  auto impact = Call("assess_impact", {{"subject", "payments-value"}, {"schema", Fixture("orders-v2-renamed.avsc")}});
  ASSERT_TRUE(impact.is_error);
  EXPECT_NE(ErrorText(impact).find("payments-value has no versions"), std::string::npos);
  auto version = Call("check_compatibility", {{"subject", "orders-value"}, {"schema", Fixture("orders-v2-renamed.avsc")}, {"version", 7}});
  ASSERT_TRUE(version.is_error);
  EXPECT_NE(ErrorText(version).find("40402"), std::string::npos);
  auto json_type = Call("assess_impact", {{"subject", "orders-value"}, {"schema", R"({"type":"object"})"}, {"schema_type", "JSON"}});
  ASSERT_TRUE(json_type.is_error);
  EXPECT_NE(ErrorText(json_type).find("different schema type"), std::string::npos);
}

}  // namespace schema_tools_test
}  // namespace
}  // namespace dw::agents
