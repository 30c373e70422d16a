// Damage of its own below damage upstream (issue 35): a flow that reads a damaged table and writes
// another is no cause of the first, but when the second's damage is not what the first's could
// carry down (a doubled load below new nulls), it is judged as a cause of that damage, not ruled
// out as "downstream of the damaged table". Where the damage could have been carried (nulls as
// lower totals, an audit's mismatches), it stays ruled out, as in the EV story.
#include <gtest/gtest.h>

#include "incidents/signal_shape.h"
#include "observe/changes/change_kinds.h"
#include "tests/incidents/incidents_test_support.h"

namespace dw::incidents {
namespace {
namespace own_damage_test {

using test_support::At;

constexpr const char* kLoad = "kestra://kestra/shop.orders_load";
constexpr const char* kRaw = "table://pg/raw.orders";
constexpr const char* kRevenue = "kestra://kestra/shop.daily_revenue";
constexpr const char* kMart = "table://pg/marts.daily_revenue";

TEST(CouldPropagateTest, DamageIsCarriedOnlyInShapesAJobCanPassOn) {
  EXPECT_TRUE(CouldPropagate(SignalShape::kNullRateJump, SignalShape::kNullRateJump));
  EXPECT_TRUE(CouldPropagate(SignalShape::kNullRateJump, SignalShape::kLevelDrop));
  EXPECT_TRUE(CouldPropagate(SignalShape::kLevelDrop, SignalShape::kMismatchesFound));
  EXPECT_TRUE(CouldPropagate(SignalShape::kRepeatsEarlier, SignalShape::kMismatchesFound));
  EXPECT_TRUE(CouldPropagate(SignalShape::kDoubling, SignalShape::kLevelRise));
  EXPECT_TRUE(CouldPropagate(SignalShape::kUnknown, SignalShape::kDoubling));
  EXPECT_TRUE(CouldPropagate(SignalShape::kNullRateJump, SignalShape::kUnknown));
  EXPECT_FALSE(CouldPropagate(SignalShape::kNullRateJump, SignalShape::kDoubling));
  EXPECT_FALSE(CouldPropagate(SignalShape::kLevelDrop, SignalShape::kDoubling));
  EXPECT_FALSE(CouldPropagate(SignalShape::kDoubling, SignalShape::kLevelDrop));
  EXPECT_FALSE(CouldPropagate(SignalShape::kMismatchesFound, SignalShape::kDoubling));
}

class OwnDamage : public test_support::DeskTest {
 protected:
  void SetUp() override {
    DeskTest::SetUp();
    if (IsSkipped()) return;
    clock_.Set(At("2026-12-01T05:00:00Z"));
    UseEdges({{kLoad, kRaw}, {kRaw, kRevenue}, {kRevenue, kMart}});
    auto run = [](const std::string& id, const std::string& flow) {
      return Json{{"execution_id", id}, {"flow", flow}, {"state", "SUCCESS"}};
    };
    AddEvent("kestra:kestra:load1:SUCCESS", kLoad, observe::changes::kExecution, "2026-12-01T05:10:00Z", 0.1,
             run("load1", "shop.orders_load"));
    // The mart's flow ran twice for the same day: the second run inserted the day again.
    AddEvent("kestra:kestra:rev1:SUCCESS", kRevenue, observe::changes::kExecution, "2026-12-01T06:00:00Z", 0.1,
             run("rev1", "shop.daily_revenue"));
    AddEvent("kestra:kestra:rev2:SUCCESS", kRevenue, observe::changes::kExecution, "2026-12-01T06:04:00Z", 0.1,
             run("rev2", "shop.daily_revenue"));
  }

  // Opens the incident of NULLs in raw.orders and `mart_shape` damage in the mart; its diagnosis.
  Diagnosis DiagnoseWith(SignalShape mart_shape) {
    clock_.Set(At("2026-12-01T07:00:00Z"));
    EvaluationReport r = Evaluate({CheckSignal(kRaw, "not_null:customer_id", "2026-12-01T07:00:00Z", true,
                                               SignalShape::kNullRateJump),
                                   CheckSignal(kMart, "unique:day", "2026-12-01T07:00:00Z", true, mart_shape)});
    EXPECT_EQ(r.opened.size(), 1u);
    if (r.opened.empty()) return {};
    auto d = Desk().Diagnose(r.opened[0]);
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return d.ok() ? *d : Diagnosis{};
  }
};

TEST_P(OwnDamage, AFlowThatDoubledTheMartIsACauseThoughItReadsTheTableWithNulls) {
  Diagnosis d = DiagnoseWith(SignalShape::kDoubling);
  for (const std::string& s : d.ruled_out) EXPECT_EQ(s.find("shop.daily_revenue"), std::string::npos) << s;
  const Candidate* revenue = nullptr;
  for (const Candidate& c : d.ranked)
    if (c.asset_id == kRevenue) revenue = &c;
  ASSERT_NE(revenue, nullptr) << "the mart's own flow is not among the causes";
  bool said = false;
  for (const std::string& e : revenue->counter_evidence) said |= e.find("does not explain " + std::string(kMart)) != std::string::npos;
  EXPECT_TRUE(said);
  // The load of the raw table is still a cause of the NULLs.
  bool load = false;
  for (const Candidate& c : d.ranked) load |= c.asset_id == kLoad;
  EXPECT_TRUE(load);
}

TEST_P(OwnDamage, AFlowBelowNullsThatShowAsLowerTotalsIsStillRuledOut) {
  Diagnosis d = DiagnoseWith(SignalShape::kLevelDrop);
  bool ruled_out = false;
  for (const std::string& s : d.ruled_out) ruled_out |= s.find("shop.daily_revenue") != std::string::npos;
  EXPECT_TRUE(ruled_out);
  for (const Candidate& c : d.ranked) EXPECT_NE(c.asset_id, kRevenue);
}

INSTANTIATE_TEST_SUITE_P(Store, OwnDamage, ::testing::Values("sqlite", "postgresql"), test_support::BackendName);

}  // namespace own_damage_test
}  // namespace
}  // namespace dw::incidents
