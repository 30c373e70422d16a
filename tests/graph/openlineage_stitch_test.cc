// OpenLineage datasets placed in the workspace's warehouses by the naming spec: one table, one id,
// whoever names it; a table of another database that only shares a short name stays apart. A
// seeded family of estates (several warehouses per system, tables sharing short names, hosts,
// databases and case varied) checks each event's dataset lands where the spec says.
#include "graph/openlineage_stitch.h"

#include <gtest/gtest.h>

#include <cctype>
#include <random>

#include "graph/ingest.h"
#include "graph/openlineage_reader.h"
#include "tests/graph/graph_test_support.h"
#include "tests/support/subprocess.h"
#include "workspace/services.h"

namespace dw::graph {
namespace {

using test_support::GraphFixture;

TEST(OlWarehouseDatasetTest, ReadsTheSpecsNamesForTheWorkspacesSystems) {
  struct Case {
    std::string ns, name;
    bool placed;
    std::string system, host, database, table;
  };
  const std::vector<Case> cases = {
      {"postgres://db.internal:5432", "shop.public.orders", true, "postgres", "db.internal", "shop", "public.orders"},
      {"postgresql://DB.Internal", "shop.sales.orders", true, "postgres", "db.internal", "shop", "sales.orders"},
      {"postgres://[::1]:5432", "shop.public.orders", true, "postgres", "::1", "shop", "public.orders"},
      {"postgres://etl:secret@db:5432", "shop.public.orders", true, "postgres", "db", "shop", "public.orders"},
      {"postgres://db:5432", "public.orders", true, "postgres", "db", "", "public.orders"},
      {"postgres://db:5432", R"("my.db"."Sales"."Order Lines")", true, "postgres", "db", "my.db", "Sales.Order_Lines"},
      {"snowflake://acme-prod", "ANALYTICS.PUBLIC.ORDERS", true, "snowflake", "acme-prod", "ANALYTICS", "PUBLIC.ORDERS"},
      {"bigquery", "acme-data.sales.orders", true, "bigquery", "", "acme-data", "sales.orders"},
      // What the spec does not place in a workspace warehouse keeps the generic naming.
      {"bigquery", "sales.orders", false, "", "", "", ""},
      {"postgres://db:5432", "orders", false, "", "", "", ""},
      {"postgres://db:5432", "a..b", false, "", "", "", ""},
      {"postgres://db:5432", "a.b.c.d", false, "", "", "", ""},
      {"mysql://db:3306", "shop.orders", false, "", "", "", ""},
      {"kafka://broker:9092", "orders", false, "", "", "", ""},
      {"s3://bucket", "path/to/file", false, "", "", "", ""},
      {"bigquery://x", "p.d.t", false, "", "", "", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.ns + " " + c.name);
    auto d = ParseOlWarehouseDataset(c.ns, c.name);
    ASSERT_EQ(d.has_value(), c.placed);
    if (!d) continue;
    EXPECT_EQ(d->target.system, c.system);
    EXPECT_EQ(d->target.host, c.host);
    EXPECT_EQ(d->target.database, c.database);
    EXPECT_EQ(d->table, c.table);
  }
}

// The event's one output dataset, written by one generic job.
std::string OutputEvent(const std::string& ns, const std::string& name) {
  Json e = {{"eventType", "COMPLETE"},
            {"eventTime", "2026-11-24T13:00:00Z"},
            {"producer", "https://example.com/spark"},
            {"run", {{"runId", "0190f1a0-0000-7000-8000-000000000001"}}},
            {"job", {{"namespace", "spark-prod"}, {"name", "load_orders"}}},
            {"inputs", Json::array()},
            {"outputs", Json::array({{{"namespace", ns}, {"name", name}}})}};
  return e.dump();
}

class OpenLineageStitchTest : public GraphFixture {
 protected:
  // The id intake gives the output dataset ns/name, the graph holding `tables` and reading under
  // `warehouses`.
  std::string Placed(const std::vector<KnownWarehouse>& warehouses, const std::vector<std::string>& tables,
                     const std::string& ns, const std::string& name) {
    graph_->SetWarehouses(warehouses);
    SourceBatch seed;
    seed.origin = Origin::kNotes;
    for (const std::string& t : tables) seed.assets.push_back(AssetFacts{.id = t});
    if (!seed.assets.empty()) Apply(seed);
    auto b = graph_->Read([&](const GraphIndex& ix) { return RunEventTextBatch(OutputEvent(ns, name), ix, clock_.Now()); });
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    if (!b.ok()) return "";
    Apply(*b);
    for (const EdgeFacts& e : b->edges)
      if (e.src == "job://spark-prod/load_orders") return e.dst;
    return "";
  }
};

TEST_F(OpenLineageStitchTest, TheSameShortNameInTwoWarehousesIsTwoTablesAndEachEventFindsItsOwn) {
  const std::vector<KnownWarehouse> wh = {{"main", "postgres", "shop"}, {"reporting", "postgres", "analytics"}};
  const std::vector<std::string> tables = {"table://main/public.orders", "table://reporting/public.orders"};
  EXPECT_EQ(Placed(wh, tables, "postgres://db1:5432", "shop.public.orders"), "table://main/public.orders");
  EXPECT_EQ(Placed(wh, tables, "postgres://db2:5432", "analytics.public.orders"), "table://reporting/public.orders");
  // A database the workspace does not have: its own table, not merged by short name.
  EXPECT_EQ(Placed(wh, tables, "postgres://db3:5432", "legacy.public.orders"),
            "table://postgres-db3-legacy/public.orders");
}

TEST_F(OpenLineageStitchTest, ATableOnlyTheWorkspaceNamesIsNotMergedWithAnotherDatabasesTableOfItsShortName) {
  // Without the warehouses, the unique short name "customers" takes the event (and its alias);
  // with them, the namespace decides, and the alias moves to the table it names.
  const std::vector<std::string> tables = {"table://main/crm.customers"};
  EXPECT_EQ(Placed({}, tables, "postgres://other:5432", "billing.crm.customers"), "table://main/crm.customers");
  EXPECT_EQ(Placed({{"main", "postgres", "shop"}}, tables, "postgres://other:5432", "billing.crm.customers"),
            "table://postgres-other-billing/crm.customers");
}

TEST_F(OpenLineageStitchTest, SnowflakeAndBigQueryLandInTheirWarehousesAndUnquotedCaseFolds) {
  const std::vector<KnownWarehouse> wh = {
      {"sf", "snowflake", "ANALYTICS"}, {"lake", "bigquery", "acme-data"}, {"main", "postgres", "shop"}};
  EXPECT_EQ(Placed(wh, {"table://sf/public.orders"}, "snowflake://acme-prod", "ANALYTICS.PUBLIC.ORDERS"),
            "table://sf/public.orders");
  EXPECT_EQ(Placed(wh, {}, "bigquery", "acme-data.sales.orders"), "table://lake/sales.orders");
  // A second BigQuery project the workspace does not have.
  EXPECT_EQ(Placed(wh, {}, "bigquery", "other-project.sales.orders"), "table://bigquery-other-project/sales.orders");
}

TEST_F(OpenLineageStitchTest, ASystemTheWorkspaceHasNoWarehouseOfKeepsTheGenericNaming) {
  const std::vector<KnownWarehouse> wh = {{"lake", "bigquery", "acme-data"}};
  EXPECT_EQ(Placed(wh, {}, "postgres://db:5432", "shop.public.orders"), "table://db-5432/public.orders");
  EXPECT_EQ(Placed(wh, {}, "hive://meta:9083", "sales.refunds"), "table://meta-9083/sales.refunds");
}

// Seeded estates: 1-3 PostgreSQL warehouses with distinct databases, all holding a table of the
// same short name, and events naming each one or a database no warehouse has, hosts and case of
// the database varied. Each lands where the spec says, and the namespace/name is kept as an alias.
TEST_F(OpenLineageStitchTest, SeededEstatesPlaceEveryEventInItsDatabase) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Open();  // a fresh graph per estate
    std::mt19937 rng(seed);
    auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
    const size_t n = 1 + pick(3);
    std::vector<KnownWarehouse> wh;
    std::vector<std::string> tables;
    const std::string schema = std::vector<std::string>{"public", "sales", "raw"}[pick(3)];
    const std::string table = std::vector<std::string>{"orders", "events", "payments"}[pick(3)];
    for (size_t i = 0; i < n; ++i) {
      wh.push_back({"wh" + std::to_string(i), "postgres", "db" + std::to_string(seed) + "_" + std::to_string(i)});
      tables.push_back("table://wh" + std::to_string(i) + "/" + schema + "." + table);
    }
    // A distractor warehouse of another system holding the same short name.
    wh.push_back({"sf", "snowflake", "DB" + std::to_string(seed)});
    tables.push_back("table://sf/" + schema + "." + table);
    const bool elsewhere = pick(4) == 0;
    const size_t target = pick(n);
    std::string database = elsewhere ? "nowhere" + std::to_string(seed) : wh[target].database;
    if (pick(2) == 0)  // the producer's case; PostgreSQL's databases compare as the workspace names them
      for (char& c : database) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const std::string host = "h" + std::to_string(pick(100)) + ".internal";
    const std::string ns = "postgres://" + host + ":" + std::to_string(5432 + pick(3));
    const std::string expected = elsewhere ? "table://postgres-" + host + "-" + database + "/" + schema + "." + table
                                           : tables[target];
    EXPECT_EQ(Placed(wh, tables, ns, database + "." + schema + "." + table), expected);
    const std::string alias = ns + "/" + database + "." + schema + "." + table;
    graph_->Read([&](const GraphIndex& ix) {
      AssetIndex a = ix.FindAlias(alias);
      EXPECT_TRUE(a != kNone && ix.id(a) == expected) << alias;
      return 0;
    });
  }
}

