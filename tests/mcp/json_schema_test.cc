#include "mcp/json_schema.h"

#include <gtest/gtest.h>

namespace dw::mcp {
namespace {

const Json kSchema = Json::parse(R"({
  "type": "object",
  "properties": {
    "table":  {"type": "string", "minLength": 3, "maxLength": 20, "pattern": "^[a-z_.]+$"},
    "limit":  {"type": "integer", "minimum": 1, "maximum": 100},
    "ratio":  {"type": "number", "exclusiveMinimum": 0},
    "mode":   {"enum": ["fast", "full"]},
    "kind":   {"const": "check"},
    "tags":   {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3, "uniqueItems": true},
    "maybe":  {"type": ["string", "null"]},
    "target": {"oneOf": [{"type": "string"}, {"type": "object", "required": ["id"]}]},
    "either": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},
    "nested": {"type": "object", "properties": {"inner": {"type": "boolean"}}, "additionalProperties": false},
    "labels": {"type": "object", "additionalProperties": {"type": "string"}}
  },
  "required": ["table"],
  "additionalProperties": false
})");

struct Case {
  const char* name;
  const char* arguments;
  const char* error;  // expected message, or "" for valid
};

const Case kCases[] = {
    {"minimal", R"({"table": "loyalty.balances"})", ""},
    {"everything", R"({"table": "abc", "limit": 5, "ratio": 0.5, "mode": "fast", "kind": "check",
                       "tags": ["a", "b"], "maybe": null, "target": {"id": 1}, "either": true,
                       "nested": {"inner": false}, "labels": {"x": "y"}})", ""},
    {"integral float is an integer", R"({"table": "abc", "limit": 5.0})", ""},
    {"wrong type", R"({"table": 5})", "arguments.table: expected string, got number"},
    {"missing required", R"({})", "arguments.table: required field is missing"},
    {"not an object", R"([1])", "arguments: expected object, got array"},
    {"unknown field", R"({"table": "abc", "tabel": 1})", "arguments.tabel: unknown field (allowed: either, kind, labels, limit, maybe, mode, nested, ratio, table, tags, target)"},
    {"integer vs number", R"({"table": "abc", "limit": 1.5})", "arguments.limit: expected integer, got number"},
    {"below minimum", R"({"table": "abc", "limit": 0})", "arguments.limit: must be >= 1"},
    {"above maximum", R"({"table": "abc", "limit": 101})", "arguments.limit: must be <= 100"},
    {"exclusive minimum", R"({"table": "abc", "ratio": 0})", "arguments.ratio: must be > 0"},
    {"too short", R"({"table": "ab"})", "arguments.table: expected at least 3 characters, got 2"},
    {"too long", R"({"table": "abcdefghijklmnopqrstuvwxyz"})", "arguments.table: expected at most 20 characters, got 26"},
    {"pattern", R"({"table": "Drop Table"})", "arguments.table: does not match pattern ^[a-z_.]+$"},
    {"enum", R"({"table": "abc", "mode": "slow"})", R"(arguments.mode: must be one of "fast", "full"; got "slow")"},
    {"const", R"({"table": "abc", "kind": "other"})", R"(arguments.kind: must be "check", got "other")"},
    {"item type", R"({"table": "abc", "tags": ["a", 2]})", "arguments.tags[1]: expected string, got number"},
    {"min items", R"({"table": "abc", "tags": []})", "arguments.tags: expected at least 1 items, got 0"},
    {"max items", R"({"table": "abc", "tags": ["a", "b", "c", "d"]})", "arguments.tags: expected at most 3 items, got 4"},
    {"unique items", R"({"table": "abc", "tags": ["a", "a"]})", R"(arguments.tags: items must be unique; "a" repeats)"},
    {"type array", R"({"table": "abc", "maybe": 1})", "arguments.maybe: expected string or null, got number"},
    {"oneOf none", R"({"table": "abc", "target": {"name": 1}})", "arguments.target: does not match any allowed form (first: arguments.target: expected string, got object)"},
    {"anyOf none", R"({"table": "abc", "either": "x"})", "arguments.either: does not match any allowed form (first: arguments.either: expected integer, got string)"},
    {"nested unknown", R"({"table": "abc", "nested": {"other": 1}})", "arguments.nested.other: unknown field (allowed: inner)"},
    {"nested type", R"({"table": "abc", "nested": {"inner": "yes"}})", "arguments.nested.inner: expected boolean, got string"},
    {"additional schema", R"({"table": "abc", "labels": {"odd key": 1}})", R"(arguments.labels["odd key"]: expected string, got number)"},
};

TEST(McpSchemaTest, ValidatesTheSubsetAndNamesTheField) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Status s = ValidateJson(kSchema, Json::parse(c.arguments), "arguments");
    if (*c.error == '\0') {
      EXPECT_TRUE(s.ok()) << s.message();
    } else {
      EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
      EXPECT_EQ(s.message(), c.error);
    }
  }
}

TEST(McpSchemaTest, OneOfRejectsAmbiguousMatches) {
  Json schema = {{"oneOf", {{{"type", "number"}}, {{"type", "integer"}}}}};
  EXPECT_EQ(ValidateJson(schema, 3, "x").message(), "x: matches more than one of the allowed forms");
  EXPECT_TRUE(ValidateJson(schema, 3.5, "x").ok());
}

TEST(McpSchemaTest, RefusesHugeSubjectsForPatterns) {
  Json schema = {{"type", "string"}, {"pattern", "^(a|b)*$"}};
  EXPECT_FALSE(ValidateJson(schema, std::string(100000, 'a'), "x").ok());
  EXPECT_TRUE(ValidateJson(schema, std::string(100, 'a'), "x").ok());
}

TEST(McpSchemaTest, BooleanSchemasAndInvalidPatterns) {
  EXPECT_TRUE(ValidateJson(true, 1, "x").ok());
  EXPECT_EQ(ValidateJson(false, 1, "x").message(), "x: is not allowed");
  Json bad = {{"pattern", "("}};
  EXPECT_FALSE(ValidateJson(bad, "abc", "x").ok());
}

}  // namespace
}  // namespace dw::mcp
