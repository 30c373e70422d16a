// The compatibility corpus: every case's verdict, versions checked and messages agree with what
// Confluent Schema Registry answers (tests/schema/make_corpus.py says where each case comes from).
#include <gtest/gtest.h>

#include <filesystem>

#include "schema/corpus_case.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw::schema {
namespace {

std::vector<CorpusCase> LoadAll() {
  std::vector<CorpusCase> all;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(DW_SOURCE_DIR) / "tests/schema/corpus")) {
    auto cases = ParseCorpus(Json::parse(dw::testing::ReadWholeFile(entry.path())));
    EXPECT_TRUE(cases.ok()) << entry.path() << ": " << cases.status().ToString();
    if (cases.ok()) all.insert(all.end(), cases->begin(), cases->end());
  }
  return all;
}

TEST(SchemaCorpus, HoldsAtLeastTwoHundredPairsOfBothFormatsAndEveryLevel) {
  auto all = LoadAll();
  EXPECT_GE(all.size(), 200u);
  std::set<std::string> levels, formats;
  for (const auto& c : all) {
    levels.insert(LevelName(c.level));
    formats.insert(FormatName(c.format));
    EXPECT_FALSE(c.source.empty()) << c.id;
  }
  EXPECT_EQ(levels.size(), 7u);
  EXPECT_EQ(formats.size(), 2u);
}

TEST(SchemaCorpus, EveryCaseAgreesWithTheRegistry) {
  size_t incompatible = 0;
  for (const auto& c : LoadAll()) {
    EXPECT_EQ(ReplayCorpusCase(c), "") << c.id << " (" << c.source << ")";
    incompatible += c.compatible ? 0 : 1;
  }
  EXPECT_GT(incompatible, 50u);  // the corpus is not only compatible pairs
}

}  // namespace
}  // namespace dw::schema
