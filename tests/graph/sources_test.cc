// Each lineage source with real-shaped inputs: dbt's manifest (v12 from dbt 1.8), the events
// Flink's OpenLineage integration emits, and the EV example's Kestra flows; and alias stitching
// across them.
#include <gtest/gtest.h>

#include "graph/dbt_manifest.h"
#include "graph/kestra_flows.h"
#include "graph/lineage_query.h"
#include "graph/openlineage_event.h"
#include "tests/graph/graph_test_support.h"
#include "tests/support/build_paths.h"

namespace dw::graph {
namespace {

using test_support::At;
using test_support::FlinkEvent;
using test_support::GraphFixture;
using test_support::ReadJson;
using test_support::TestData;

class SourcesTest : public GraphFixture {
 protected:
  Result<SourceBatch> Dbt(const Json& manifest) {
    return graph_->Read([&](const GraphIndex& ix) { return DbtManifestBatch(manifest, "main", ix); });
  }
  Result<SourceBatch> Event(const Json& e) {
    return graph_->Read([&](const GraphIndex& ix) { return RunEventBatch(e, ix, clock_.Now()); });
  }
};

TEST_F(SourcesTest, DbtManifestV12ModelsSeedsAndDependencies) {
  auto b = Dbt(ReadJson(TestData("dbt-manifest-v12-duckdb-example.json")));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  Apply(*b);
  // customers depends on the three staging models; tests are not assets.
  EXPECT_NE(Edge("dbt://jaffle_shop/stg_orders", "dbt://jaffle_shop/customers"), nullptr);
  EXPECT_NE(Edge("dbt://jaffle_shop/stg_payments", "dbt://jaffle_shop/orders"), nullptr);
  graph_->Read([](const GraphIndex& ix) {
    EXPECT_NE(ix.Find("dbt://jaffle_shop/raw_customers"), kNone);  // a seed
    // The relation a model builds is one table asset, with every name dbt gives it; the model is
    // its producer.
    const AssetIndex table = ix.Find("table://main/main.customers");
    EXPECT_NE(table, kNone);
    EXPECT_EQ(ix.FindAlias("\"jaffle_shop\".\"main\".\"customers\""), table);
    EXPECT_EQ(ix.FindAlias("jaffle_shop.main.customers"), table);
    EXPECT_EQ(ix.FindAlias("model.jaffle_shop.customers"), table);
    EXPECT_NE(ix.FindEdge(ix.Find("dbt://jaffle_shop/customers"), table, Relation::kFeeds), kNone);
    for (AssetIndex a = 0; a < ix.asset_count(); ++a)
      EXPECT_EQ(ix.id(a).find("unique_customers"), std::string::npos) << ix.id(a);
    return 0;
  });
}

TEST_F(SourcesTest, TwoDbtProjectsNeverStaleEachOthersEdgesButARemovedModelGoesStale) {
  std::string text = dw::testing::ReadWholeFile(TestData("dbt-manifest-v12-duckdb-example.json"));
  Json shop = Json::parse(text);
  std::string renamed = text;
  for (std::string::size_type p; (p = renamed.find("jaffle_shop")) != std::string::npos;)
    renamed.replace(p, 11, "marketing");
  Json marketing = Json::parse(renamed);
  auto a = Dbt(shop), b = Dbt(marketing);
  ASSERT_TRUE(a.ok() && b.ok());
  Apply(*a);
  EXPECT_EQ(Apply(*b).edges_marked_stale, 0);  // another project: nothing of jaffle_shop goes stale
  EXPECT_EQ(Apply(*a).edges_marked_stale, 0);  // and re-reading jaffle_shop leaves marketing alone
  ASSERT_NE(Edge("dbt://marketing/stg_orders", "dbt://marketing/orders"), nullptr);
  EXPECT_FALSE(Edge("dbt://marketing/stg_orders", "dbt://marketing/orders")->IsStale());

  // jaffle_shop drops its orders model: exactly the edges touching it go stale, in that project only.
  shop["nodes"].erase("model.jaffle_shop.orders");
  auto c = Dbt(shop);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_GT(Apply(*c).edges_marked_stale, 0);
  ASSERT_NE(Edge("dbt://jaffle_shop/stg_orders", "dbt://jaffle_shop/orders"), nullptr);
  EXPECT_TRUE(Edge("dbt://jaffle_shop/stg_orders", "dbt://jaffle_shop/orders")->IsStale());
  EXPECT_FALSE(Edge("dbt://jaffle_shop/stg_orders", "dbt://jaffle_shop/customers")->IsStale());
  EXPECT_FALSE(Edge("dbt://marketing/stg_orders", "dbt://marketing/orders")->IsStale());
}

TEST_F(SourcesTest, DbtSourcesStitchOntoNotedTablesAndExposuresBecomeDashboards) {
  SourceBatch notes;
  notes.origin = Origin::kNotes;
  notes.assets.push_back({.id = "table://main/member_balances", .owner = "ana@example.com"});
  Apply(notes);
  Json m = {
      {"metadata", {{"dbt_schema_version", "https://schemas.getdbt.com/dbt/manifest/v11.json"},
                    {"project_name", "loyalty"}}},
      {"sources",
       {{"source.loyalty.loyalty.member_balances",
         {{"name", "member_balances"}, {"schema", "loyalty"}, {"identifier", "member_balances"},
          {"relation_name", "\"bq\".\"loyalty\".\"member_balances\""}, {"resource_type", "source"}}}}},
      {"nodes",
       {{"model.loyalty.fct_member_tier",
         {{"name", "fct_member_tier"}, {"package_name", "loyalty"}, {"resource_type", "model"},
          {"config", {{"meta", {{"owner", "ana@example.com"}}}}},
          {"depends_on", {{"nodes", {"source.loyalty.loyalty.member_balances"}}}}}}}},
      {"exposures",
       {{"exposure.loyalty.tiers",
         {{"name", "tiers"}, {"type", "dashboard"}, {"owner", {{"email", "bi@example.com"}}},
          {"depends_on", {{"nodes", {"model.loyalty.fct_member_tier"}}}}}}}}};
  auto b = Dbt(m);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  Apply(*b);
  EXPECT_NE(Edge("table://main/member_balances", "dbt://loyalty/fct_member_tier"), nullptr);
  EXPECT_NE(Edge("dbt://loyalty/fct_member_tier", "dashboard://loyalty/tiers"), nullptr);
  graph_->Read([](const GraphIndex& ix) {
    EXPECT_EQ(ix.FindAlias("\"bq\".\"loyalty\".\"member_balances\""), ix.Find("table://main/member_balances"));
    EXPECT_EQ(ix.str(ix.asset(ix.Find("dashboard://loyalty/tiers")).owner), "bi@example.com");
    EXPECT_EQ(ix.str(ix.asset(ix.Find("dbt://loyalty/fct_member_tier")).owner), "ana@example.com");
    return 0;
  });
}

// An exposure says who owns its consumer, whether customers see it (meta.customer_facing, or
// maturity high) and when it acts (meta.schedule); a malformed one is refused naming its path.
TEST_F(SourcesTest, DbtExposureCarriesOwnerCustomerFacingAndSchedule) {
  auto manifest = [](Json exposures) {
    return Json{{"metadata", {{"dbt_schema_version", "https://schemas.getdbt.com/dbt/manifest/v12.json"},
                              {"project_name", "shop"}}},
                {"nodes",
                 {{"model.shop.orders",
                   {{"name", "orders"}, {"package_name", "shop"}, {"resource_type", "model"}, {"schema", "main"},
                    {"alias", "orders"}}}}},
                {"exposures", std::move(exposures)}};
  };
  auto exposure = [](const std::string& name, Json extra) {
    Json e = {{"name", name}, {"type", "application"}, {"owner", {{"email", name + "@example.com"}}},
              {"depends_on", {{"nodes", {"model.shop.orders"}}}}};
    e.update(extra);
    return e;
  };
  auto b = Dbt(manifest({{"exposure.shop.statements",
                          exposure("statements", {{"meta", {{"customer_facing", true}, {"schedule", "0 6 * * *"}}}})},
                         {"exposure.shop.board", exposure("board", {{"maturity", "high"}})},
                         {"exposure.shop.draft", exposure("draft", {{"maturity", "low"}})},
                         {"exposure.shop.internal",
                          exposure("internal", {{"maturity", "high"}, {"meta", {{"customer_facing", false}}}})}}));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  Apply(*b);
  graph_->Read([](const GraphIndex& ix) {
    auto facts = [&](const std::string& id) {
      AssetIndex a = ix.Find(id);
      EXPECT_NE(a, kNone) << id;
      return a == kNone ? std::make_tuple(std::string(), false, std::string())
                        : std::make_tuple(ix.str(ix.asset(a).owner), (ix.asset(a).flags & kCustomerFacing) != 0,
                                          ix.details(a).schedule);
    };
    EXPECT_EQ(facts("api://shop/statements"), std::make_tuple(std::string("statements@example.com"), true, std::string("0 6 * * *")));
    EXPECT_EQ(std::get<1>(facts("api://shop/board")), true);
    EXPECT_EQ(std::get<1>(facts("api://shop/draft")), false);
    EXPECT_EQ(std::get<1>(facts("api://shop/internal")), false);  // said outright: not customer-facing
    return 0;
  });
  for (Json meta : {Json{{"customer_facing", "yes"}}, Json{{"schedule", "every morning"}}}) {
    auto bad = Dbt(manifest({{"exposure.shop.x", exposure("x", {{"meta", meta}})}}));
    ASSERT_FALSE(bad.ok()) << meta.dump();
    EXPECT_NE(bad.status().message().find("$.exposures['exposure.shop.x'].meta."), std::string::npos)
        << bad.status().message();
  }
}

TEST_F(SourcesTest, DbtManifestOfAnUnknownVersionIsRefused) {
  Json m = ReadJson(TestData("dbt-manifest-v12-duckdb-example.json"));
  for (const char* old : {"v6", "v1", "v13", "vX", "v"}) {
    m["metadata"]["dbt_schema_version"] = std::string("https://schemas.getdbt.com/dbt/manifest/") + old + ".json";
    auto b = Dbt(m);
    ASSERT_FALSE(b.ok()) << old;
    EXPECT_NE(b.status().message().find(std::string(old) + ".json"), std::string::npos);
    EXPECT_NE(b.status().message().find("dw reads manifest v7 to v12 (dbt 1.3 to 1.11) and v20"), std::string::npos)
        << b.status().message();
  }
  m.erase("metadata");
  EXPECT_FALSE(Dbt(m).ok());
  m = ReadJson(TestData("dbt-manifest-v12-duckdb-example.json"));
  m["nodes"] = Json::array();
  auto bad = Dbt(m);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("$.nodes"), std::string::npos);
}

TEST_F(SourcesTest, FlinkOpenLineageEventBecomesJobEdgesWithSchemas) {
  auto b = Event(FlinkEvent("OL-flink1-expected_kafka.json", "COMPLETE"));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  Apply(*b);
  const std::string job = "flink://flink_job_namespace/flink_examples_stateful";
  const std::string in1 = "kafka://kafka-cluster-prod-9092/io.openlineage.flink.kafka.input1";
  const std::string out = "kafka://kafka-cluster-prod-9092/io.openlineage.flink.kafka.output";
  EXPECT_NE(Edge(in1, job), nullptr);
  EXPECT_NE(Edge(job, out), nullptr);
  graph_->Read([&](const GraphIndex& ix) {
    AssetIndex o = ix.Find(out);
    EXPECT_EQ(ix.details(o).columns.size(), 3u);
    EXPECT_EQ(ix.FindAlias("kafka://kafka-cluster-prod:9092/io.openlineage.flink.kafka.output"), o);
    return 0;
  });
  // The job's next complete run no longer reads input2: that edge goes stale.
  Json again = FlinkEvent("OL-flink1-expected_kafka.json", "COMPLETE");
  again["inputs"].erase(1);
  again["run"]["runId"] = "another-run";
  auto b2 = Event(again);
  ASSERT_TRUE(b2.ok());
  EXPECT_EQ(Apply(*b2).edges_marked_stale, 1);
  EXPECT_TRUE(Edge("kafka://kafka-cluster-prod-9092/io.openlineage.flink.kafka.input2", job)->IsStale());
}

TEST_F(SourcesTest, OpenLineageStitchesOntoNotedAssetsBySymlinkOrName) {
  SourceBatch notes;
  notes.origin = Origin::kNotes;
  notes.assets.push_back({.id = "flink://flink/insert-into_default_catalog.default_database.kafka_output"});
  // The team records the catalog table's name once; the event's symlink facet carries it.
  notes.assets.push_back({.id = "kafka://prod/kafka_input",
                          .aliases = {"kafka://kafka-cluster-prod:9092/default_catalog.default_database.kafka_input"}});
  Apply(notes);
  auto b = Event(FlinkEvent("OL-flink2-expected_sql_kafka.json"));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  Apply(*b);
  // The job stitches by its unique name; the input by its symlink.
  const std::string job = "flink://flink/insert-into_default_catalog.default_database.kafka_output";
  EXPECT_NE(Edge("kafka://prod/kafka_input", job), nullptr);
  EXPECT_NE(Edge(job, "kafka://kafka-cluster-prod-9092/io.openlineage.flink.kafka.output"), nullptr);
  graph_->Read([](const GraphIndex& ix) {
    EXPECT_EQ(ix.Find("flink://flink-jobs/insert-into_default_catalog.default_database.kafka_output"), kNone);
    // The event's own name for the input is now an alias too.
    EXPECT_EQ(ix.FindAlias("kafka://kafka-cluster-prod:9092/io.openlineage.flink.kafka.input1"),
              ix.Find("kafka://prod/kafka_input"));
    return 0;
  });
}

TEST_F(SourcesTest, ColumnLineageFacetGivesColumnLevelEdges) {
  Json e = FlinkEvent("OL-flink1-expected_kafka.json", "COMPLETE");
  e["outputs"][0]["facets"]["columnLineage"] = {
      {"fields",
       {{"counter",
         {{"inputFields",
           {{{"namespace", "kafka://kafka-cluster-prod:9092"}, {"name", "io.openlineage.flink.kafka.input1"},
             {"field", "version"}}}}}}}}};
  auto b = Event(e);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  Apply(*b);
  graph_->Read([](const GraphIndex& ix) {
    LineageOptions o;
    o.columns = true;
    o.direction = "upstream";
    auto r = TraceLineage(ix, "kafka://kafka-cluster-prod-9092/io.openlineage.flink.kafka.output", o);
    EXPECT_TRUE(r.ok());
    bool found = false;
    for (const Json& edge : (*r)["edges"])
      if (edge.contains("columns")) {
        found = true;
        EXPECT_EQ(edge["columns"][0]["column"], "counter");
        EXPECT_EQ(edge["columns"][0]["from"][0]["asset"],
                  "kafka://kafka-cluster-prod-9092/io.openlineage.flink.kafka.input1");
        EXPECT_EQ(edge["columns"][0]["from"][0]["column"], "version");
      }
    EXPECT_TRUE(found);
    return 0;
  });
}

TEST_F(SourcesTest, FailedRunIsKeptAsRunHistory) {
  Json e = FlinkEvent("OL-flink1-expected_failed.json");
  auto b = Event(e);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(Apply(*b).runs_recorded, 1);
  auto events = store_->ChangeEventsBetween(At("2026-11-24T00:00:00Z"), At("2026-11-25T00:00:00Z"));
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].asset_id, "flink://flink_job_namespace/flink_failed_job");
  EXPECT_EQ((*events)[0].evidence["message"], "Application Status: FAILED");
}

