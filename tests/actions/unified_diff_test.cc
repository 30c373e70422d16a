// Diffs are real diffs of real files, checked to apply; a file that changed since is a conflict.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <random>

#include "actions/actions.h"

namespace dw::actions {
namespace {
namespace unified_diff_test {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kManifest = R"(apiVersion: flink.apache.org/v1beta1
kind: FlinkDeployment
metadata:
  name: points-balance
  namespace: loyalty
spec:
  image: registry/points-balance:1.8.0   # the bad release
  flinkVersion: v1_18
  job:
    jarURI: local:///opt/flink/usrlib/points-balance.jar
    upgradeMode: savepoint
    allowNonRestoredState: true
    parallelism: 4
    state: running
)";

TEST(UnifiedDiffTest, ADiffRoundTripsAndNamesOnlyWhatChanged) {
  std::string before = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
  std::string after = "a\nb\nC\nd\ne\nf\ng\nh\ni\nj\nk\n";
  std::string diff = MakeUnifiedDiff("x.txt", before, after);
  EXPECT_THAT(diff, HasSubstr("--- a/x.txt\n+++ b/x.txt\n"));
  EXPECT_THAT(diff, HasSubstr("-c\n+C\n"));
  EXPECT_THAT(diff, HasSubstr("+k\n"));
  Result<std::string> applied = ApplyUnifiedDiff(diff, before);
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_EQ(*applied, after);
  EXPECT_EQ(MakeUnifiedDiff("x.txt", before, before), "");
}

TEST(UnifiedDiffTest, MissingFinalNewlinesSurviveTheRoundTrip) {
  std::string before = "a\nb", after = "a\nb\nc";
  std::string diff = MakeUnifiedDiff("f", before, after);
  EXPECT_THAT(diff, HasSubstr("\\ No newline at end of file"));
  EXPECT_EQ(*ApplyUnifiedDiff(diff, before), after);
  EXPECT_EQ(*ApplyUnifiedDiff(MakeUnifiedDiff("f", after, before), after), before);
}

TEST(UnifiedDiffTest, AFileThatChangedSinceIsAConflictNeverPatchedBlindly) {
  std::string before = "one\ntwo\nthree\nfour\n";
  std::string diff = MakeUnifiedDiff("f", before, "one\n2\nthree\nfour\n");
  Result<std::string> conflict = ApplyUnifiedDiff(diff, "one\nTWO\nthree\nfour\n");
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(conflict.status().message(), HasSubstr("conflict: line 2"));
  // A context line that moved is also a conflict (no fuzz, no offset search).
  EXPECT_FALSE(ApplyUnifiedDiff(diff, "zero\none\ntwo\nthree\nfour\n").ok());
  EXPECT_EQ(ApplyUnifiedDiff("garbage\n", before).status().code(), StatusCode::kInvalidArgument);
}

// The reverse of a diff undoes it: applied to the text after, it gives the text before, over a
// seeded family of edits (lines added, removed and changed, at the start and the end, with and
// without a final newline); it applies to nothing else without a conflict.
TEST(UnifiedDiffTest, TheReverseOfADiffGivesTheTextBeforeBack) {
  for (uint32_t seed = 1; seed <= 30; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&rng](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
    std::vector<std::string> lines;
    for (int i = 0, n = 3 + pick(30); i < n; ++i) lines.push_back("line " + std::to_string(pick(1000)));
    std::vector<std::string> after_lines = lines;
    for (int e = 0, edits = 1 + pick(4); e < edits; ++e) {
      const size_t at = static_cast<size_t>(pick(static_cast<int>(after_lines.size()) + 1));
      switch (pick(3)) {
        case 0: after_lines.insert(after_lines.begin() + static_cast<long>(at), "added " + std::to_string(e)); break;
        case 1: if (at < after_lines.size()) after_lines.erase(after_lines.begin() + static_cast<long>(at)); break;
        default: if (at < after_lines.size()) after_lines[at] = "changed " + std::to_string(e);
      }
    }
    auto join = [&](const std::vector<std::string>& v, bool final_newline) {
      std::string t;
      for (const std::string& l : v) t += l + "\n";
      if (!final_newline && !t.empty()) t.pop_back();
      return t;
    };
    const std::string before = join(lines, pick(4) != 0), after = join(after_lines, pick(4) != 0);
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + before + "\n----\n" + after);
    const std::string diff = MakeUnifiedDiff("flow.yml", before, after);
    auto reverse = ReverseUnifiedDiff(diff);
    ASSERT_TRUE(reverse.ok()) << reverse.status().ToString();
    EXPECT_EQ(reverse->empty(), before == after);
    if (before == after) continue;
    auto back = ApplyUnifiedDiff(*reverse, after);
    ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << *reverse;
    EXPECT_EQ(*back, before);
    // Reversed twice, the diff itself.
    auto twice = ReverseUnifiedDiff(*reverse);
    ASSERT_TRUE(twice.ok());
    EXPECT_EQ(*twice, diff);
  }
  EXPECT_FALSE(ReverseUnifiedDiff("--- a/x\n+++ b/x\n@@ nonsense\n").ok());
  EXPECT_FALSE(ReverseUnifiedDiff("not a diff\n").ok());
  EXPECT_TRUE(ReverseUnifiedDiff("").ok());
}

TEST(FlinkRedeployTest, RedeploysFromTheSavepointAndKeepsEveryOtherLine) {
  Result<std::string> after =
      RedeployFromSavepoint(kManifest, "points-balance", "s3://sp/points-balance/savepoint-6", 42);
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  YAML::Node doc = YAML::Load(*after);
  EXPECT_EQ(doc["spec"]["job"]["initialSavepointPath"].as<std::string>(),
            "s3://sp/points-balance/savepoint-6");
  EXPECT_EQ(doc["spec"]["job"]["savepointRedeployNonce"].as<int64_t>(), 42);
  EXPECT_FALSE(doc["spec"]["job"]["allowNonRestoredState"].as<bool>());
  EXPECT_EQ(doc["spec"]["job"]["upgradeMode"].as<std::string>(), "savepoint");
  std::string diff = MakeUnifiedDiff("deploy/points-balance.yaml", kManifest, *after);
  EXPECT_THAT(diff, HasSubstr("-    allowNonRestoredState: true\n+    allowNonRestoredState: false\n"));
  EXPECT_THAT(diff, HasSubstr("+    initialSavepointPath: \"s3://sp/points-balance/savepoint-6\"\n"));
  EXPECT_THAT(diff, HasSubstr("+    savepointRedeployNonce: 42\n"));
  EXPECT_THAT(diff, Not(HasSubstr("-  image:")));  // the comment and other lines untouched
  EXPECT_EQ(*ApplyUnifiedDiff(diff, kManifest), *after);
}

TEST(FlinkRedeployTest, SaysWhatIsMissingInsteadOfInventingIt) {
  EXPECT_EQ(RedeployFromSavepoint(kManifest, "other-job", "s3://sp/x", 1).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(RedeployFromSavepoint(kManifest, "points-balance", "", 1).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RedeployFromSavepoint("kind: FlinkDeployment\nmetadata:\n  name: x\nspec:\n  image: y\n",
                                  "x", "s3://sp", 1)
                .status()
                .code(),
            StatusCode::kNotFound);
}

TEST(FlinkRedeployTest, FindsTheDeploymentAmongSeveralDocuments) {
  std::string two = std::string("kind: ConfigMap\nmetadata:\n  name: points-balance\n---\n") + kManifest;
  Result<std::string> after = RedeployFromSavepoint(two, "points-balance", "s3://sp/6", 7);
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->substr(0, 49), two.substr(0, 49));
  EXPECT_THAT(*after, HasSubstr("savepointRedeployNonce: 7"));
}

}  // namespace unified_diff_test
}  // namespace
}  // namespace dw::actions
