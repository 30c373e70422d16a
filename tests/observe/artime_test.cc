// Artime (observe/metrics/artime.h): the probation scores nothing and sets the windows from its
// length, a repeated shape becomes familiar and stops scoring, an unseen shape scores, and a
// point's score depends only on the points up to it.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "observe/metrics/artime.h"
#include "tests/observe/streaming_scorer_test_support.h"

namespace dw::observe::metrics {
namespace {

// A probation of 208 rows: sstep 2 (208 / (8 * 13)), 104 downsampled values.
ArtimeOptions Short() {
  ArtimeOptions o;
  o.probation_rows = 208;
  return o;
}

// A smooth cycle of 32 rows between 10 and 30, noise-free: every window of it recurs.
double Cycle(int i) { return 20 + 10 * std::sin(2 * M_PI * (i % 32) / 32.0); }

TEST(ArtimeTest, TheProbationSetsTheStepAndScoresNothing) {
  Artime a(Short());
  EXPECT_EQ(a.sstep(), 2u);
  for (int i = 0; i < 208; ++i) EXPECT_EQ(a.Observe(i % 7 == 0 ? 100 : 1), 0.0) << i;
  EXPECT_GT(a.categories(), 0u);  // learnt in one batch at the probation's end
  EXPECT_GT(a.rho_lb(), 0.0);

  // NAB's probation from the file's length (look-ahead): 15% of 4,000 rows is 600, so sstep 5;
  // 750 rows from 5,000 on, sstep 7.
  ArtimeOptions nab;
  nab.file_length = 4000;
  EXPECT_EQ(Artime(nab).sstep(), 5u);
  nab.file_length = 20000;
  EXPECT_EQ(Artime(nab).sstep(), 7u);
}

TEST(ArtimeTest, ARepeatedShapeBecomesFamiliarAndAnUnseenOneScores) {
  Artime a(Short());
  for (int i = 0; i < 3000; ++i) a.Observe(Cycle(i));
  // Learnt: a further stretch of the cycle resonates with its categories and scores nothing.
  size_t learnt = a.categories();
  double later = 0;
  for (int i = 3000; i < 3200; ++i) {
    later = std::max(later, a.Observe(Cycle(i)));
    if (i % 2 == 1) {
      EXPECT_TRUE(a.last_familiar()) << i;
    }
  }
  EXPECT_EQ(later, 0.0);
  EXPECT_EQ(a.categories(), learnt);
  // A flat stretch at the cycle's bottom is a shape never seen: it scores within a few steps.
  double flat = 0;
  bool unfamiliar = false;
  for (int i = 0; i < 16; ++i) {
    flat = std::max(flat, a.Observe(10));
    unfamiliar |= !a.last_familiar();
  }
  EXPECT_TRUE(unfamiliar);
  EXPECT_GT(flat, 0.3);
  EXPECT_LE(flat, 1.0);
}

TEST(ArtimeTest, APointsScoreDependsOnlyOnThePointsUpToIt) {
  // Two series with the same first 1,200 points and different tails score those points the
  // same, in each streaming range, and the same series scores the same twice.
  std::vector<double> a, b;
  for (int i = 0; i < 1200; ++i) a.push_back(Cycle(i) + (i % 97 == 0 ? 25 : 0) + (i * 37 % 11) * 0.2);
  b = a;
  for (int i = 0; i < 300; ++i) {
    a.push_back(20 + i % 5);
    b.push_back(1000 - i);
  }
  for (ArtimeRange range : {ArtimeRange::kProbation, ArtimeRange::kLearnt}) {
    ArtimeOptions o = Short();
    o.range = range;
    o.range_margin = 0.25;
    test_support::TwinScores s = test_support::ScoreTwins([&] { return Artime(o); }, a, b);
    EXPECT_EQ(s.a, s.a_again);
    for (size_t i = 0; i < 1200; ++i) ASSERT_EQ(s.a[i], s.b[i]) << i;
    bool scored = false;
    for (double x : s.b) scored |= x > 0;
    EXPECT_TRUE(scored);  // the tail that leaves the range is news
  }
}

TEST(ArtimeTest, AFrozenRangeClampsValuesBeyondIt) {
  // The probation's range is [10, 30]: after it a peak of 1,000 instead of 30 is the same top
  // level, so both series score the same; over the range learnt so far the 1,000 widens the
  // range, every later value lands on other levels, and the scores differ.
  ArtimeOptions learnt = Short();
  learnt.range = ArtimeRange::kLearnt;
  Artime at_max(Short()), beyond(Short()), learnt_max(learnt), learnt_beyond(learnt);
  std::vector<double> s1, s2, s3, s4;
  for (int i = 0; i < 900; ++i) {
    double v = Cycle(i), w = i == 520 ? 1000 : v;  // 520 is a peak of the cycle (i % 32 == 8)
    s1.push_back(at_max.Observe(v));
    s2.push_back(beyond.Observe(w));
    s3.push_back(learnt_max.Observe(v));
    s4.push_back(learnt_beyond.Observe(w));
  }
  EXPECT_EQ(s1, s2);
  EXPECT_NE(s3, s4);
}

}  // namespace
}  // namespace dw::observe::metrics