TEST_F(SourcesTest, MalformedEventsNameTheJsonPath) {
  Json good = FlinkEvent("OL-flink1-expected_kafka.json");
  struct Case {
    std::function<void(Json&)> breakit;
    std::string path;
  } cases[] = {
      // Without `run` an event is a JobEvent, unless its schemaURL says it is a RunEvent.
      {[](Json& e) {
         e.erase("run");
         e["schemaURL"] = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent";
       }, "$.run"},
      {[](Json& e) {
         e.erase("run");
         e.erase("job");
       }, "$"},
      {[](Json& e) {
         e["schemaURL"] = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent";
       }, "$.dataset"},
      {[](Json& e) { e["job"]["name"] = 7; }, "$.job.name"},
      {[](Json& e) { e["eventType"] = "DONE"; }, "$.eventType"},
      {[](Json& e) { e["eventTime"] = "yesterday"; }, "$.eventTime"},
      {[](Json& e) { e["inputs"][1].erase("name"); }, "$.inputs[1].name"},
      {[](Json& e) { e["outputs"][0]["facets"]["schema"]["fields"][2] = "x"; }, "$.outputs[0].facets.schema.fields[2]"},
      {[](Json& e) { e["outputs"] = Json::object(); }, "$.outputs"},
  };
  for (auto& c : cases) {
    Json e = good;
    c.breakit(e);
    Status st = ValidateRunEvent(e);
    ASSERT_FALSE(st.ok()) << c.path;
    EXPECT_EQ(st.message().rfind(c.path + ":", 0), 0u) << st.message();
  }
  EXPECT_FALSE(ValidateRunEvent(Json::array()).ok());
}

