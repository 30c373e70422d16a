// NAB scoring pinned against hand-computed cases (see the arithmetic in each comment).
#include "observe/metrics/nab_score.h"

#include <gtest/gtest.h>

namespace dw::observe::metrics {
namespace {

// 200 rows: probation is floor(0.15 * 200) = 30 rows; one window on rows 100..103 (width 4).
// The many rows scored 0 make the threshold 0 (flag everything) a poor choice, as in real files.
NabFile TwoHundredRows() {
  NabFile f;
  f.name = "f.csv";
  f.scores.assign(200, 0.0);
  f.windows = {{100, 103}};
  return f;
}

const NabProfile kStandard{"standard", 1.0, 0.11, 1.0};

TEST(NabScoreTest, ProbationIsFifteenPercentCappedAt750) {
  EXPECT_EQ(NabProbationRows(20), 3u);
  EXPECT_EQ(NabProbationRows(4032), 604u);
  EXPECT_EQ(NabProbationRows(22695), 750u);
}

TEST(NabScoreTest, DetectionAtTheWindowStartEarnsTheFullTruePositive) {
  NabFile f = TwoHundredRows();
  f.scores[100] = 1.0;
  NabResult r = ScoreNab({f}, kStandard);
  EXPECT_DOUBLE_EQ(r.threshold, 1.0);
  EXPECT_NEAR(r.raw, 1.0, 1e-12);
  EXPECT_NEAR(r.normalized, 100.0, 1e-9);
  EXPECT_EQ(r.windows, 1u);
  EXPECT_EQ(r.detected_windows, 1u);
}

TEST(NabScoreTest, LaterDetectionEarnsLessAlongTheScaledSigmoid) {
  // Row 102: position -(103 - 102 + 1) / 4 = -0.5; (2/(1+e^-2.5) - 1) / (2/(1+e^-5) - 1) = 0.859793.
  NabFile f = TwoHundredRows();
  f.scores[102] = 1.0;
  f.scores[103] = 1.0;  // a second detection in the same window adds nothing
  NabResult r = ScoreNab({f}, kStandard);
  EXPECT_NEAR(r.raw, 0.8597925669, 1e-9);
  EXPECT_NEAR(r.normalized, 92.98962834548918, 1e-7);
}

TEST(NabScoreTest, FalsePositiveBeforeAnyWindowCostsFullWeight) {
  // Threshold 0.9: FP (-0.11) and the window missed (-1) = -1.11 < -1 (detect nothing).
  // Threshold 0.8: -0.11 + 1 = 0.89, the best. Normalised: 100 (0.89 + 1) / 2 = 94.5.
  NabFile f = TwoHundredRows();
  f.scores[50] = 0.9;
  f.scores[100] = 0.8;
  NabResult r = ScoreNab({f}, kStandard);
  EXPECT_DOUBLE_EQ(r.threshold, 0.8);
  EXPECT_NEAR(r.raw, 0.89, 1e-12);
  EXPECT_NEAR(r.normalized, 94.5, 1e-9);
  EXPECT_EQ(r.false_positives, 1u);
}

TEST(NabScoreTest, FalsePositiveJustAfterAWindowCostsLess) {
  // Row 105: (105 - 103) / (4 - 1) = 2/3 past the window; 0.11 * (2/(1+e^(10/3)) - 1) = -0.102422.
  NabFile f = TwoHundredRows();
  f.scores[100] = 1.0;
  f.scores[105] = 1.0;
  auto rows = NabRowWeights(f, kStandard, 0);
  ASSERT_EQ(rows.size(), 170u);  // rows 30..199
  EXPECT_NEAR(rows[105 - 30].weight, -0.10242205695343354, 1e-12);
  EXPECT_EQ(rows[105 - 30].window, -1);
  EXPECT_EQ(rows[100 - 30].window, 0);
  NabResult r = ScoreNab({f}, kStandard);
  EXPECT_NEAR(r.raw, 1.0 - 0.10242205695343354, 1e-12);
}

TEST(NabScoreTest, DetectionsInProbationAreIgnored) {
  NabFile f = TwoHundredRows();
  f.scores[2] = 1.0;  // row 2 < 30: probation
  NabResult r = ScoreNab({f}, kStandard);
  EXPECT_EQ(r.false_positives, 0u);
  EXPECT_NEAR(r.normalized, 0.0, 1e-12);
}

TEST(NabScoreTest, OnlyFalsePositivesChoosesToDetectNothing) {
  NabFile f = TwoHundredRows();
  f.scores[50] = 1.0;
  NabResult r = ScoreNab({f}, kStandard);
  EXPECT_DOUBLE_EQ(r.threshold, 1.1);
  EXPECT_NEAR(r.raw, -1.0, 1e-12);
  EXPECT_NEAR(r.normalized, 0.0, 1e-12);
}

TEST(NabScoreTest, ProfilesWeighMissesAndFalsePositivesDifferently) {
  // Detect the window at its start plus 10 FPs before it: standard 1 - 1.1 = -0.1 (vs -1 for
  // nothing: normalised 45); low-FP 1 - 2.2 = -1.2 < -1, so it detects nothing (0); low-FN
  // 1 - 1.1 = -0.1 vs -2: 100 (-0.1 + 2) / 3 = 63.33.
  NabFile f;
  f.scores.assign(40, 0.0);
  f.windows = {{30, 33}};
  for (size_t i = 10; i < 20; ++i) f.scores[i] = 1.0;
  f.scores[30] = 1.0;
  auto profiles = NabProfiles();
  ASSERT_EQ(profiles.size(), 3u);
  EXPECT_NEAR(ScoreNab({f}, profiles[0]).normalized, 45.0, 1e-9);
  EXPECT_NEAR(ScoreNab({f}, profiles[1]).normalized, 0.0, 1e-9);
  EXPECT_NEAR(ScoreNab({f}, profiles[2]).normalized, 100.0 * 1.9 / 3.0, 1e-9);
}

TEST(NabScoreTest, ThresholdIsSharedAcrossFiles) {
  // File a: window detected at 0.6; file b: FP at 0.7 and nothing else. One threshold: 0.6 gives
  // 1 - 0.11 + (-1 for b's window) ... b has no window, so: 1 - 0.11 = 0.89 vs -1 at none.
  NabFile a = TwoHundredRows();
  a.scores[100] = 0.6;
  NabFile b;
  b.scores.assign(20, 0.0);
  b.scores[8] = 0.7;
  NabResult r = ScoreNab({a, b}, kStandard);
  EXPECT_DOUBLE_EQ(r.threshold, 0.6);
  EXPECT_NEAR(r.raw, 0.89, 1e-12);
  EXPECT_EQ(r.windows, 1u);
}

}  // namespace
}  // namespace dw::observe::metrics
