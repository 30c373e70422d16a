// The schema and the reference docs describe the same keys: a key added to one without the
// other fails here.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "config/workspace_schema.h"
#include "tests/support/build_paths.h"

namespace dw::config {
namespace {

void CollectKeys(const ValueSchema& s, std::vector<std::string>* keys) {
  for (const auto& f : s.fields) {
    keys->push_back(f.key);
    CollectKeys(f.value, keys);
  }
  if (s.element) CollectKeys(*s.element, keys);
}

TEST(ConfigSchemaTest, EveryKeyIsDocumented) {
  std::ifstream in(std::filesystem::path(DW_SOURCE_DIR) / "docs/workspace.md");
  ASSERT_TRUE(in) << "docs/workspace.md is missing";
  std::stringstream doc;
  doc << in.rdbuf();
  std::vector<std::string> keys;
  CollectKeys(WorkspaceSchema(), &keys);
  EXPECT_GT(keys.size(), 60u);
  for (const auto& k : keys)
    EXPECT_NE(doc.str().find("`" + k + "`"), std::string::npos) << "undocumented key: " << k;
}

TEST(ConfigSchemaTest, EnumValuesAreDocumented) {
  std::ifstream in(std::filesystem::path(DW_SOURCE_DIR) / "docs/workspace.md");
  std::stringstream doc;
  doc << in.rdbuf();
  std::vector<const ValueSchema*> stack = {&WorkspaceSchema()};
  while (!stack.empty()) {
    const ValueSchema* s = stack.back();
    stack.pop_back();
    for (const auto& c : s->choices)
      EXPECT_NE(doc.str().find("`" + c + "`"), std::string::npos) << "undocumented value: " << c;
    for (const auto& f : s->fields) stack.push_back(&f.value);
    if (s->element) stack.push_back(s->element.get());
  }
}

}  // namespace
}  // namespace dw::config
