// Autonomy per domain and the stop switch: what Data Workers may run by itself, and proof that
// nothing is dispatched while the switch holds.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/actions/actions_test_support.h"

namespace dw::actions {
namespace {

using test_support::ActionsFixture;
using ::testing::HasSubstr;

// Counts what it was asked to run; fails when told to.
class CountingRunner final : public StepRunner {
 public:
  Result<Json> Run(const AutonomousStep& step) override {
    ++runs;
    if (fail) return Unavailable("warehouse unreachable");
    return Json{{"ran", step.target}};
  }
  int runs = 0;
  bool fail = false;
};

constexpr StepKind kAllKinds[] = {StepKind::kRerunCheck,    StepKind::kReevaluateMetric,
                                  StepKind::kQueueOwnerRun, StepKind::kPostReceipt,
                                  StepKind::kJobChange,     StepKind::kDeploy,
                                  StepKind::kRestore,       StepKind::kHold};

TEST(AutonomyPolicyTest, LevelsAllowOnlyReversibleStepsAndNeverTheOwnersWork) {
  for (StepKind k : kAllKinds) {
    EXPECT_FALSE(MayDispatchItself(Autonomy::kL0, k));
    EXPECT_FALSE(MayDispatchItself(Autonomy::kL1, k));
    EXPECT_FALSE(MayDispatchItself(Autonomy::kL2, k));
  }
  EXPECT_TRUE(MayDispatchItself(Autonomy::kL3, StepKind::kRerunCheck));
  EXPECT_TRUE(MayDispatchItself(Autonomy::kL3, StepKind::kReevaluateMetric));
  EXPECT_FALSE(MayDispatchItself(Autonomy::kL3, StepKind::kQueueOwnerRun));
  EXPECT_TRUE(MayDispatchItself(Autonomy::kL4, StepKind::kQueueOwnerRun));
  EXPECT_TRUE(MayDispatchItself(Autonomy::kL4, StepKind::kPostReceipt));
  for (Autonomy a : {Autonomy::kL0, Autonomy::kL1, Autonomy::kL2, Autonomy::kL3, Autonomy::kL4})
    for (StepKind k : {StepKind::kJobChange, StepKind::kDeploy, StepKind::kRestore, StepKind::kHold})
      EXPECT_FALSE(MayDispatchItself(a, k)) << StepKindName(k);
  EXPECT_FALSE(ParseAutonomy("L5").ok());
  EXPECT_EQ(*ParseAutonomy("L3"), Autonomy::kL3);
}

class DispatchTest : public ActionsFixture {};

TEST_F(DispatchTest, AnL3DomainRerunsChecksAndAFailureGoesToAPerson) {
  ws_ = test_support::OneDomainWorkspace("L3");
  CountingRunner runner;
  AutonomousStep step{"loyalty", StepKind::kRerunCheck, "not_null(member_id)", {}};
  Result<DispatchOutcome> out = DispatchAutonomous(*store_, ws_, step, runner, clock_);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->dispatched);
  EXPECT_EQ(runner.runs, 1);
  runner.fail = true;
  out = DispatchAutonomous(*store_, ws_, step, runner, clock_);
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(out->reason, HasSubstr("goes to a person"));
  step.kind = StepKind::kQueueOwnerRun;
  out = DispatchAutonomous(*store_, ws_, step, runner, clock_);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->dispatched);
  EXPECT_EQ(runner.runs, 2);
}

TEST_F(DispatchTest, NothingIsDispatchedWhileTheStopSwitchHolds) {
  ws_ = test_support::OneDomainWorkspace("L4");
  CountingRunner runner;
  ASSERT_TRUE(SetStopSwitch(*store_, true, "ana@example.com", "incident review", clock_).ok());
  EXPECT_TRUE(*StopSwitchHolds(*store_));
  // Every kind of step, many times: not one reaches the runner.
  for (int i = 0; i < 50; ++i)
    for (StepKind k : kAllKinds) {
      AutonomousStep step{"loyalty", k, "t" + std::to_string(i), {}};
      Result<DispatchOutcome> out = DispatchAutonomous(*store_, ws_, step, runner, clock_);
      ASSERT_TRUE(out.ok());
      EXPECT_FALSE(out->dispatched);
    }
  EXPECT_EQ(runner.runs, 0);
  EXPECT_EQ(CountEvents("dispatched"), 0);
  EXPECT_EQ(CountEvents("refused"), 50 * 8);
  // Stopping twice is refused (and recorded); lifting resumes what the level allows.
  EXPECT_EQ(SetStopSwitch(*store_, true, "bo@example.com", "", clock_).code(),
            StatusCode::kFailedPrecondition);
  ASSERT_TRUE(SetStopSwitch(*store_, false, "ana@example.com", "review done", clock_).ok());
  AutonomousStep step{"loyalty", StepKind::kRerunCheck, "c", {}};
  EXPECT_TRUE(DispatchAutonomous(*store_, ws_, step, runner, clock_)->dispatched);
  EXPECT_EQ(runner.runs, 1);
  EXPECT_EQ(CountEvents("stop"), 1);
  EXPECT_EQ(CountEvents("lift"), 1);
}

TEST_F(DispatchTest, AnUnknownDomainDispatchesNothing) {
  CountingRunner runner;
  AutonomousStep step{"nope", StepKind::kRerunCheck, "c", {}};
  Result<DispatchOutcome> out = DispatchAutonomous(*store_, ws_, step, runner, clock_);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->dispatched);
  EXPECT_EQ(runner.runs, 0);
}

}  // namespace
}  // namespace dw::actions
