// `dw ingest kestra`: the EV incident's flows read through the Kestra API (the simulator) instead of
// a folder: the tariff chain tariff_sync -> KV -> rate_session -> rated_sessions is found, paging
// is followed, a disabled flow loses its next run, and a bad flow stores nothing.
#include "graph/kestra_api_ingest.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/build_paths.h"
#include "workspace/services.h"
#include "base/rfc3339.h"
#include "sim/sim_support.h"
#include "tests/support/subprocess.h"

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

TEST_F(KestraFlowIngestTest, ADisabledFlowKeepsItsEdgesButHasNoNextRun) {
  Start(Json::array({FlowFromExample("finance", "rate_audit", /*disabled=*/true)}));
  auto r = Ingest();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)["disabled"], 1);
  graph_->Read([](const graph::GraphIndex& ix) {
    auto a = ix.Find("kestra://kestra-prod/finance.rate_audit");
    EXPECT_NE(a, graph::kNone);
    if (a == graph::kNone) return 0;
    EXPECT_FALSE(ix.out(a).empty());  // it still writes the mismatch table
    EXPECT_TRUE(ix.details(a).schedule.empty());
    EXPECT_EQ(ix.details(a).notes.rfind("Disabled in Kestra.", 0), 0u) << ix.details(a).notes;
    return 0;
  });
}

TEST_F(KestraFlowIngestTest, AFlowWhoseSourceNamesAnotherFlowFailsTheWholeIngestion) {
  Json liar = FlowFromExample("energy", "rate_session");
  liar["id"] = "rate_session_v2";  // listed under one id, its YAML declares another
  Start(Json::array({FlowFromExample("pricing", "tariff_sync"), liar}));
  size_t before = EdgeCount();
  auto r = Ingest();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("energy.rate_session_v2"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("declares energy.rate_session"), std::string::npos);
  EXPECT_EQ(EdgeCount(), before);  // all or nothing: tariff_sync's edges were not stored either
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
