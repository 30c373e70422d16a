// CadOse (observe/metrics/cad_ose.h): a repeated shape becomes predicted and scores 0, a value
// never seen in its context scores, a loud score silences the next rest_period points, and a
// point's score depends only on the points up to it.
#include <gtest/gtest.h>

#include <vector>

#include "observe/metrics/cad_ose.h"
#include "tests/observe/streaming_scorer_test_support.h"

namespace dw::observe::metrics {
namespace {

CadOseOptions FixedRange(size_t rest) {
  CadOseOptions o;
  o.rest_period = rest;
  o.fixed_min = 0;
  o.fixed_max = 7;
  return o;
}

// 0, 0, 7, 7, 0, 0, 7, 7, ...
double Square(int i) { return i % 4 < 2 ? 0 : 7; }

TEST(CadOseTest, TheFirstRestPeriodScoresNothing) {
  CadOse cad(FixedRange(5));
  // The score history starts at 1, as the original's does: the first 5 points are a rest period.
  for (int i = 0; i < 5; ++i) EXPECT_EQ(cad.Observe(i), 0.0) << i;
}

TEST(CadOseTest, ARepeatedShapeBecomesPredictedAndANewOneScores) {
  CadOse cad(FixedRange(5));
  for (int i = 0; i < 400; ++i) cad.Observe(Square(i));
  // Learnt: every value of the next cycle is predicted, so it scores 0.
  for (int i = 400; i < 404; ++i) {
    EXPECT_EQ(cad.Observe(Square(i)), 0.0) << i;
    EXPECT_TRUE(cad.last_predicted()) << i;
  }
  size_t learnt = cad.contexts();
  // A middle value (level 3) was never seen: not predicted, new contexts, a high score.
  double score = cad.Observe(3);
  EXPECT_FALSE(cad.last_predicted());
  EXPECT_GT(cad.contexts(), learnt);
  EXPECT_GE(score, 0.75);
  EXPECT_DOUBLE_EQ(score, cad.last_raw_score());
  // A loud score starts a rest period: the next 5 points return 0 whatever they are.
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(cad.Observe(i % 2 ? 5 : 1), 0.0) << i;
  }
}

TEST(CadOseTest, APointsScoreDependsOnlyOnThePointsUpToIt) {
  // Learnt range, no look-ahead: two series with the same first 300 points and different tails
  // score those 300 points the same, and the same series scores the same twice.
  std::vector<double> a, b;
  for (int i = 0; i < 300; ++i) a.push_back(10 + (i * 37 % 11) + (i % 50 == 0 ? 30 : 0));
  b = a;
  for (int i = 0; i < 100; ++i) {
    a.push_back(10 + i % 5);
    b.push_back(1000 - i);
  }
  CadOseOptions o;
  o.rest_period = 20;
  test_support::TwinScores s = test_support::ScoreTwins([&] { return CadOse(o); }, a, b);
  EXPECT_EQ(s.a, s.a_again);
  for (size_t i = 0; i < 300; ++i) EXPECT_EQ(s.a[i], s.b[i]) << i;
  bool scored = false;
  for (double x : s.a) scored |= x > 0;
  EXPECT_TRUE(scored);  // not silent: the spikes every 50 points are news at first
}

TEST(CadOseTest, AFixedRangeClampsValuesBeyondIt) {
  CadOse at_max(FixedRange(5)), beyond(FixedRange(5));
  for (int i = 0; i < 100; ++i) {
    at_max.Observe(Square(i));
    beyond.Observe(Square(i));
  }
  // Far above the range is the top level, the same facts as the maximum itself.
  EXPECT_EQ(at_max.Observe(7), beyond.Observe(1000));
  EXPECT_EQ(at_max.Observe(0), beyond.Observe(-1000));
  EXPECT_EQ(at_max.contexts(), beyond.contexts());
}

TEST(CadOseTest, ExtendedLevelsGiveValuesBeyondTheRangeFactsOfTheirOwn) {
  CadOseOptions o = FixedRange(5);
  o.extend_levels = true;
  CadOse same(o), beyond(o), below(o), clamped(FixedRange(5));
  for (int i = 0; i < 402; ++i) {
    same.Observe(Square(i));
    clamped.Observe(Square(i));
    beyond.Observe(Square(i));
    below.Observe(Square(i));
  }
  // A 7 is due: predicted. A 1000 in its place is level 1000, ten bits, never seen; a -3 is
  // level 3 below the range, a fact of its own. Clamped, the 1000 is just a 7.
  EXPECT_EQ(same.Observe(7), 0.0);
  EXPECT_TRUE(same.last_predicted());
  EXPECT_EQ(clamped.Observe(1000), 0.0);
  EXPECT_TRUE(clamped.last_predicted());
  EXPECT_GT(beyond.Observe(1000), 0.5);
  EXPECT_FALSE(beyond.last_predicted());
  EXPECT_GT(below.Observe(-3), 0.5);
  EXPECT_FALSE(below.last_predicted());
}

TEST(CadOseTest, ALearntRangeWidenedByAMarginGivesNewExtremesLevelsOfTheirOwn) {
  // Over the range seen so far, the series' own maximum is the top level; widened by half its
  // width on each side, a value far above the maximum lands on a level the series never used.
  CadOseOptions widened;
  widened.rest_period = 5;
  widened.range_margin = 0.5;
  widened.freeze_after = 200;
  CadOse w(widened);
  for (int i = 0; i < 400; ++i) w.Observe(Square(i));
  for (int i = 400; i < 404; ++i) {
    w.Observe(Square(i));
    EXPECT_TRUE(w.last_predicted()) << i;
  }
  // The widened range is frozen at [-3.5, 10.5]: a 30 lands on the top level, beyond the
  // square wave's (level 5 of 0..7), and is not predicted.
  w.Observe(30);
  EXPECT_FALSE(w.last_predicted());
  EXPECT_GE(w.last_raw_score(), 0.75);
}

}  // namespace
}  // namespace dw::observe::metrics
