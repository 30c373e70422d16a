// The schema and the reference docs describe the same keys: a key added to one without the
// other fails here.
#include <filesystem>
#include <fstream>
#include <set>
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

// The other direction: every key the reference tables of docs/workspace.md name (the first cell
// of a row of a table of keys) is one the schema accepts, as a key or as one of a key's values; a row for a key
// the loader would refuse as unknown fails here. The `${NAME}` substitution rows are not keys.
TEST(ConfigSchemaTest, EveryKeyTheDocsNameIsAccepted) {
  std::ifstream in(std::filesystem::path(DW_SOURCE_DIR) / "docs/workspace.md");
  ASSERT_TRUE(in) << "docs/workspace.md is missing";
  std::vector<std::string> keys;
  CollectKeys(WorkspaceSchema(), &keys);
  std::set<std::string> accepted(keys.begin(), keys.end());
  std::vector<const ValueSchema*> stack = {&WorkspaceSchema()};
  while (!stack.empty()) {
    const ValueSchema* s = stack.back();
    stack.pop_back();
    accepted.insert(s->choices.begin(), s->choices.end());
    for (const auto& f : s->fields) stack.push_back(&f.value);
    if (s->element) stack.push_back(s->element.get());
  }
  size_t rows = 0;
  std::string line, header;  // header: the first cell of the current table's header row
  bool in_table = false;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.rfind("|", 0) != 0) {
      in_table = false;
      continue;
    }
    if (!in_table) {
      in_table = true;
      header = line.substr(1, line.find('|', 1) - 1);
      continue;
    }
    // Tables of keys (`key`, and the channels under notify:); not the tables of asset kinds or
    // of the value types.
    if (header != " key " && header != " channel ") continue;
    if (line.rfind("| `", 0) != 0) continue;
    const size_t end = line.find('`', 3);
    if (end == std::string::npos) continue;
    const std::string key = line.substr(3, end - 3);
    if (key.empty() || key[0] == '$') continue;
    ++rows;
    EXPECT_TRUE(accepted.count(key)) << "docs/workspace.md:" << n << " names `" << key
                                     << "`, which the workspace schema does not accept";
  }
  EXPECT_GT(rows, 60u);
}

}  // namespace
}  // namespace dw::config
