// The check vocabulary: what parses, and errors that name the key that is wrong.
#include "observe/quality/check_spec.h"

#include <gtest/gtest.h>

#include "observe/quality/table_plan.h"

namespace dw::observe::quality {
namespace {
namespace check_spec_test {

Status Parse(const char* json, SpecSource source = SpecSource::kInline) {
  return ParseCheckSpec(Json::parse(json), "check", source).status();
}

TEST(CheckSpecTest, ParsesEveryCheckType) {
  auto spec = ParseCheckSpec(Json::parse(R"({
      "time_column": "t", "not_null": ["a", "b"], "unique": ["a", ["b", "c"]],
      "freshness": {"max_age": "30m"}, "volume": {"min_rows": 1, "max_rows": 9, "window": "1d"},
      "accepted_values": {"tier": ["gold", 1, true]}, "range": {"x": {"min": 0}},
      "schema": true, "row_count_change": {"max_drop_pct": 50},
      "custom": [{"name": "n", "sql": "SELECT 1", "between": [0, 2]}], "pii": ["email"]})"),
                             "check", SpecSource::kWorkspace);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->unique.size(), 2u);
  EXPECT_EQ(spec->unique[1], (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(spec->sample_key, std::vector<std::string>{"a"});
  EXPECT_EQ(spec->freshness_max_age, std::chrono::minutes(30));
  EXPECT_EQ(spec->volume->window, std::chrono::hours(24));
  EXPECT_EQ(spec->custom[0].between->second, 2);
  std::vector<std::string> names;
  for (const auto& [name, type] : CheckNames(*spec)) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"not_null:a", "not_null:b", "unique:a", "unique:b,c",
                                             "freshness", "volume", "accepted_values:tier", "range:x",
                                             "schema", "row_count_change", "custom:n"}));
}

TEST(CheckSpecTest, ErrorsNameTheKey) {
  struct Case {
    const char* json;
    const char* expected;
  } cases[] = {
      {R"({"not_nul": ["a"]})", "check.not_nul: unknown check; did you mean 'not_null'?"},
      {R"({"not_null": "a"})", "check.not_null: expected a list of column names"},
      {R"({"not_null": [""]})", "check.not_null[0]: expected a column name"},
      {R"({"range": {"x": {"min": "zero"}}})", "check.range.x.min: expected a number"},
      {R"({"range": {"x": {"min": 5, "max": 1}}})", "check.range.x: min is larger than max"},
      {R"({"range": {"x": {}}})", "check.range.x: needs min or max"},
      {R"({"volume": {"min_rows": -1}})", "check.volume.min_rows: expected a whole number"},
      {R"({"volume": {"window": "1d", "min_rows": 1}})", "check.volume.window: needs time_column"},
      {R"({"freshness": {"max_age": "soon"}, "time_column": "t"})", "check.freshness.max_age:"},
      {R"({"freshness": {"max_age": "1h"}})", "check.freshness: needs time_column"},
      {R"({"accepted_values": {"tier": []}})", "check.accepted_values.tier: expected a non-empty list"},
      {R"({"accepted_values": {"tier": [{"a": 1}]}})", "check.accepted_values.tier[0]: expected a string"},
      {R"({"unique": [[]]})", "check.unique[0]: a key needs at least one column"},
      {R"({"row_count_change": {"max_drop_pct": -3}})", "check.row_count_change.max_drop_pct: must be at least 0"},
      {R"({"custom": [{"name": "n", "sql": "SELECT 1", "must_be": 1}]})", "check.custom: inline checks cannot carry SQL"},
      {R"("not an object")", "check: expected a mapping"},
  };
  for (const Case& c : cases) {
    Status s = Parse(c.json);
    ASSERT_FALSE(s.ok()) << c.json;
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find(c.expected), std::string::npos) << c.json << " -> " << s.message();
  }
  Status both = Parse(R"({"custom": [{"name": "n", "sql": "SELECT 1", "must_be": 1, "between": [0, 1]}]})",
                      SpecSource::kWorkspace);
  EXPECT_NE(both.message().find("exactly one of must_be and between"), std::string::npos);
}

TEST(CheckSpecTest, SelectionKeepsNamedChecksAndRefusesUnknownOnes) {
  auto spec = ParseCheckSpec(Json::parse(R"({"not_null": ["a", "b"], "unique": ["a"], "schema": true})"),
                             "check", SpecSource::kInline);
  ASSERT_TRUE(spec.ok());
  auto only = SelectChecks(*spec, {"not_null:b", "schema"});
  ASSERT_TRUE(only.ok());
  EXPECT_EQ(only->not_null, std::vector<std::string>{"b"});
  EXPECT_TRUE(only->unique.empty());
  EXPECT_TRUE(only->schema);
  EXPECT_EQ(only->sample_key, std::vector<std::string>{"a"});  // samples still identify rows
  auto bad = SelectChecks(*spec, {"freshness"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("configured: not_null:a, not_null:b, unique:a, schema"),
            std::string::npos)
      << bad.status().message();
}

}  // namespace check_spec_test
}  // namespace
}  // namespace dw::observe::quality
