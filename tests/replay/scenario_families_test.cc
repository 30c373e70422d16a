// Scenario families (docs/scenarios.md, Families): bad input is refused naming what is wrong; a
// seed names one story; seeds vary the story's shape; every variant of every family reads back
// as a scenario; and a fixed sample of every family, replayed through `dw replay --family`,
// concludes what its generator planted, except the known failures listed below, which are
// checked as failures so the list is kept true when diagnosis improves.
#include <gtest/gtest.h>

#include <set>

#include "base/json.h"
#include "replay/families/family.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw::replay::families {
namespace {
namespace scenario_families_test {

using dw::testing::RunCommand;
using dw::testing::TempDir;

TEST(ScenarioFamiliesTest, AnUnknownFamilyIsRefusedListingTheNames) {
  auto r = GenerateFamily("flink-restroe", 1, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no family 'flink-restroe'"), std::string::npos) << r.status().message();
  for (const auto& f : Families()) EXPECT_NE(r.status().message().find(f.name), std::string::npos) << f.name;
}

TEST(ScenarioFamiliesTest, CountAndSeedBoundsAreRefusedNamingTheBound) {
  for (int count : {0, -3, kMaxCount + 1}) {
    auto r = GenerateFamily("monday-rush", 1, count);
    ASSERT_FALSE(r.ok()) << count;
    EXPECT_NE(r.status().message().find("--count: " + std::to_string(count) + " is outside 1..1000"), std::string::npos);
  }
  auto last = GenerateFamily("monday-rush", kMaxSeed - 1, 3);  // the third seed passes the bound
  ASSERT_FALSE(last.ok());
  EXPECT_NE(last.status().message().find("--seed:"), std::string::npos) << last.status().message();
  EXPECT_TRUE(GenerateFamily("monday-rush", kMaxSeed - 1, 2).ok());
}

TEST(ScenarioFamiliesTest, ASeedNamesOneStoryAndSeedsVaryItsShape) {
  for (const auto& f : Families()) {
    auto a = GenerateFamily(f.name, 42, 1), b = GenerateFamily(f.name, 42, 1);
    ASSERT_TRUE(a.ok() && b.ok()) << f.name << ": " << (a.ok() ? b.status().message() : a.status().message());
    EXPECT_EQ((*a)[0].files, (*b)[0].files) << f.name;
    auto many = GenerateFamily(f.name, 100, 24);
    ASSERT_TRUE(many.ok()) << f.name << ": " << many.status().message();
    std::set<std::string> shapes, starts, distractor_counts;
    for (const auto& s : *many) {
      shapes.insert(s.shape);
      starts.insert(s.files.at("scenario.yaml").substr(s.files.at("scenario.yaml").find("start:"), 30));
      distractor_counts.insert(std::to_string(s.distractors.size()));
      EXPECT_EQ(s.benign, f.benign);
      if (!s.benign) {
        EXPECT_FALSE(s.cause.asset.empty()) << s.name;
        EXPECT_TRUE(s.first_bad_write.has_value()) << s.name;
        EXPECT_NE(s.files.at("scenario.yaml").find("cause: {kind: ["), std::string::npos) << s.name;
      } else {
        EXPECT_NE(s.files.at("scenario.yaml").find("no_incident: {}"), std::string::npos) << s.name;
      }
    }
    EXPECT_GE(shapes.size(), 20u) << f.name;
    EXPECT_GE(starts.size(), 20u) << f.name;
    EXPECT_GE(distractor_counts.size(), 3u) << f.name;  // 0 to 3 distractors
  }
}

TEST(ScenarioFamiliesTest, EveryVariantReadsBackAsAScenario) {
  TempDir dir;
  for (const auto& f : Families()) {
    auto stories = GenerateFamily(f.name, 7, 6);
    ASSERT_TRUE(stories.ok()) << stories.status().message();
    auto written = WriteAndReplay(*stories, dir.path(), nullptr, nullptr);
    ASSERT_TRUE(written.ok()) << written.status().message();
    for (const auto& s : *stories) {
      auto read = ReadScenario(dir.path() / s.name);
      EXPECT_TRUE(read.ok()) << s.name << ": " << read.status().message();
    }
    // A folder is never written over.
    EXPECT_FALSE(WriteStory((*stories)[0], dir.path() / (*stories)[0].name).ok());
  }
}

TEST(ScenarioFamiliesTest, TheCommandRefusesBadInputWithExitTwo) {
  auto unknown = RunCommand(std::string(DW_BINARY) + " replay --family nope --seed 1 --count 1");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_NE(unknown.err.find("the families are: connect-sink-task-failed"), std::string::npos) << unknown.err;
  auto count = RunCommand(std::string(DW_BINARY) + " replay --family monday-rush --seed 1 --count 0");
  EXPECT_EQ(count.exit_code, 2);
  EXPECT_NE(count.err.find("--count: 0 is outside 1..1000"), std::string::npos) << count.err;
  auto nowhere = RunCommand(std::string(DW_BINARY) + " replay --family monday-rush --no-replay");
  EXPECT_EQ(nowhere.exit_code, 2);
  EXPECT_NE(nowhere.err.find("--no-replay needs --out"), std::string::npos) << nowhere.err;
}

// The fixed sample: two variants of every family. What the product concludes on each today;
// anything other than "cause first" (incidents) or "quiet" (benign) is a known failure, recorded
// here so this test fails both when another variant breaks and when a known one is fixed.
struct Sample {
  const char* family;
  uint64_t seed;
  const char* outcomes[2];
};

TEST(ScenarioFamiliesTest, AFixedSampleOfEveryFamilyConcludesWhatWasPlanted) {
  const std::vector<Sample> samples = {
#include "tests/replay/scenario_families_sample.inc"
  };
  std::set<std::string> covered;
  for (const auto& s : samples) {
    covered.insert(s.family);
    auto r = RunCommand(std::string(DW_BINARY) + " replay --family " + s.family + " --seed " + std::to_string(s.seed) +
                        " --count 2 --format json");
    Json j = Json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << s.family << ": " << r.out << r.err;
    ASSERT_EQ(j["variants"].size(), 2u) << s.family;
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(j["variants"][i].value("outcome", ""), s.outcomes[i])
          << j["variants"][i].value("name", "") << ": " << j["variants"][i].value("detail", "");
      // The story's other expectations (a benign restore seen at all, ...) hold too.
      EXPECT_FALSE(j["variants"][i].contains("other_failures"))
          << j["variants"][i].value("name", "") << ": " << j["variants"][i]["other_failures"].dump();
    }
  }
  for (const auto& f : Families()) EXPECT_TRUE(covered.count(f.name)) << f.name << " has no sample";
}

}  // namespace scenario_families_test
}  // namespace
}  // namespace dw::replay::families
