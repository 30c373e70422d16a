// ContextNovelty: a never-seen shape scores 1, a familiar one less, and the detector's score (not
// its verdict) ranks a novel point.
#include <gtest/gtest.h>

#include "observe/metrics/context_novelty.h"
#include "observe/metrics/detector.h"

namespace dw::observe::metrics {
namespace {
namespace context_novelty_test {

constexpr int64_t kHour = 3600LL * 1000;

TEST(ContextNoveltyTest, SilentDuringWarmupThenScoresUnseenContexts) {
  ContextNovelty n(4, 2);
  // A square wave between 0 and 10: contexts (low, low), (low, high), (high, high), (high, low).
  double last = 1;
  for (int i = 0; i < 40; ++i) last = n.Observe(i % 4 < 2 ? 0 : 10, 20);
  EXPECT_LT(last, 0.2);  // seen many times
  EXPECT_LT(n.Observe(0, 20), 0.2);  // high then low: familiar
  // A middle value after a low one: a context never seen before.
  EXPECT_DOUBLE_EQ(n.Observe(5, 20), 1.0);
  // The same context again: seen once.
  n.Observe(0, 20);
  EXPECT_DOUBLE_EQ(n.Observe(5, 20), 0.5);
  // Far outside the range seen so far: novel whatever the context.
  EXPECT_DOUBLE_EQ(n.Observe(100, 20), 1.0);
}

TEST(ContextNoveltyTest, NothingDuringWarmup) {
  ContextNovelty n(4, 2);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(n.Observe(i * 100.0, 10), 0.0) << i;
  EXPECT_EQ(n.Observe(1e6, 10), 1.0);
}

TEST(ContextNoveltyTest, DetectorRanksANovelPointWithoutChangingTheVerdict) {
  DetectorOptions o;
  o.seasonality = Seasonality::kNone;
  StreamingDetector d("m", o);
  int64_t t = 0;
  // A noisy series with a wide, stable range, then a value it has rarely reached.
  for (int i = 0; i < 400; ++i, t += kHour) d.Observe(t, 100.0 + (i * 37 % 21) - 10);
  Verdict familiar = d.Observe(t, 100.0 + (400 * 37 % 21) - 10);  // the cycle goes on
  t += kHour;
  EXPECT_EQ(familiar.kind, VerdictKind::kNormal);
  EXPECT_LT(familiar.score, 0.5);
  // Just beyond the range seen so far: within the detector's band (spread floor at the 98th
  // percentile), so the verdict stays normal, but the shape is new.
  Verdict novel = d.Observe(t, 115);
  EXPECT_EQ(novel.kind, VerdictKind::kNormal) << novel.explanation;
  EXPECT_DOUBLE_EQ(novel.novelty, 1.0);
  EXPECT_GE(novel.score, 0.6);
  // A second novel point soon after is the same news: cut to 30%.
  t += kHour;
  Verdict again = d.Observe(t, 119);
  EXPECT_LT(again.score, 0.5) << again.explanation;
}

}  // namespace context_novelty_test
}  // namespace
}  // namespace dw::observe::metrics