TEST_F(SourcesTest, KestraFlowsFindTheTariffChainOfTheEvIncident) {
  std::filesystem::path flows = std::filesystem::path(DW_SOURCE_DIR) / "examples/ev-kestra/flows";
  auto b = graph_->Read([&](const GraphIndex& ix) { return KestraFlowsBatch(flows, {"kestra", "main"}, ix); });
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_TRUE(b->skipped.empty() && b->partly.empty());
  Apply(b->batch);
  // Nobody wrote this down: tariff_sync sets the KV key, rate_session reads it and inserts into
  // raw.rated_sessions.
  EXPECT_NE(Edge("kestra://kestra/pricing.tariff_sync", "kv://kestra/pricing/tariffs_current"), nullptr);
  EXPECT_NE(Edge("kv://kestra/pricing/tariffs_current", "kestra://kestra/energy.rate_session"), nullptr);
  EXPECT_NE(Edge("kestra://kestra/energy.rate_session", "table://main/raw.rated_sessions"), nullptr);
  EXPECT_NE(Edge("pubsub://charging/session-stopped", "kestra://kestra/energy.rate_session"), nullptr);
  // MERGE ... USING reads and writes; the audit's destinationTable is a write; its CTE and the
  // federated query are not tables.
  EXPECT_NE(Edge("kestra://kestra/energy.rerate_day", "table://main/raw.rated_sessions"), nullptr);
  EXPECT_NE(Edge("table://main/pricing.tariffs", "kestra://kestra/energy.rerate_day"), nullptr);
  EXPECT_NE(Edge("kestra://kestra/finance.rate_audit", "table://main/audit.rate_mismatches"), nullptr);
  graph_->Read([](const GraphIndex& ix) {
    EXPECT_EQ(ix.Find("table://main/tariffs"), kNone);
    AssetIndex sync = ix.Find("kestra://kestra/pricing.tariff_sync");
    EXPECT_EQ(ix.details(sync).schedule, "5 0 * * *");
    EXPECT_EQ(ix.str(ix.asset(sync).owner), "maya@example.com");
    // A Flow trigger on revenue_marts: a triggers edge.
    AssetIndex marts = ix.Find("kestra://kestra/energy.revenue_marts");
    AssetIndex statements = ix.Find("kestra://kestra/billing.fleet_statements");
    EXPECT_NE(ix.FindEdge(marts, statements, Relation::kTriggers), kNone);
    return 0;
  });
  // The downstream walk from the tariff flow reaches the rated sessions through the KV key.
  graph_->Read([](const GraphIndex& ix) {
    LineageOptions o;
    o.direction = "downstream";
    auto r = TraceLineage(ix, "kestra://kestra/pricing.tariff_sync", o);
    EXPECT_TRUE(r.ok());
    bool reached = false;
    for (const Json& n : (*r)["nodes"])
      if (n["id"] == "table://main/raw.rated_sessions") {
        reached = true;
        EXPECT_EQ(n["depth"], 3);
      }
    EXPECT_TRUE(reached);
    return 0;
  });
}

