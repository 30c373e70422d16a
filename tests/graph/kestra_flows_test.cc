// Kestra flows as real producers write them (tests/graph/testdata/kestra/mixed): templated names
// resolved or kept as marked placeholders, a template that never closes left out with its reason,
// files that are not flows skipped without losing the others, subflows, Kafka consume and produce,
// JDBC triggers, connections that name their warehouse, and schedules that are disabled, zoned or
// refused.
#include "graph/kestra_flows.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "base/identifiers.h"
#include "tests/graph/graph_test_support.h"

namespace dw::graph {
namespace {

using test_support::GraphFixture;
using test_support::TestData;

bool Mentions(const std::vector<std::string>& lines, const std::string& a, const std::string& b = "") {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
    return l.find(a) != std::string::npos && l.find(b) != std::string::npos;
  });
}

class KestraFlowsTest : public GraphFixture {
 protected:
  void SetUp() override {
    auto r = graph_->Read([&](const GraphIndex& ix) {
      return KestraFlowsBatch(TestData("kestra/mixed"), {"kestra", "main", {}}, ix);
    });
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    read_ = std::move(r).value();
    Apply(read_.batch);
  }
  bool Has(const std::string& id) {
    return graph_->Read([&](const GraphIndex& ix) { return ix.Find(id) != kNone; });
  }
  bool Triggers(const std::string& src, const std::string& dst) {
    return graph_->Read([&](const GraphIndex& ix) {
      AssetIndex s = ix.Find(src), d = ix.Find(dst);
      return s != kNone && d != kNone && ix.FindEdge(s, d, Relation::kTriggers) != kNone;
    });
  }
  AssetDetails Details(const std::string& id) {
    return graph_->Read([&](const GraphIndex& ix) {
      AssetIndex a = ix.Find(id);
      return a == kNone ? AssetDetails{} : ix.details(a);
    });
  }

  KestraFlowsRead read_;
};

TEST_F(KestraFlowsTest, FilesThatAreNotFlowsAreSkippedWithTheirReasonAndTheOthersAreRead) {
  EXPECT_EQ(read_.flows, 7u);
  ASSERT_EQ(read_.skipped.size(), 2u);
  EXPECT_TRUE(Mentions(read_.skipped, "no_namespace.yml:1:", "namespace"));
  EXPECT_TRUE(Mentions(read_.skipped, "not_yaml.yaml:", "not valid YAML"));
  std::vector<std::string> warnings = KestraReadWarnings(read_, "lineage.kestra_flows");
  ASSERT_FALSE(warnings.empty());
  EXPECT_EQ(warnings[0], "lineage.kestra_flows: 2 flow(s) skipped, 2 partly read, 7 read");
  EXPECT_FALSE(Has("table://main/marts.orphaned"));
}

TEST_F(KestraFlowsTest, ResolvableTemplatesBecomeTheNamesTheyStandFor) {
  const std::string flow = "kestra://kestra/shop.exports.orders_export";
  // vars.table is itself a template over vars.schema; vars['schema'] in SQL; an input's default.
  EXPECT_NE(Edge(flow, "table://main/analytics.orders_daily"), nullptr);
  EXPECT_NE(Edge("table://main/analytics.orders_daily", flow), nullptr);
  EXPECT_NE(Edge(flow, "table://main/exports.orders_snapshot"), nullptr);
  EXPECT_NE(Edge(flow, "kv://kestra/shop.exports/last_export_orders_export"), nullptr);
  EXPECT_TRUE(Details("table://main/exports.orders_snapshot").tags.empty());
}