// The workspace's warehouses reach intake: `dw ingest openlineage` through the workspace's
// services places a PostgreSQL event in the warehouse whose DSN names its database.
TEST(OpenLineageStitchWorkspaceTest, TheWorkspacesWarehousesPlaceIngestedEvents) {
  dw::testing::TempDir dir;
  dir.Write("dataworkers.yaml",
            "version: 1\nname: s\ntimezone: UTC\nwarehouses:\n"
            "  pg: {type: postgres, dsn: \"host=db.internal port=5432 dbname=shop user=dw\"}\n"
            "  rep: {type: postgres, dsn: \"postgresql://dw@db2.internal:5432/reporting\"}\n");
  dir.Write("events.jsonl", OutputEvent("postgres://db.internal:5432", "shop.public.orders") + "\n" +
                                OutputEvent("postgres://db2.internal:5432", "reporting.public.orders") + "\n");
  SimulatedClock clock(test_support::At("2026-11-24T14:00:00Z"));
  auto services = workspace::Services::Load(dir.path(), clock);
  ASSERT_TRUE(services->workspace_status().ok()) << services->workspace_status().message();
  auto g = services->graph();
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  auto r = Ingest(services->workspace(), services->http(), **g,
                  IngestSource::OpenLineageFile((dir.path() / "events.jsonl").string()));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  (*g)->Read([&](const GraphIndex& ix) {
    EXPECT_NE(ix.Find("table://pg/public.orders"), kNone);
    EXPECT_NE(ix.Find("table://rep/public.orders"), kNone);
    EXPECT_EQ(ix.Find("table://db.internal-5432/public.orders"), kNone);
    return 0;
  });
}

}  // namespace
}  // namespace dw::graph
