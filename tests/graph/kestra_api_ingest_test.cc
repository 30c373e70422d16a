// `dw ingest kestra`: the EV incident's flows read through the Kestra API (the simulator) instead of
// a folder: the tariff chain tariff_sync -> KV -> rate_session -> rated_sessions is found, paging
// is followed, a disabled flow never acts next, and a flow that cannot be read is skipped alone.
#include "graph/kestra_api_ingest.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/build_paths.h"
#include "workspace/services.h"
#include "base/rfc3339.h"
#include "sim/sim_support.h"
#include "tests/support/subprocess.h"
#include "graph/next_act.h"

namespace dw::graph {
namespace {

namespace fs = std::filesystem;

Json FlowFromExample(const std::string& ns, const std::string& id, bool disabled = false) {
  fs::path file = fs::path(DW_SOURCE_DIR) / "examples/ev-kestra/flows" / ns / (id + ".yml");
  return Json{{"namespace", ns}, {"id", id}, {"revision", 3}, {"disabled", disabled},
              {"source", dw::testing::ReadWholeFile(file)}};
}

class KestraFlowIngestTest : public ::testing::Test {
 protected:
  // Starts the simulator with `flows` and loads a workspace with nothing but that platform.
  void Start(Json flows) {
    Json script = {{"now", "2026-11-25T02:30:00Z"},
                   {"tenant", "main"},
                   {"auth", {{"username", "admin@kestra.io"}, {"password", "Tariff-Secret-77"}}},
                   {"flows", std::move(flows)}};
    auto sim = sim::RunningSim::Start(sim::Platform::kKestra, script);
    ASSERT_TRUE(sim.ok()) << sim.status().ToString();
    sim_ = std::move(sim).value();
    std::ofstream(dir_.path() / "dataworkers.yaml")
        << "version: 1\nname: api-flows\ntimezone: UTC\n"
           "warehouses:\n  main: {type: sqlite, path: warehouse.db}\n"
           "platforms:\n  kestra-prod:\n    type: kestra\n    url: " << sim_->url()
        << "\n    tenant: main\n    username: admin@kestra.io\n    password: \"" << password_ << "\"\n";
    services_ = workspace::Services::Load(dir_.path(), clock_);
    ASSERT_TRUE(services_->workspace_status().ok()) << services_->workspace_status().message();
    auto g = services_->graph();
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = *g;
  }
  Result<Json> Ingest(KestraFlowIngestOptions options = {}) {
    return IngestKestraFlowsFromApi(services_->workspace(), services_->http(), *graph_, options);
  }
  bool HasEdge(const std::string& src, const std::string& dst) {
    return graph_->Read([&](const graph::GraphIndex& ix) {
      auto s = ix.Find(src), d = ix.Find(dst);
      return s != graph::kNone && d != graph::kNone &&
             ix.FindEdge(s, d, graph::Relation::kFeeds) != graph::kNone;
    });
  }
  size_t EdgeCount() {
    return graph_->Read([](const graph::GraphIndex& ix) { return ix.edge_count(); });
  }

  dw::testing::TempDir dir_;
  SimulatedClock clock_{*ParseRfc3339("2026-11-25T02:30:00Z")};
  std::string password_ = "Tariff-Secret-77";
  std::unique_ptr<sim::RunningSim> sim_;
  std::shared_ptr<workspace::Services> services_;
  graph::ContextGraph* graph_ = nullptr;
};

TEST_F(KestraFlowIngestTest, FindsTheTariffChainAcrossPagesOfFlows) {
  Start(Json::array({FlowFromExample("pricing", "tariff_sync"), FlowFromExample("energy", "rate_session"),
                     FlowFromExample("energy", "rerate_day"), FlowFromExample("energy", "revenue_marts"),
                     FlowFromExample("finance", "rate_audit"), FlowFromExample("billing", "fleet_statements")}));
  KestraFlowIngestOptions options;
  options.page_size = 4;  // two pages: the second is short
  auto r = Ingest(options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)["platform"], "kestra-prod");
  EXPECT_EQ((*r)["flows"], 6);
  EXPECT_EQ((*r)["disabled"], 0);
  EXPECT_TRUE(HasEdge("kestra://kestra-prod/pricing.tariff_sync", "kv://kestra-prod/pricing/tariffs_current"));
  EXPECT_TRUE(HasEdge("kv://kestra-prod/pricing/tariffs_current", "kestra://kestra-prod/energy.rate_session"));
  EXPECT_TRUE(HasEdge("kestra://kestra-prod/energy.rate_session", "table://main/raw.rated_sessions"));
  // The flows on the second page are there too.
  EXPECT_TRUE(graph_->Read([](const graph::GraphIndex& ix) {
    return ix.Find("kestra://kestra-prod/pricing.tariff_sync") != graph::kNone &&
           ix.Find("kestra://kestra-prod/billing.fleet_statements") != graph::kNone;
  }));

