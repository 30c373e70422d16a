// The signal pass's overlap (several `dw watch` replicas, docs/watch.md): a check result stamped
// before another replica's pass moved the cursor, but committed after that pass read the store,
// is lost without an overlap and judged with one; a result read again in the overlap is never
// counted twice, and never reopens an incident a person closed after it.
#include <gtest/gtest.h>

#include "tests/incidents/incidents_test_support.h"

namespace dw::incidents {
namespace {

using test_support::At;

class SignalPassOverlap : public test_support::DeskTest {
 protected:
  void SetUp() override {
    DeskTest::SetUp();
    if (IsSkipped()) return;
    UseExample("loyalty-flink");
    clock_.Set(At("2026-11-24T15:00:00Z"));
  }

  // A failed not_null check stamped `at` and committed now, after a pass at 15:00:05 moved the
  // cursor past it (as another replica's pass does while this replica's check is still running).
  void RecordLateCheck(TimePoint at) {
    store::CheckResultRow row;
    row.run_id = "run-late";
    row.table_ref = "table://main/member_balances";
    row.check_name = "not_null:balance";
    row.status = store::CheckStatus::kFail;
    row.observed = {{"null_count", 40}, {"null_rate", 0.2}, {"rows", 200}};
    row.observed_at = at;
    ASSERT_TRUE(store_->RecordCheckResults({row}).ok());
  }
};

TEST_P(SignalPassOverlap, AResultCommittedAfterAnotherPassMovedTheCursorIsJudgedOnlyWithTheOverlap) {
  clock_.Set(At("2026-11-24T15:00:05Z"));
  ASSERT_TRUE(RunSignalPass(ws_, Desk(), *store_, clock_).ok());  // the other replica's pass
  RecordLateCheck(At("2026-11-24T15:00:01Z"));
  clock_.Set(At("2026-11-24T15:00:06Z"));
  auto without = RunSignalPass(ws_, Desk(), *store_, clock_);
  ASSERT_TRUE(without.ok());
  EXPECT_TRUE(without->opened.empty()) << "without an overlap the late result is behind the cursor: lost";

  clock_.Set(At("2026-11-24T15:00:07Z"));
  ASSERT_TRUE(RunSignalPass(ws_, Desk(), *store_, clock_).ok());
  RecordLateCheck(At("2026-11-24T15:00:06.500Z"));
  clock_.Set(At("2026-11-24T15:00:08Z"));
  auto with = RunSignalPass(ws_, Desk(), *store_, clock_, std::chrono::minutes(15));
  ASSERT_TRUE(with.ok()) << with.status().ToString();
  ASSERT_EQ(with->opened.size(), 1u);
  // Read again by the next passes inside the overlap: counted once.
  clock_.Set(At("2026-11-24T15:01:00Z"));
  auto again = RunSignalPass(ws_, Desk(), *store_, clock_, std::chrono::minutes(15));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->opened.empty());
  EXPECT_EQ(Get(with->opened[0]).signals[0].count, 1);

  // A person closes it as a false positive; the same result, still inside the overlap, opens
  // nothing.
  ASSERT_TRUE(Desk().Close(with->opened[0], "ana@example.com", CloseReason::kFalsePositive, "known gap").ok());
  clock_.Set(At("2026-11-24T15:02:00Z"));
  auto after_close = RunSignalPass(ws_, Desk(), *store_, clock_, std::chrono::minutes(15));
  ASSERT_TRUE(after_close.ok());
  EXPECT_TRUE(after_close->opened.empty());
}

INSTANTIATE_TEST_SUITE_P(Store, SignalPassOverlap, ::testing::Values("sqlite", "postgresql"), test_support::BackendName);

}  // namespace
}  // namespace dw::incidents