TEST_F(KestraFlowsTest, RunTimeTemplatesAreKeptAsMarkedPlaceholders) {
  const std::string flow = "kestra://kestra/shop.exports.orders_export";
  // now() and an input without a default are only known when the flow runs.
  const std::string dated = "table://main/raw.orders_$now_date_yyyyMMdd";
  const std::string regional = "table://main/exports.orders_$inputs_region";
  EXPECT_NE(Edge(dated, flow), nullptr);
  EXPECT_NE(Edge(flow, regional), nullptr);
  for (const std::string& id : {dated, regional}) {
    AssetDetails d = Details(id);
    EXPECT_EQ(d.tags, std::vector<std::string>{"templated"}) << id;
    EXPECT_NE(d.notes.find("Kestra flow shop.exports.orders_export"), std::string::npos) << d.notes;
    EXPECT_NE(d.notes.find("{{"), std::string::npos) << d.notes;
  }
  // A project held in a secret is not a name: the topic stays under the Pub/Sub default instance.
  EXPECT_NE(Edge("pubsub://pubsub/order-events", flow), nullptr);
  graph_->Read([](const GraphIndex& ix) {
    for (AssetIndex a = 0; a < ix.asset_count(); ++a) {
      EXPECT_EQ(ix.id(a).find("secret"), std::string::npos) << ix.id(a);
      EXPECT_EQ(ix.id(a).find("---"), std::string::npos) << ix.id(a);
    }
    return 0;
  });
}

TEST_F(KestraFlowsTest, ATemplateThatNeverClosesLeavesOutThatValueOnly) {
  const std::string flow = "kestra://kestra/shop.exports.half_broken";
  EXPECT_NE(Edge("table://main/raw.customers", flow), nullptr);
  EXPECT_NE(Edge(flow, "table://main/marts.customers"), nullptr);
  EXPECT_FALSE(Has("table://main/raw.payments"));
  EXPECT_TRUE(Mentions(read_.partly, "half_broken.yml: task bad: sql:", "never closes"));
  EXPECT_TRUE(Mentions(read_.partly, "half_broken.yml: task bad_key: key:", "never closes"));
}

TEST_F(KestraFlowsTest, SubflowsKafkaAndJdbcTriggersAreLineage) {
  const std::string flow = "kestra://kestra/shop.etl.pipeline";
  // Subflow tasks (the current type nested in a ForEach, the legacy one with a templated namespace).
  EXPECT_TRUE(Triggers(flow, "kestra://kestra/shop.etl.load_one"));
  EXPECT_TRUE(Triggers(flow, "kestra://kestra/shop.etl.legacy_load"));
  // Consume reads its topic ({{ vars.in_topic }}); Produce writes one.
  EXPECT_NE(Edge("kafka://kafka/clicks", flow), nullptr);
  EXPECT_NE(Edge(flow, "kafka://kafka/sessions-enriched"), nullptr);
  // The JDBC trigger's polling SQL reads the queue, its afterSQL writes it, in the warehouse its
  // url names.
  EXPECT_NE(Edge("table://postgres-pg.internal-shop/public.order_queue", flow), nullptr);
  EXPECT_NE(Edge(flow, "table://postgres-pg.internal-shop/public.order_queue"), nullptr);
}

TEST_F(KestraFlowsTest, ReadingDruidAndWritingRedshiftIsNoSelfCycle) {
  const std::string flow = "kestra://kestra/shop.etl.pipeline";
  EXPECT_NE(Edge("table://druid-druid-broker/events.sessions", flow), nullptr);
  EXPECT_NE(Edge(flow, "table://redshift-dw.example.com-dev/events.sessions"), nullptr);
  EXPECT_NE(Edge("table://redshift-dw.example.com-dev/staging.sessions", flow), nullptr);
  EXPECT_EQ(Edge(flow, "table://druid-druid-broker/events.sessions"), nullptr);
  EXPECT_FALSE(Has("table://main/events.sessions"));
}

TEST_F(KestraFlowsTest, SchedulesKeepTheirZoneAndTheirDisabledState) {
  AssetDetails zoned = Details("kestra://kestra/shop.reports.morning_report");
  EXPECT_EQ(zoned.schedule, "0 7 * * *");  // the enabled trigger, not the disabled one before it
  EXPECT_EQ(zoned.schedule_timezone, "Europe/Paris");
  EXPECT_FALSE(zoned.schedule_disabled);
  AssetDetails paused = Details("kestra://kestra/shop.reports.paused_sync");
  EXPECT_EQ(paused.schedule, "30 2 * * *");
  EXPECT_TRUE(paused.schedule_disabled);
  AssetDetails retired = Details("kestra://kestra/shop.reports.retired_load");
  EXPECT_EQ(retired.schedule, "@hourly");
  EXPECT_TRUE(retired.schedule_disabled);
}

