#include <cstdlib>
#include <map>

#include <gtest/gtest.h>

#include "config/env_substitution.h"

namespace dw::config {
namespace {

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(ConfigEnvSubstitutionTest, SubstitutesAndRecordsEnvValues) {
  auto r = SubstituteEnv("postgresql://dw:${PGPASSWORD}@${PGHOST:-127.0.0.1}/dw",
                         Env({{"PGPASSWORD", "pw123"}}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->text, "postgresql://dw:pw123@127.0.0.1/dw");
  EXPECT_EQ(r->env_values, std::vector<std::string>{"pw123"});  // the default is not a secret
}

TEST(ConfigEnvSubstitutionTest, DefaultAppliesWhenUnsetOrEmpty) {
  EXPECT_EQ(SubstituteEnv("${A:-x}", Env({}))->text, "x");
  EXPECT_EQ(SubstituteEnv("${A:-x}", Env({{"A", ""}}))->text, "x");
  EXPECT_EQ(SubstituteEnv("${A:-x}", Env({{"A", "y"}}))->text, "y");
  EXPECT_EQ(SubstituteEnv("${A:-}", Env({}))->text, "");
  EXPECT_EQ(SubstituteEnv("${A}", Env({{"A", ""}}))->text, "");  // set but empty is a value
}

TEST(ConfigEnvSubstitutionTest, DollarEscapesAndLoneDollars) {
  EXPECT_EQ(SubstituteEnv("$${HOME}", Env({}))->text, "${HOME}");
  EXPECT_EQ(SubstituteEnv("cost $$5", Env({}))->text, "cost $5");
  EXPECT_EQ(SubstituteEnv("WHERE id = $1 AND x = '$'", Env({}))->text, "WHERE id = $1 AND x = '$'");
  EXPECT_EQ(SubstituteEnv("ends with $", Env({}))->text, "ends with $");
}

TEST(ConfigEnvSubstitutionTest, UnsetVariableIsNamed) {
  auto r = SubstituteEnv("${SLACK_WEBHOOK}", Env({}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("environment variable SLACK_WEBHOOK is not set"),
            std::string::npos);
}

TEST(ConfigEnvSubstitutionTest, MalformedReferences) {
  EXPECT_NE(SubstituteEnv("${OPEN", Env({})).status().message().find("without a closing"),
            std::string::npos);
  EXPECT_NE(SubstituteEnv("${}", Env({})).status().message().find("not a variable reference"),
            std::string::npos);
  EXPECT_NE(SubstituteEnv("${A-B}", Env({})).status().message().find("not a variable reference"),
            std::string::npos);
  EXPECT_NE(SubstituteEnv("${A:-${B}}", Env({})).status().message().find("cannot hold another"),
            std::string::npos);
}

TEST(ConfigEnvSubstitutionTest, ProcessEnvReadsTheEnvironment) {
  setenv("DW_CONFIG_TEST_VAR", "from-process", 1);
  EXPECT_EQ(SubstituteEnv("${DW_CONFIG_TEST_VAR}", ProcessEnv())->text, "from-process");
  unsetenv("DW_CONFIG_TEST_VAR");
  EXPECT_FALSE(SubstituteEnv("${DW_CONFIG_TEST_VAR}", ProcessEnv()).ok());
}

}  // namespace
}  // namespace dw::config
