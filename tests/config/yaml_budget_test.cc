// The alias bound every reader of untrusted YAML checks (config/yaml_budget.h), and the readers that
// check it: the workspace loader (tests/config/workspace_loader_test.cc), scenario files and Kestra
// flows. Found by the workspace fuzz target: nested aliases ran the loader out of memory.
#include "config/yaml_budget.h"

#include <gtest/gtest.h>

#include <string>

#include "graph/kestra_flows.h"
#include "replay/replay.h"
#include "tests/support/subprocess.h"

namespace dw {
namespace {

// `levels` nested lists, each holding ten aliases of the one before: 10^(levels+1) nodes expanded.
std::string AliasBomb(const std::string& key_prefix, int levels) {
  std::string out = key_prefix + "0: &" + key_prefix + "0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= levels; ++i) {
    const std::string name = key_prefix + std::to_string(i), prev = "*" + key_prefix + std::to_string(i - 1);
    out += name + ": &" + name + " [" + prev;
    for (int k = 0; k < 9; ++k) out += ", " + prev;
    out += "]\n";
  }
  return out;
}

TEST(YamlBudgetTest, CountsWithAliasesFollowedAndStopsAtTheBound) {
  EXPECT_TRUE(config::YamlWithinNodeBudget(YAML::Load(AliasBomb("a", 2))));  // about 1,100 nodes
  EXPECT_FALSE(config::YamlWithinNodeBudget(YAML::Load(AliasBomb("a", 2)), 500));
  EXPECT_FALSE(config::YamlWithinNodeBudget(YAML::Load(AliasBomb("a", 9))));  // 10^10, refused at once
  EXPECT_TRUE(config::YamlWithinNodeBudget(YAML::Load("a: &d {b: 1}\nc: *d\n")));
  EXPECT_FALSE(config::YamlWithinNodeBudget(YAML::Load("a: &a [*a]\n")));  // infinite: the depth bound ends it
}

TEST(YamlBudgetTest, AScenarioThatExpandsPastTheBoundIsRefusedNamingItsFile) {
  testing::TempDir dir;
  dir.Write("scenario.yaml", "version: 1\nname: bomb\n" + AliasBomb("x-a", 9));
  auto s = replay::ReadScenario(dir.path());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("scenario.yaml:0: (file): the scenario expands to more than 1000000"),
            std::string::npos)
      << s.status().message();
}

TEST(YamlBudgetTest, AKestraFlowThatExpandsPastTheBoundIsRefusedNamingItsFile) {
  graph::SourceBatch b;
  graph::GraphIndex ix;
  Status st = graph::AddKestraFlow("id: x\nnamespace: n\n" + AliasBomb("x-t", 9), "flows/x.yml", {}, ix, &b);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().rfind("flows/x.yml:1: the flow expands to more than 1000000", 0), 0u) << st.message();
}

}  // namespace
}  // namespace dw