TEST_F(KestraFlowsTest, TriggersKestraWouldRefuseAreLeftOutWithTheFlowAndReason) {
  EXPECT_TRUE(Mentions(read_.partly, "bad_schedules.yml: trigger mars_time: timezone 'Mars/Olympus_Mons'"));
  EXPECT_TRUE(Mentions(read_.partly, "bad_schedules.yml: trigger hour_25: cron", "hour: 25"));
  EXPECT_TRUE(Mentions(read_.partly, "bad_schedules.yml: trigger last_day: cron", "'L'"));
  EXPECT_TRUE(Details("kestra://kestra/shop.reports.bad_schedules").schedule.empty());
  EXPECT_NE(Edge("kestra://kestra/shop.reports.bad_schedules", "table://main/marts.bad_schedule_out"), nullptr);
}

TEST(KestraFlowWarehouses, AConnectionToAWorkspaceWarehouseLandsInIt) {
  KestraFlowOptions options{"kestra", "main", {{"main", "sqlite", "main"}, {"pg", "postgres", "shop"}}};
  SourceBatch b;
  b.origin = Origin::kKestra;
  GraphIndex ix;
  ASSERT_TRUE(AddKestraFlow(R"(id: f
namespace: n
tasks:
  - id: a
    type: io.kestra.plugin.jdbc.postgresql.Query
    url: jdbc:postgresql://db.internal:5432/shop?sslmode=require&password=hunter2
    sql: INSERT INTO marts.daily SELECT * FROM raw.orders
  - id: b
    type: io.kestra.plugin.jdbc.postgresql.Query
    url: "{{ secret('PG_URL') }}"
    sql: SELECT * FROM raw.refunds
  - id: c
    type: io.kestra.plugin.jdbc.sqlite.Query
    url: jdbc:sqlite:/data/app.db
    sql: SELECT * FROM local_events
)", "f.yml", options, ix, &b).ok());
  std::vector<std::pair<std::string, std::string>> edges;
  for (const auto& e : b.edges) edges.emplace_back(e.src, e.dst);
  using P = std::pair<std::string, std::string>;
  EXPECT_EQ(edges, (std::vector<P>{{"table://pg/raw.orders", "kestra://kestra/n.f"},
                                   {"kestra://kestra/n.f", "table://pg/marts.daily"},
                                   {"table://main/raw.refunds", "kestra://kestra/n.f"},
                                   {"table://main/local_events", "kestra://kestra/n.f"}}));
  for (const auto& [s, d] : edges) EXPECT_EQ((s + d).find("hunter2"), std::string::npos);
}

TEST(KestraFlowSql, APostgresUpsertWritesItsTargetAndNoTableCalledSet) {
  SourceBatch b;
  b.origin = Origin::kKestra;
  GraphIndex ix;
  ASSERT_TRUE(AddKestraFlow(R"(id: upsert
namespace: n
tasks:
  - id: u
    type: io.kestra.plugin.jdbc.postgresql.Query
    sql: |
      INSERT INTO marts.balances (id, amount) SELECT id, amount FROM raw.payments
      ON CONFLICT (id) DO UPDATE SET amount = EXCLUDED.amount
  - id: quoted
    type: io.kestra.plugin.jdbc.postgresql.Query
    sql: INSERT INTO "Reporting"."Monthly Totals" SELECT * FROM "raw"."orders"
)", "u.yml", {}, ix, &b).ok());
  std::vector<std::string> ids;
  for (const auto& e : b.edges) ids.push_back(e.src == "kestra://kestra/n.upsert" ? e.dst : e.src);
  EXPECT_EQ(ids, (std::vector<std::string>{"table://main/raw.payments", "table://main/marts.balances",
                                           "table://main/raw.orders", "table://main/Reporting.Monthly_Totals"}));
  for (const auto& a : b.assets) EXPECT_TRUE(IsCanonicalAssetId(a.id)) << a.id;
  for (const auto& e : b.edges) EXPECT_TRUE(IsCanonicalAssetId(e.src) && IsCanonicalAssetId(e.dst)) << e.src << e.dst;
}

}  // namespace
}  // namespace dw::graph
