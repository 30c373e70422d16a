#include <gtest/gtest.h>

#include "mcp/jsonrpc.h"
#include "mcp/session.h"

namespace dw::mcp {
namespace {

int ErrorCode(const ParsedMessage& p) { return p.error["error"]["code"].get<int>(); }

TEST(McpParseMessageTest, AcceptsAnObject) {
  ParsedMessage p = ParseMessage(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", Limits{});
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.message["method"], "ping");
}

TEST(McpParseMessageTest, RejectsWithTheRightCodeAndNullId) {
  Limits limits;
  limits.max_message_bytes = 64;
  limits.max_json_depth = 4;
  struct Case {
    const char* name;
    std::string raw;
    int code;
  } cases[] = {
      {"not json", "{nope", kParseError},
      {"truncated", R"({"jsonrpc":"2.0")", kParseError},
      {"invalid utf-8", "{\"a\":\"\xff\"}", kParseError},
      {"overlong utf-8", "{\"a\":\"\xc0\xaf\"}", kParseError},
      {"utf-8 surrogate", "{\"a\":\"\xed\xa0\x80\"}", kParseError},
      {"lone surrogate escape", R"({"a":"\ud800"})", kParseError},
      {"number overflow", R"({"a":1e999})", kParseError},
      {"batch", R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])", kInvalidRequest},
      {"string", R"("ping")", kInvalidRequest},
      {"number", "42", kInvalidRequest},
      {"too big", std::string(65, ' '), kInvalidRequest},
      {"too deep", "[[[[[1]]]]]", kInvalidRequest},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ParsedMessage p = ParseMessage(c.raw, limits);
    ASSERT_FALSE(p.ok);
    EXPECT_EQ(ErrorCode(p), c.code);
    EXPECT_TRUE(p.error["id"].is_null());
    EXPECT_EQ(p.error["jsonrpc"], "2.0");
  }
}

TEST(McpParseMessageTest, DepthIgnoresBracketsInStrings) {
  Limits limits;
  limits.max_json_depth = 2;
  EXPECT_TRUE(ParseMessage(R"({"a":"[[[[{{{{\"[["})", limits).ok);
  EXPECT_TRUE(ParseMessage(R"({"a":[1]})", limits).ok);
  EXPECT_FALSE(ParseMessage(R"({"a":[[1]]})", limits).ok);
}

}  // namespace
}  // namespace dw::mcp
