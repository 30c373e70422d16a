// The acceptance story of the two seed incidents, through the services the surfaces call: the
// loyalty blast radius reaches the 22:00 Braze sync with its impact count; the EV tariff chain is
// found from the Kestra flows alone. Also the MCP tools (through RunTool, schema-checked) and the
// OpenLineage HTTP route with a gzip body.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sqlite3.h>

#include <filesystem>

#include "agents/agents.h"
#include "tests/support/build_paths.h"
#include "workspace/graph_answers.h"
#include "base/rfc3339.h"
#include "mcp/http_transport.h"
#include "mcp/tool_invocation.h"
#include "tests/support/subprocess.h"
#include "tests/support/null_tool_call.h"

namespace dw::workspace {
namespace {
namespace graph_app_test {

namespace fs = std::filesystem;

TimePoint At(const char* t) { return *ParseRfc3339(t); }

using dw::testing::NullCall;

// Copies an example workspace into a temp folder (state and warehouse stay out of the tree).
void CopyExample(const std::string& name, const fs::path& to) {
  fs::copy(fs::path(DW_SOURCE_DIR) / "examples" / name, to,
           fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

void RunSql(const fs::path& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << msg;
}

class LoyaltyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CopyExample("loyalty-flink", dir_.path());
    RunSql(dir_.path() / "warehouse.db", dw::testing::ReadWholeFile(dir_.path() / "warehouse.sql"));
    // The incident: after the 14:02 restore, 120 members' balances were rewritten from zero.
    RunSql(dir_.path() / "warehouse.db",
           "UPDATE member_balances SET balance = 0, updated_at = '2026-11-24T14:30:00.000Z' WHERE member_id <= 120");
    services_ = Services::Load(dir_.path(), clock_);
    ASSERT_TRUE(services_->workspace_status().ok()) << services_->workspace_status().message();
  }
  dw::testing::TempDir dir_;
  SimulatedClock clock_{At("2026-11-24T15:15:00Z")};
  std::shared_ptr<Services> services_;
};

TEST_F(LoyaltyTest, BlastRadiusReachesTheTierModelAndThe2200BrazeSyncWithItsImpactCount) {
  auto r = BlastRadiusAnswer(*services_, {"table://main/member_balances"}, At("2026-11-24T14:02:00Z"), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const Json& b = *r;
  ASSERT_TRUE(b["by_kind"].contains("dbt"));
  EXPECT_EQ(b["by_kind"]["dbt"]["assets"][0]["id"], "dbt://loyalty/fct_member_tier");
  EXPECT_EQ(b["by_kind"]["dbt"]["assets"][0]["depth"], 1);
  // Most urgent first: the dbt job that builds the tier model at 21:00, then the 22:00 sync.
  ASSERT_EQ(b["consumers"].size(), 2u);
  EXPECT_EQ(b["consumers"][0]["id"], "dbt://loyalty/fct_member_tier");
  EXPECT_EQ(b["consumers"][0]["next_run"], "2026-11-24T21:00:00.000Z");
  const Json& sync = b["consumers"][1];
  EXPECT_EQ(sync["id"], "sync://hightouch/tier-changes-to-braze");
  EXPECT_EQ(sync["next_run"], "2026-11-24T22:00:00.000Z");
  EXPECT_EQ(sync["time_left"], "6h 45m");
  EXPECT_TRUE(sync["customer_facing"].get<bool>());
  EXPECT_EQ(sync["owner"], "ana@example.com");
  EXPECT_EQ(b["customer_facing"], Json({"sync://hightouch/tier-changes-to-braze"}));
  ASSERT_EQ(b["impact"].size(), 1u);
  EXPECT_EQ(b["impact"][0]["asset"], "sync://hightouch/tier-changes-to-braze");
  EXPECT_EQ(b["impact"][0]["count"], 120);
  EXPECT_EQ(b["provenance"]["notes"]["kind"], "declared");
  EXPECT_TRUE(b["warnings"].empty());
}

TEST_F(LoyaltyTest, LineageUpstreamOfTheSyncReachesTheFlinkJob) {
  graph::LineageOptions o;
  o.direction = "upstream";
  o.depth = 10;
  auto r = LineageAnswer(*services_, "sync://hightouch/tier-changes-to-braze", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  bool flink = false;
  for (const Json& n : (*r)["nodes"]) flink |= n["id"] == "flink://flink/points-balance";
  EXPECT_TRUE(flink);
}

TEST_F(LoyaltyTest, McpToolsAnswerThroughTheirSchemas) {
  auto agent = agents::FindAgent("dw-context-catalog");
  ASSERT_NE(agent, nullptr);
  auto catalog = agents::BuildAgentCatalog(*agent, services_);
  NullCall call;
  auto run = [&](const char* name, Json args) {
    const mcp::ToolSpec* t = catalog->FindTool(name);
    EXPECT_NE(t, nullptr) << name;
    return t ? mcp::RunTool(*t, args, call) : Json();
  };
  Json blast = run("blast_radius_analysis", {{"assets", {"table://main/member_balances"}},
                                             {"since", "2026-11-24T14:02:00Z"}});
  ASSERT_FALSE(blast.value("isError", false)) << blast.dump();
  EXPECT_EQ(blast["structuredContent"]["consumers"][1]["next_run"], "2026-11-24T22:00:00.000Z");
  EXPECT_EQ(blast["structuredContent"]["impact"][0]["count"], 120);

  Json lineage = run("trace_cross_platform_lineage", {{"asset", "dbt://loyalty/fct_member_tier"}, {"depth", 2}});
  ASSERT_FALSE(lineage.value("isError", false)) << lineage.dump();
  EXPECT_FALSE(lineage["structuredContent"]["edges"].empty());

  Json search = run("search_assets", {{"query", "balances"}, {"kind", "table"}});
  ASSERT_FALSE(search.value("isError", false)) << search.dump();
  EXPECT_EQ(search["structuredContent"]["assets"][0]["id"], "table://main/member_balances");

  Json found = run("get_asset", {{"id", "sync://hightouch/tier-changes-to-braze"}});
  EXPECT_TRUE(found["structuredContent"]["found"].get<bool>());
  EXPECT_EQ(found["structuredContent"]["asset"]["schedule"], "0 22 * * *");
  Json missing = run("get_asset", {{"id", "table://main/member_balance"}});
  EXPECT_FALSE(missing["structuredContent"]["found"].get<bool>());
  EXPECT_EQ(missing["structuredContent"]["closest"][0], "table://main/member_balances");

  // Bad arguments are refused by the schema or with a sentence, never a crash.
  EXPECT_TRUE(run("trace_cross_platform_lineage", {{"asset", "x"}, {"depth", 99}}).value("isError", false));
  EXPECT_TRUE(run("blast_radius_analysis", {{"assets", {"nope://x/y"}}}).value("isError", false));
  EXPECT_TRUE(run("blast_radius_analysis", {{"assets", {"table://main/member_balances"}}, {"since", "noon"}})
                  .value("isError", false));
}

TEST_F(LoyaltyTest, OpenLineageRouteStoresGzipBodiesAndRefusesBadOnesWithTheirPath) {
  mcp::StreamableHttpServer server;
  auto services = services_;
  ASSERT_TRUE(server.AddJsonRoute("POST", "/api/v1/lineage", [services](const net::JsonRouteRequest& req) {
    return LineageRoute(*services, req);
  }).ok());
  auto agent = agents::FindAgent("dw-context-catalog");
  ASSERT_TRUE(server.Start({}, {{"/mcp", agents::BuildAgentCatalog(*agent, services_), agents::ServerInfoFor(*agent)}}).ok());
  httplib::Client client("127.0.0.1", server.port());
  client.set_compress(true);  // gzip request bodies
  Json event = {{"eventType", "COMPLETE"},
                {"eventTime", "2026-11-24T15:00:00Z"},
                {"run", {{"runId", "r-1"}}},
                {"job", {{"namespace", "flink-jobs"}, {"name", "points-balance"},
                         {"facets", {{"jobType", {{"integration", "FLINK"}, {"jobType", "JOB"}}}}}}},
                {"inputs", {{{"namespace", "kafka://broker:9092"}, {"name", "points-events"}}}},
                {"outputs", {{{"namespace", "kafka://broker:9092"}, {"name", "member-balances"}}}},
                {"producer", "https://github.com/OpenLineage/OpenLineage/tree/1.26.0/integration/flink"},
                {"schemaURL", "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"}};
  auto res = client.Post("/api/v1/lineage", event.dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 201) << res->body;
  // Stitched onto the noted job and topics by name.
  auto graph = services_->graph();
  ASSERT_TRUE(graph.ok());
  (*graph)->Read([](const graph::GraphIndex& ix) {
    graph::AssetIndex job = ix.Find("flink://flink/points-balance");
    graph::AssetIndex in = ix.Find("kafka://prod/points-events");
    graph::EdgeIndex e = ix.FindEdge(in, job, graph::Relation::kFeeds);
    EXPECT_NE(e, graph::kNone);
    if (e != graph::kNone) {
      EXPECT_TRUE(ix.edge(e).origins & (1u << static_cast<int>(graph::Origin::kOpenLineage)));
    }
    return 0;
  });
  size_t assets_before = (*graph)->Read([](const graph::GraphIndex& ix) { return ix.asset_count(); });
  Json bad = event;
  bad["outputs"][0].erase("name");
  bad["job"]["name"] = "brand-new-job";
  res = client.Post("/api/v1/lineage", bad.dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  Json body = Json::parse(res->body);
  EXPECT_EQ(body["error"].get<std::string>().rfind("$.outputs[0].name:", 0), 0u) << res->body;
  EXPECT_EQ((*graph)->Read([](const graph::GraphIndex& ix) { return ix.asset_count(); }), assets_before);
  res = client.Post("/api/v1/lineage", "{not json", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  server.Stop();
}

// Day one's mart (issue 35): the checks: key, the table id, the relation dbt wrote and the dbt
// unique id of the model that builds it are one asset in the answers every surface gives (the CLI,
// the MCP tools and the desk call these): the same asset, the same blast radius, the model upstream.
TEST(OnboardingNamesTest, EveryNameOfTheMartGivesTheSameAnswers) {
  dw::testing::TempDir dir;
  CopyExample("scenarios/kestra-dbt-onboarding-two-incidents/workspace", dir.path());
  SimulatedClock clock(At("2026-12-02T10:15:00Z"));
  auto services = Services::Load(dir.path(), clock);
  ASSERT_TRUE(services->workspace_status().ok()) << services->workspace_status().message();
  const std::string mart = "table://main/daily_revenue";
  auto canonical = BlastRadiusAnswer(*services, {mart}, std::nullopt, {});
  ASSERT_TRUE(canonical.ok()) << canonical.status().ToString();
  for (const std::string& name : std::vector<std::string>{"main.daily_revenue", mart, "\"main\".\"daily_revenue\"", "model.shop.fct_daily_revenue"}) {
    SCOPED_TRACE(name);
    auto asset = AssetAnswer(*services, name);
    ASSERT_TRUE(asset.ok()) << asset.status().ToString();
    EXPECT_NE(asset->dump().find("\"" + mart + "\""), std::string::npos) << asset->dump();
    auto b = BlastRadiusAnswer(*services, {name}, std::nullopt, {});
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_EQ((*b)["consumers"], (*canonical)["consumers"]);
    graph::LineageOptions o;
    o.direction = "upstream";
    o.depth = 1;
    auto up = LineageAnswer(*services, name, o);
    ASSERT_TRUE(up.ok()) << up.status().ToString();
    EXPECT_NE(up->dump().find("dbt://shop/fct_daily_revenue"), std::string::npos) << up->dump();
  }
}

TEST(EvKestraTest, TheTariffChainIsFoundFromTheFlowYaml) {
  dw::testing::TempDir dir;
  CopyExample("ev-kestra", dir.path());
  SimulatedClock clock(At("2026-11-25T02:36:00Z"));
  auto services = Services::Load(dir.path(), clock);
  ASSERT_TRUE(services->workspace_status().ok()) << services->workspace_status().message();
  graph::LineageOptions o;
  o.direction = "downstream";
  o.depth = 3;
  auto r = LineageAnswer(*services, "kestra://kestra/pricing.tariff_sync", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE((*r)["warnings"].empty()) << (*r)["warnings"].dump();
  auto asserted_by_kestra = [&](const std::string& src, const std::string& dst) {
    for (const Json& e : (*r)["edges"])
      if (e["src"] == src && e["dst"] == dst)
        for (const Json& s : e["sources"])
          if (s["origin"] == "kestra" && !s["stale"].get<bool>()) return true;
    return false;
  };
  EXPECT_TRUE(asserted_by_kestra("kestra://kestra/pricing.tariff_sync", "kv://kestra/pricing/tariffs_current"));
  EXPECT_TRUE(asserted_by_kestra("kv://kestra/pricing/tariffs_current", "kestra://kestra/energy.rate_session"));
  EXPECT_TRUE(asserted_by_kestra("kestra://kestra/energy.rate_session", "table://main/rated_sessions"));
  // And the blast radius from the KV key reaches the 07:30 customer-facing statements.
  auto b = BlastRadiusAnswer(*services, {"kv://kestra/pricing/tariffs_current"}, std::nullopt, {});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  bool statements = false;
  for (const Json& c : (*b)["consumers"])
    if (c["id"] == "kestra://kestra/billing.fleet_statements") {
      statements = true;
      EXPECT_EQ(c["next_run"], "2026-11-25T07:30:00.000Z");
      EXPECT_TRUE(c["customer_facing"].get<bool>());
    }
  EXPECT_TRUE(statements);
}

}  // namespace graph_app_test
}  // namespace
}  // namespace dw::workspace