  // Ingesting again changes nothing.
  size_t edges = EdgeCount();
  auto again = Ingest(options);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)["edges_added"], 0);
  EXPECT_EQ(EdgeCount(), edges);
}

TEST_F(KestraFlowIngestTest, ADisabledFlowKeepsItsEdgesAndItsScheduleButNeverActsNext) {
  Json flow = FlowFromExample("finance", "rate_audit", /*disabled=*/true);
  // The revision that disabled it was saved on the 20th.
  flow["revisions"] = Json::array({{{"revision", 3}, {"at", "2026-11-20T08:00:00Z"}, {"source", flow["source"]}}});
  Start(Json::array({flow}));
  auto r = Ingest();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)["disabled"], 1);
  graph_->Read([](const graph::GraphIndex& ix) {
    auto a = ix.Find("kestra://kestra-prod/finance.rate_audit");
    EXPECT_NE(a, graph::kNone);
    if (a == graph::kNone) return 0;
    EXPECT_FALSE(ix.out(a).empty());  // it still writes the mismatch table
    EXPECT_FALSE(ix.details(a).schedule.empty());
    EXPECT_TRUE(ix.details(a).schedule_disabled);
    EXPECT_EQ(ix.details(a).disabled_since, "2026-11-20T08:00:00.000Z");
    EXPECT_EQ(ix.details(a).notes.rfind("Disabled in Kestra.", 0), 0u) << ix.details(a).notes;
    auto act = graph::NextActOf(ix.details(a), *ParseRfc3339("2026-11-25T02:30:00Z"), "UTC");
    EXPECT_TRUE(act && act->state == graph::NextAct::State::kDisabled);
    return 0;
  });
}

TEST_F(KestraFlowIngestTest, AFlowThatCannotBeReadIsSkippedWithItsReasonAndTheOthersAreStored) {
  Json liar = FlowFromExample("energy", "rate_session");
  liar["id"] = "rate_session_v2";  // listed under one id, its YAML declares another
  Json broken = {{"namespace", "energy"}, {"id", "broken"}, {"revision", 1}, {"disabled", false},
                 {"source", "id: broken\nnamespace: energy\ntasks: ["}};
  Json half = {{"namespace", "energy"}, {"id", "half"}, {"revision", 1}, {"disabled", false},
               {"source", "id: half\nnamespace: energy\ntasks:\n  - id: q\n    type: io.kestra.plugin.jdbc.postgresql.Query\n"
                          "    sql: \"INSERT INTO marts.{{ inputs.t SELECT 1\"\n  - id: ok\n"
                          "    type: io.kestra.plugin.jdbc.postgresql.Query\n    sql: INSERT INTO marts.ok SELECT 1\n"}};
  Start(Json::array({FlowFromExample("pricing", "tariff_sync"), liar, broken, half}));
  auto r = Ingest();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)["flows"], 4);
  EXPECT_EQ((*r)["flows_read"], 2);
  EXPECT_EQ((*r)["flows_skipped"], 2);
  EXPECT_EQ((*r)["flows_partly_read"], 1);
  std::string warnings = (*r)["warnings"].dump();
  EXPECT_NE(warnings.find("2 flow(s) skipped, 1 partly read, 2 read"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("energy.rate_session_v2: its source declares energy.rate_session"), std::string::npos);
  EXPECT_NE(warnings.find("energy.broken:"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("energy.half: task q: sql: the template"), std::string::npos) << warnings;
  // The readable flows and the readable part of the half-read one are stored.
  EXPECT_TRUE(HasEdge("kestra://kestra-prod/pricing.tariff_sync", "kv://kestra-prod/pricing/tariffs_current"));
  EXPECT_TRUE(HasEdge("kestra://kestra-prod/energy.half", "table://main/marts.ok"));
}

TEST_F(KestraFlowIngestTest, WrongCredentialsAndUnknownPlatformsAreClearErrorsWithoutTheSecret) {
  password_ = "Wrong-Secret-12";
  Start(Json::array({FlowFromExample("pricing", "tariff_sync")}));
  auto r = Ingest();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("kestra-prod"), std::string::npos) << r.status().message();
  EXPECT_EQ(r.status().message().find("Wrong-Secret-12"), std::string::npos);

  KestraFlowIngestOptions other;
  other.platform = "kestra-staging";
  auto missing = Ingest(other);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("Kestra platforms: kestra-prod"), std::string::npos)
      << missing.status().message();
}

}  // namespace
}  // namespace dw::graph
