// Grouping: signals that share a lineage root within the window join one incident; signals that
// merely share a source stay apart; a storm from a few roots gives a few incidents.
#include <gtest/gtest.h>

#include "incidents/grouping.h"
#include "observe/changes/change_kinds.h"
#include "tests/incidents/incidents_test_support.h"

namespace dw::incidents {
namespace {

using test_support::At;

class Grouping : public test_support::DeskTest {
 protected:
  void SetUp() override {
    DeskTest::SetUp();
    if (IsSkipped()) return;
    clock_.Set(At("2026-11-24T15:00:00Z"));
    // One topic read by two jobs, each writing its own table; a model reads table a.
    UseEdges({{"kafka://prod/orders", "flink://flink/job-a"},
              {"kafka://prod/orders", "flink://flink/job-b"},
              {"flink://flink/job-a", "table://main/a"},
              {"flink://flink/job-b", "table://main/b"},
              {"table://main/a", "dbt://shop/model_a"}});
  }
};

TEST_P(Grouping, TwoTablesThatMerelyShareASourceTopicStayTwoIncidents) {
  EvaluationReport r = Evaluate({CheckSignal("table://main/a", "volume", "2026-11-24T15:00:00Z"),
                                 CheckSignal("table://main/b", "volume", "2026-11-24T15:00:00Z")});
  EXPECT_EQ(r.opened.size(), 2u);
}

TEST_P(Grouping, OneRiskyChangeUpstreamOfBothMakesThemOneIncident) {
  AddEvent("deploy-orders", "kafka://prod/orders", observe::changes::kConfigRisk, "2026-11-24T14:00:00Z", 0.7);
  EvaluationReport r = Evaluate({CheckSignal("table://main/a", "volume", "2026-11-24T15:00:00Z"),
                                 CheckSignal("table://main/b", "volume", "2026-11-24T15:00:00Z")});
  ASSERT_EQ(r.opened.size(), 1u);
  Incident inc = Get(r.opened[0]);
  EXPECT_EQ(inc.root_asset, "kafka://prod/orders");
  EXPECT_EQ(inc.damaged_assets, (std::vector<std::string>{"table://main/a", "table://main/b"}));
}

TEST_P(Grouping, AChangeOutsideTheWindowTiesNothing) {
  AddEvent("deploy-old", "kafka://prod/orders", observe::changes::kConfigRisk, "2026-11-24T07:00:00Z", 0.7);
  EvaluationReport r = Evaluate({CheckSignal("table://main/a", "volume", "2026-11-24T15:00:00Z"),
                                 CheckSignal("table://main/b", "volume", "2026-11-24T15:00:00Z")});
  EXPECT_EQ(r.opened.size(), 2u);
}

TEST_P(Grouping, DamageDownstreamOfAnOpenIncidentJoinsItWithinTheWindow) {
  EvaluationReport first = Evaluate({CheckSignal("table://main/a", "volume", "2026-11-24T15:00:00Z")});
  ASSERT_EQ(first.opened.size(), 1u);
  clock_.Set(At("2026-11-24T17:00:00Z"));
  EvaluationReport second = Evaluate({CheckSignal("dbt://shop/model_a", "volume", "2026-11-24T17:00:00Z")});
  EXPECT_TRUE(second.opened.empty());
  EXPECT_EQ(second.updated, first.opened);
  // After the window a new incident opens instead.
  clock_.Set(At("2026-11-25T03:00:00Z"));
  EvaluationReport third = Evaluate({CheckSignal("table://main/b", "not_null:id", "2026-11-25T03:00:00Z"),
                                     MetricSignal("model_rows", "dbt://shop/model_a", "2026-11-25T03:00:00Z", 1, 100)});
  EXPECT_EQ(third.opened.size(), 2u);
}

TEST_P(Grouping, ASignalSeenAgainIsCountedNotOpenedTwice) {
  EvaluationReport first = Evaluate({CheckSignal("table://main/a", "volume", "2026-11-24T15:00:00Z")});
  ASSERT_EQ(first.opened.size(), 1u);
  clock_.Set(At("2026-11-24T16:00:00Z"));
  EvaluationReport again = Evaluate({CheckSignal("table://main/a", "volume", "2026-11-24T16:00:00Z")});
  EXPECT_TRUE(again.opened.empty());
  Incident inc = Get(first.opened[0]);
  ASSERT_EQ(inc.signals.size(), 1u);
  EXPECT_EQ(inc.signals[0].count, 2);
}

TEST_P(Grouping, SignalsFromAnAssetNotInTheGraphStillOpenAnIncidentOnThatAssetAlone) {
  EvaluationReport r = Evaluate({CheckSignal("table://main/not_in_graph", "volume", "2026-11-24T15:00:00Z"),
                                 CheckSignal("table://main/a", "volume", "2026-11-24T15:00:00Z")});
  ASSERT_EQ(r.opened.size(), 2u);
  bool said = false;
  for (const std::string& id : r.opened) {
    Incident inc = Get(id);
    if (inc.root_asset != "table://main/not_in_graph") continue;
    EXPECT_EQ(inc.damaged_assets, std::vector<std::string>{"table://main/not_in_graph"});
    for (const std::string& n : inc.notes) said |= n.find("not in the context graph") != std::string::npos;
    EXPECT_EQ(inc.severity.level, 3);
    EXPECT_NE(inc.severity.reason.find("unknown"), std::string::npos);
  }
  EXPECT_TRUE(said);
}

TEST_P(Grouping, AnErroredCheckIsAnObservationGapNeverAnIncident) {
  UseExample("loyalty-flink");
  store::CheckResultRow row;
  row.run_id = "run-1";
  row.table_ref = "table://main/member_balances";
  row.check_name = "volume";
  row.status = store::CheckStatus::kError;
  row.message = "the warehouse main could not be reached: connection refused";
  row.observed_at = clock_.Now();
  ASSERT_TRUE(store_->RecordCheckResults({row}).ok());
  auto batch = GatherSignals(ws_, *store_, clock_, {At("2026-11-24T14:00:00Z"), false, true, false});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_TRUE(batch->signals.empty());
  ASSERT_EQ(batch->gaps.size(), 1u);
  EXPECT_NE(batch->gaps[0].message.find("could not be reached"), std::string::npos);
  auto r = Desk().Evaluate(*batch);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->opened.empty());
  EXPECT_EQ(r->gaps.size(), 1u);
}

TEST_P(Grouping, AFailedCheckGatheredFromTheStoreOpensAnIncident) {
  UseExample("loyalty-flink");
  store::CheckResultRow row;
  row.run_id = "run-2";
  row.table_ref = "table://main/member_balances";
  row.check_name = "not_null:balance";
  row.status = store::CheckStatus::kFail;
  row.observed = {{"null_count", 40}, {"null_rate", 0.2}, {"rows", 200}};
  row.observed_at = clock_.Now();
  ASSERT_TRUE(store_->RecordCheckResults({row}).ok());
  auto r = RunSignalPass(ws_, Desk(), *store_, clock_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->opened.size(), 1u);
  Incident inc = Get(r->opened[0]);
  EXPECT_EQ(inc.signals[0].shape, SignalShape::kNullRateJump);
  EXPECT_EQ(inc.signals[0].value, 40);
  // The next pass does not count the same result twice.
  clock_.Advance(std::chrono::minutes(5));
  auto again = RunSignalPass(ws_, Desk(), *store_, clock_);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->opened.empty());
  EXPECT_EQ(Get(r->opened[0]).signals[0].count, 1);
  // A later failing run of the same check is counted on the same incident.
  row.observed_at = clock_.Now();
  ASSERT_TRUE(store_->RecordCheckResults({row}).ok());
  clock_.Advance(std::chrono::minutes(5));
  auto third = RunSignalPass(ws_, Desk(), *store_, clock_);
  ASSERT_TRUE(third.ok());
  EXPECT_TRUE(third->opened.empty());
  EXPECT_EQ(third->updated, r->opened);
  EXPECT_EQ(Get(r->opened[0]).signals[0].count, 2);
}

