// LoadYamlDocuments: the documents LoadAll reads, and an error (not an endless loop that runs the
// process out of memory, as yaml-cpp 0.7's LoadAll does) for a stream with a stray ','.
#include "config/yaml_documents.h"

#include <gtest/gtest.h>

namespace dw::config {
namespace {

TEST(YamlDocumentsTest, ReadsEveryDocumentOfAStream) {
  auto docs = LoadYamlDocuments("a: 1\n---\nb: [2, 3]\n---\n");
  ASSERT_GE(docs.size(), 2u);
  EXPECT_EQ(docs[0]["a"].as<int>(), 1);
  EXPECT_EQ(docs[1]["b"][1].as<int>(), 3);
  EXPECT_TRUE(LoadYamlDocuments("").empty());
}

// Found by the workspace fuzz target (a timeout, then 2 GB of memory): the whole input reduced to
// one ','. Before the fix this test never returns.
TEST(YamlDocumentsTest, AStrayCommaIsASyntaxErrorWithItsPlaceNotAnEndlessLoop) {
  for (std::string text : {",", "# a comment\n, y\n", "x: 1\n---\n,\n"}) {
    try {
      LoadYamlDocuments(text);
      ADD_FAILURE() << "no error for " << text;
    } catch (const YAML::ParserException& e) {
      EXPECT_NE(e.msg.find("stray ','"), std::string::npos) << e.msg;
      EXPECT_FALSE(e.mark.is_null());
    }
  }
}

}  // namespace
}  // namespace dw::config