TEST_F(SourcesTest, KestraTablesStitchOntoNotedTables) {
  SourceBatch notes;
  notes.origin = Origin::kNotes;
  notes.assets.push_back({.id = "table://main/rated_sessions"});
  notes.assets.push_back({.id = "dbt://energy/fct_session_revenue"});
  Apply(notes);
  std::filesystem::path flows = std::filesystem::path(DW_SOURCE_DIR) / "examples/ev-kestra/flows";
  auto b = graph_->Read([&](const GraphIndex& ix) { return KestraFlowsBatch(flows, {"kestra", "main"}, ix); });
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_TRUE(b->skipped.empty() && b->partly.empty());
  Apply(b->batch);
  EXPECT_NE(Edge("kestra://kestra/energy.rate_session", "table://main/rated_sessions"), nullptr);
  EXPECT_NE(Edge("dbt://energy/fct_session_revenue", "kestra://kestra/billing.fleet_statements"), nullptr);
}

TEST_F(SourcesTest, AFileThatIsNotAFlowIsNamedWithItsLine) {
  SourceBatch b;
  b.origin = Origin::kKestra;
  GraphIndex ix;
  Status st = AddKestraFlow("id: x\ntasks: [", "flows/x.yml", {}, ix, &b);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().rfind("flows/x.yml:", 0), 0u) << st.message();
  st = AddKestraFlow("id: x\ntasks: []\n", "flows/y.yml", {}, ix, &b);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("namespace"), std::string::npos);
}

TEST_F(SourcesTest, KvExpressionsWithAndWithoutNamespace) {
  SourceBatch b;
  b.origin = Origin::kKestra;
  GraphIndex ix;
  ASSERT_TRUE(AddKestraFlow(R"(id: f
namespace: team.a
tasks:
  - id: t
    type: io.kestra.plugin.core.log.Log
    message: "{{ kv('own') }} {{ kv(\"other\", \"team.b\") }} {{ kv('named', namespace='team.c') }}"
  - id: g
    type: io.kestra.plugin.core.kv.Get
    key: fetched
)", "f.yml", {}, ix, &b).ok());
  std::vector<std::string> srcs;
  for (const auto& e : b.edges) srcs.push_back(e.src);
  EXPECT_EQ(srcs, (std::vector<std::string>{"kv://kestra/team.a/own", "kv://kestra/team.b/other",
                                            "kv://kestra/team.c/named", "kv://kestra/team.a/fetched"}));
}

}  // namespace
}  // namespace dw::graph