INSTANTIATE_TEST_SUITE_P(Store, Grouping, ::testing::Values("sqlite", "postgresql"), test_support::BackendName);

// Grouping itself over a bare index: a storm.
TEST(GroupSignals, TenThousandSignalsFromThreeRootsGiveThreeGroups) {
  graph::GraphIndex ix;
  const uint8_t flink = static_cast<uint8_t>(graph::KindIndex("flink"));
  const uint8_t kafka = static_cast<uint8_t>(graph::KindIndex("kafka"));
  const uint8_t table = static_cast<uint8_t>(graph::KindIndex("table"));
  auto edge = [&](graph::AssetIndex s, graph::AssetIndex d) {
    graph::EdgeEntry e;
    e.src = s;
    e.dst = d;
    e.origins = 1;
    ix.AddEdge(e);
  };
  GroupingInput in;
  graph::AssetIndex shared = ix.Intern("kafka://prod/shared", kafka);  // all three read it
  for (int r = 0; r < 3; ++r) {
    graph::AssetIndex job = ix.Intern("flink://flink/job-" + std::to_string(r), flink);
    edge(shared, job);
    graph::AssetIndex topic = ix.Intern("kafka://prod/out-" + std::to_string(r), kafka);
    edge(job, topic);
    in.changes.push_back({"flink://flink/job-" + std::to_string(r), "change:deploy-" + std::to_string(r),
                          At("2026-11-24T14:00:00Z")});
    for (int t = 0; t < 3334; ++t) {
      std::string id = "table://main/t" + std::to_string(r) + "_" + std::to_string(t);
      edge(topic, ix.Intern(id, table));
      if (in.damage.size() < 10000) in.damage.push_back({id, At("2026-11-24T15:00:00Z")});
    }
  }
  ASSERT_EQ(in.damage.size(), 10000u);
  std::vector<SignalGroup> groups = GroupSignals(&ix, in);
  ASSERT_EQ(groups.size(), 3u);
  size_t total = 0;
  for (const SignalGroup& g : groups) {
    ASSERT_EQ(g.changes.size(), 1u);
    total += g.damage.size();
  }
  EXPECT_EQ(total, 10000u);
  // Without the changes the tables only share sources: every one stands alone.
  in.changes.clear();
  in.damage.resize(50);
  EXPECT_EQ(GroupSignals(&ix, in).size(), 50u);
}

TEST(GroupSignals, ACycleInTheGraphEnds) {
  graph::GraphIndex ix;
  const uint8_t table = static_cast<uint8_t>(graph::KindIndex("table"));
  graph::AssetIndex a = ix.Intern("table://main/a", table), b = ix.Intern("table://main/b", table),
                    c = ix.Intern("table://main/c", table);
  for (auto [s, d] : std::vector<std::pair<graph::AssetIndex, graph::AssetIndex>>{{a, b}, {b, c}, {c, a}}) {
    graph::EdgeEntry e;
    e.src = s;
    e.dst = d;
    e.origins = 1;
    ix.AddEdge(e);
  }
  GroupingInput in;
  in.damage = {{"table://main/a", At("2026-11-24T15:00:00Z")}, {"table://main/c", At("2026-11-24T15:00:00Z")}};
  std::vector<SignalGroup> groups = GroupSignals(&ix, in);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_FALSE(groups[0].most_upstream.empty());
}

}  // namespace
}  // namespace dw::incidents
