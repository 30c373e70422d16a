// The sweep that writes the receipt of every resolved incident (WriteResolutionReceipts) reaches
// each resolution, however many incidents were resolved at once and however long ago the incident
// was opened. Found by the crash test of receipts on resolve (tests/crash/crash_writers_test.cc):
// the sweep read only the 200 resolved incidents opened last, so a 201st resolved at once, or an
// old incident resolved after 200 newer ones were, never had its receipt written.
#include <gtest/gtest.h>

#include "actions/actions.h"
#include "tests/incidents/incidents_test_support.h"

namespace dw::actions {
namespace {

using incidents::test_support::At;

class ReceiptSweepTest : public incidents::test_support::DeskTest {
 protected:
  std::vector<std::string> OpenOnTables(const std::string& prefix, int n, const std::string& at) {
    clock_.Set(At(at));
    std::vector<incidents::Signal> signals;
    for (int i = 0; i < n; ++i)
      signals.push_back(CheckSignal("table://main/" + prefix + std::to_string(i), "not_null(id)", at));
    incidents::EvaluationReport r = Evaluate(signals);
    EXPECT_EQ(r.opened.size(), static_cast<size_t>(n));
    return r.opened;
  }
};

TEST_P(ReceiptSweepTest, EveryResolutionGetsItsReceiptPastTwoHundredAndAnOldIncidentToo) {
  ws_.name = "sweep";
  const std::vector<std::string> old = OpenOnTables("old_", 1, "2026-11-20T09:00:00Z");
  const std::vector<std::string> newer = OpenOnTables("t", 201, "2026-11-24T09:00:00Z");
  clock_.Set(At("2026-11-24T10:00:00Z"));
  for (const std::string& id : newer) ASSERT_TRUE(Desk().Resolve(id, "ana@example.com", "fixed").ok());
  auto written = WriteResolutionReceipts(*store_, ws_, Desk(), clock_);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->size(), 201u) << "every incident resolved at once gets its receipt";
  for (const std::string& id : newer) {
    auto of = ReceiptOfIncident(*store_, id);
    ASSERT_TRUE(of.ok());
    EXPECT_TRUE(of->has_value()) << id;
  }

  // The incident opened four days earlier is resolved after the 201 newer ones.
  clock_.Set(At("2026-11-24T11:00:00Z"));
  ASSERT_TRUE(Desk().Resolve(old[0], "ana@example.com", "fixed at last").ok());
  auto again = WriteResolutionReceipts(*store_, ws_, Desk(), clock_);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ASSERT_EQ(again->size(), 1u);
  auto of = ReceiptOfIncident(*store_, old[0]);
  ASSERT_TRUE(of.ok());
  ASSERT_TRUE(of->has_value());
  EXPECT_EQ(Json::parse((*of)->body)["content"]["incident"]["id"], old[0]);
  // And the sweep writes nothing twice.
  auto third = WriteResolutionReceipts(*store_, ws_, Desk(), clock_);
  ASSERT_TRUE(third.ok());
  EXPECT_TRUE(third->empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, ReceiptSweepTest, ::testing::Values("sqlite", "postgresql"),
                         incidents::test_support::BackendName);

}  // namespace
}  // namespace dw::actions
