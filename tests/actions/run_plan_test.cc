// The run plan over a dbt project stitched to its warehouse: a model and the table it builds are
// one step (the model's), never two, and each model comes after the models it reads. Judged over a
// generated family of manifests (chains and fans of models, relations quoted or not, some manifests
// without relation_name, exposures), with seeds.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "actions/drafting.h"
#include "graph/context_graph.h"
#include "graph/dbt_manifest.h"
#include "tests/actions/actions_test_support.h"

namespace dw::actions {
namespace {

class RunPlanTest : public test_support::ActionsFixture {};

TEST_F(RunPlanTest, OneStepPerDbtModelNeverOneForTheModelAndOneForItsTable) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    auto pick = [&rng](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
    auto graph = graph::ContextGraph::Load(store_.get(), clock_);
    ASSERT_TRUE(graph.ok()) << graph.status().ToString();
    config::Workspace ws = test_support::OneDomainWorkspace();
    config::WarehouseConfig pg;
    pg.name = "pg";
    pg.type = "postgres";
    pg.dsn = "postgresql://dw@127.0.0.1:5432/analytics";
    ws.warehouses["pg"] = pg;

    // raw.orders_<seed> (a source, loaded by a Kestra flow) read by 2-6 models, each reading the source or
    // earlier models; the checks name the raw table as a user writes it.
    const std::string n = std::to_string(seed);
    const std::string project = "shop" + n;
    Json nodes = Json::object();
    std::vector<std::string> models;
    std::map<std::string, std::vector<std::string>> reads;  // model -> models it reads
    const int count = 2 + pick(5);
    for (int i = 0; i < count; ++i) {
      const std::string name = "m" + std::to_string(i) + "_" + n;
      Json deps = Json::array({"source." + project + ".raw.orders"});
      if (i > 0 && pick(3) != 0) {
        deps = Json::array();
        for (int j = 0; j < i; ++j)
          if (pick(2) == 0 || j == i - 1) {
            deps.push_back("model." + project + ".m" + std::to_string(j) + "_" + n);
            reads[name].push_back("m" + std::to_string(j) + "_" + n);
          }
      }
      const std::string schema = pick(2) ? "marts" : "staging";
      Json node = {{"resource_type", "model"}, {"name", name}, {"package_name", project},
                   {"database", "analytics"}, {"schema", schema}, {"alias", name},
                   {"config", {{"materialized", pick(2) ? "table" : "view"}}}, {"depends_on", {{"nodes", deps}}}};
      if (pick(4) != 0)
        node["relation_name"] = pick(2) ? "\"analytics\".\"" + schema + "\".\"" + name + "\""
                                        : "analytics." + schema + "." + name;
      nodes["model." + project + "." + name] = node;
      models.push_back(name);
    }
    Json manifest = {
        {"metadata", {{"dbt_schema_version", "https://schemas.getdbt.com/dbt/manifest/v12.json"}, {"project_name", project}}},
        {"nodes", nodes},
        {"sources", {{"source." + project + ".raw.orders",
                      {{"resource_type", "source"}, {"name", "orders"}, {"source_name", "raw"},
                       {"package_name", project}, {"database", "analytics"}, {"schema", "raw"},
                       {"identifier", "orders_" + n}, {"relation_name", "\"analytics\".\"raw\".\"orders_" + n + "\""}}}}},
        {"exposures", {{"exposure." + project + ".board",
                        {{"name", "board"}, {"type", "dashboard"},
                         {"depends_on", {{"nodes", {"model." + project + "." + models.back()}}}}}}}}};
    auto batch = (*graph)->Read([&](const graph::GraphIndex& ix) {
      return graph::DbtManifestBatch(manifest, graph::RelationWarehousesOf(ws), ix);
    });
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    ASSERT_TRUE((*graph)->Apply(*batch).ok());
    const std::string loader = "kestra://kestra/shop.load_orders_" + n, raw = "table://pg/raw.orders_" + n;
    graph::SourceBatch load;
    load.origin = graph::Origin::kNotes;
    load.edges.push_back({loader, raw, "feeds", Json()});
    ASSERT_TRUE((*graph)->Apply(load).ok());

    incidents::Incident incident;
    incident.id = "inc-20270115-0800-" + n;
    incident.damaged_assets = {raw};
    incident.first_bad_at = clock_.Now();
    incidents::Diagnosis diagnosis;
    incidents::Candidate cause;
    cause.asset_id = loader;
    cause.kind = "execution";
    diagnosis.ranked = {cause};
    DraftOptions options;
    DraftedProposal plan = (*graph)->Read([&](const graph::GraphIndex& ix) {
      DraftContext c{ws, *store_, ix, incident, diagnosis, clock_, options, diagnosis.ranked.front()};
      return DraftRunPlan(c, {});
    });
    ASSERT_TRUE(plan.drafted) << plan.not_drafted;
    const Json& steps = plan.content["steps"];
    ASSERT_GE(steps.size(), 1u);
    EXPECT_EQ(steps[0]["asset"], loader);
    std::map<std::string, size_t> step_of;  // model name -> step position
    for (size_t i = 1; i < steps.size(); ++i) {
      const std::string asset = steps[i]["asset"].get<std::string>();
      EXPECT_TRUE(asset.starts_with("dbt://" + project + "/")) << "a step that is not a model: " << asset << "\n"
                                                               << steps.dump(2);
      const std::string name = asset.substr(asset.rfind('/') + 1);
      EXPECT_TRUE(step_of.emplace(name, i).second) << "two steps for " << name;
      EXPECT_NE(steps[i]["action"].get<std::string>().find(name), std::string::npos) << steps[i].dump();
    }
    EXPECT_EQ(step_of.size(), models.size()) << steps.dump(2);
    for (const std::string& m : models) {
      ASSERT_TRUE(step_of.count(m)) << m << " has no step:\n" << steps.dump(2);
      for (const std::string& up : reads[m]) EXPECT_LT(step_of[up], step_of[m]) << up << " must run before " << m;
    }
  }
}

}  // namespace
}  // namespace dw::actions
