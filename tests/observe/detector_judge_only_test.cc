// StreamingDetector::ObserveWithoutLearning: judged like Observe, never learnt, never accepted as
// a new normal however long it lasts (the incident case).
#include <gtest/gtest.h>

#include "observe/metrics/detector.h"

namespace dw::observe::metrics {
namespace {
namespace detector_judge_only_test {

constexpr int64_t kHour = 3600LL * 1000;

TEST(DetectorJudgeOnlyTest, PointsAreJudgedButNeverLearntNorRelearnt) {
  DetectorOptions o;
  o.seasonality = Seasonality::kNone;
  StreamingDetector learning("m", o), judging("m", o);
  int64_t t = 0;
  for (int i = 0; i < 300; ++i, t += kHour) {
    learning.Observe(t, 100.0 + i % 5);
    judging.Observe(t, 100.0 + i % 5);
  }
  size_t history = judging.history_size();
  // A normal value is judged normal and still not learnt.
  Verdict quiet = judging.ObserveWithoutLearning(t, 102);
  learning.Observe(t, 102);
  t += kHour;
  EXPECT_EQ(quiet.kind, VerdictKind::kNormal);
  EXPECT_FALSE(quiet.learnt);
  EXPECT_EQ(judging.history_size(), history);
  // A lasting shift: Observe accepts it after relearn_after points; the judge-only detector never does.
  Verdict judged_last;
  size_t relearnt = 0;
  for (int i = 0; i < 12; ++i, t += kHour) {
    relearnt += learning.Observe(t, 20.0 + i % 3).learnt;
    judged_last = judging.ObserveWithoutLearning(t, 20.0 + i % 3);
    EXPECT_TRUE(IsAlarm(judged_last.kind)) << i << ": " << judged_last.explanation;
    EXPECT_FALSE(judged_last.learnt);
  }
  EXPECT_GE(relearnt, 1u);  // Observe accepted the shift (in runs of relearn_after points)
  EXPECT_GT(learning.history_size(), history);
  EXPECT_EQ(judging.history_size(), history);
  EXPECT_NEAR(judged_last.expected, 102, 2);
  // Back to the old level: normal at once for the detector that never learnt the shift.
  EXPECT_EQ(judging.Observe(t, 101).kind, VerdictKind::kNormal);
}

}  // namespace detector_judge_only_test
}  // namespace
}  // namespace dw::observe::metrics
