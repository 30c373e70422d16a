// Breaks the stdio server on purpose: every hostile line must get the JSON-RPC answer it deserves
// (or deliberate silence), and a ping right after it must still be answered.
#include <gtest/gtest.h>

#include <random>

#include "mcp/conformance_fixtures.h"
#include "mcp/jsonrpc.h"
#include "stdio_peer.h"

namespace dw::mcp {
namespace {
namespace hostile_stdio_test {

using namespace std::chrono_literals;

constexpr size_t kLimit = 4096;  // a small message limit keeps the over-size cases cheap
constexpr int kDepth = 16;

enum class Expect {
  kError,      // a JSON-RPC error with `code`, carrying `id`
  kToolError,  // a tools/call result with isError, carrying `id`
  kResult,     // a successful response carrying `id`
  kSilence,    // no answer at all
};

struct Hostile {
  const char* name;
  std::string line;  // sent as is, followed by "\n" unless it already ends with one
  Expect expect;
  int code = 0;
  Json id = nullptr;
};

std::string Req(const std::string& id, const std::string& method, const std::string& params = "{}") {
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":")" + method + R"(","params":)" + params + "}";
}

std::string ToolCallLine(const std::string& id, const std::string& params) { return Req(id, "tools/call", params); }

std::string Nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::vector<Hostile> Cases() {
  const std::string big(kLimit + 100, 'x');
  return {
      // Malformed JSON: -32700, id null.
      {"lone open brace", "{", Expect::kError, kParseError},
      {"lone close brace", "}", Expect::kError, kParseError},
      {"plain words", "not json at all", Expect::kError, kParseError},
      {"truncated object", R"({"jsonrpc":"2.0","id":1,"method":"ping")", Expect::kError, kParseError},
      {"single quotes", "{'jsonrpc':'2.0','id':1,'method':'ping'}", Expect::kError, kParseError},
      {"trailing comma", R"({"jsonrpc":"2.0","id":1,"method":"ping",})", Expect::kError, kParseError},
      {"leading zero", R"({"jsonrpc":"2.0","id":01,"method":"ping"})", Expect::kError, kParseError},
      {"NaN", R"({"jsonrpc":"2.0","id":NaN,"method":"ping"})", Expect::kError, kParseError},
      {"Infinity", R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":Infinity}})", Expect::kError, kParseError},
      {"number overflow", R"({"jsonrpc":"2.0","id":1e99999,"method":"ping"})", Expect::kError, kParseError},
      {"unterminated string", R"({"jsonrpc":"2.0","id":"abc,"method":"ping"})", Expect::kError, kParseError},
      {"bad escape", R"({"jsonrpc":"2.0","id":"\x41","method":"ping"})", Expect::kError, kParseError},
      {"raw tab in string", "{\"jsonrpc\":\"2.0\",\"id\":\"a\tb\",\"method\":\"ping\"}", Expect::kError, kParseError},
      {"binary garbage", std::string("\x00\x01\x02\x7f\x80", 5), Expect::kError, kParseError},
      {"two values on a line", R"({"jsonrpc":"2.0","id":1,"method":"ping"} {})", Expect::kError, kParseError},
      {"extra closing brace", R"({"jsonrpc":"2.0","id":1,"method":"ping"}})", Expect::kError, kParseError},
      {"comment", R"(/* hi */ {"jsonrpc":"2.0","id":1,"method":"ping"})", Expect::kError, kParseError},
      {"bare minus", "-", Expect::kError, kParseError},
      // Invalid UTF-8: -32700.
      {"invalid byte", "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}", Expect::kError, kParseError},
      {"overlong slash", "{\"jsonrpc\":\"2.0\",\"id\":\"\xc0\xaf\",\"method\":\"ping\"}", Expect::kError, kParseError},
      {"utf-8 surrogate", "{\"jsonrpc\":\"2.0\",\"id\":\"\xed\xa0\x80\",\"method\":\"ping\"}", Expect::kError, kParseError},
      {"truncated sequence", "{\"jsonrpc\":\"2.0\",\"id\":\"\xe2\x82\",\"method\":\"ping\"}", Expect::kError, kParseError},
      {"lone surrogate escape", R"({"jsonrpc":"2.0","id":"\ud800","method":"ping"})", Expect::kError, kParseError},
      {"invalid key", "{\"\xfe\":1,\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", Expect::kError, kParseError},
      {"invalid method", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}", Expect::kError, kParseError},
      // Not an object: -32600, id null.
      {"empty batch", "[]", Expect::kError, kInvalidRequest},
      {"batch of one ping", "[" + Req("1", "ping") + "]", Expect::kError, kInvalidRequest},
      {"string", R"("ping")", Expect::kError, kInvalidRequest},
      {"number", "42", Expect::kError, kInvalidRequest},
      {"null", "null", Expect::kError, kInvalidRequest},
      {"boolean", "true", Expect::kError, kInvalidRequest},
      // Wrong JSON-RPC shapes: -32600, with the id when it is a valid one.
      {"no jsonrpc", R"({"id":10,"method":"ping"})", Expect::kError, kInvalidRequest, 10},
      {"jsonrpc 1.0", R"({"jsonrpc":"1.0","id":11,"method":"ping"})", Expect::kError, kInvalidRequest, 11},
      {"jsonrpc as number", R"({"jsonrpc":2.0,"id":"s12","method":"ping"})", Expect::kError, kInvalidRequest, "s12"},
      {"method number", R"({"jsonrpc":"2.0","id":13,"method":7})", Expect::kError, kInvalidRequest, 13},
      {"method null", R"({"jsonrpc":"2.0","id":14,"method":null})", Expect::kError, kInvalidRequest, 14},
      {"method object", R"({"jsonrpc":"2.0","id":15,"method":{"name":"ping"}})", Expect::kError, kInvalidRequest, 15},
      {"params array", Req("16", "ping", "[1,2]"), Expect::kError, kInvalidRequest, 16},
      {"params string", Req("17", "tools/list", R"("all")"), Expect::kError, kInvalidRequest, 17},
      {"params number", Req("18", "tools/list", "5"), Expect::kError, kInvalidRequest, 18},
      {"neither method nor result", R"({"jsonrpc":"2.0","id":19})", Expect::kError, kInvalidRequest, 19},
      {"empty object", "{}", Expect::kError, kInvalidRequest},
      {"only jsonrpc", R"({"jsonrpc":"2.0"})", Expect::kError, kInvalidRequest},
      {"notification with array params", R"({"jsonrpc":"2.0","method":"notifications/initialized","params":[]})",
       Expect::kError, kInvalidRequest},
      // Ids of the wrong type: -32600 with id null.
      {"id null", R"({"jsonrpc":"2.0","id":null,"method":"ping"})", Expect::kError, kInvalidRequest},
      {"id float", R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})", Expect::kError, kInvalidRequest},
      {"id exponent", R"({"jsonrpc":"2.0","id":1e3,"method":"ping"})", Expect::kError, kInvalidRequest},
      {"id true", R"({"jsonrpc":"2.0","id":true,"method":"ping"})", Expect::kError, kInvalidRequest},
      {"id object", R"({"jsonrpc":"2.0","id":{"n":1},"method":"ping"})", Expect::kError, kInvalidRequest},
      {"id array", R"({"jsonrpc":"2.0","id":[1],"method":"ping"})", Expect::kError, kInvalidRequest},
      // Unknown methods: -32601 with the id.
      {"server/discover", Req(R"("server-discover-probe-1")", "server/discover"), Expect::kError, kMethodNotFound,
       "server-discover-probe-1"},
      {"made-up method", Req("30", "tools/destroy"), Expect::kError, kMethodNotFound, 30},
      {"empty method", Req("31", ""), Expect::kError, kMethodNotFound, 31},
      {"wrong case", Req("32", "PING"), Expect::kError, kMethodNotFound, 32},
      {"json-rpc reserved", Req("33", "rpc.discover"), Expect::kError, kMethodNotFound, 33},
      {"long method name", Req("34", std::string(2000, 'm')), Expect::kError, kMethodNotFound, 34},
      {"negative id", Req("-35", "nope"), Expect::kError, kMethodNotFound, -35},
      {"huge id", Req("18446744073709551615", "nope"), Expect::kError, kMethodNotFound, 18446744073709551615ull},
      // Unknown tools, prompts and resources; bad params: -32602 (-32002 for resources).
      {"unknown tool", ToolCallLine("40", R"({"name":"drop_all_tables"})"), Expect::kError, kInvalidParams, 40},
      {"tool name number", ToolCallLine("41", R"({"name":7})"), Expect::kError, kInvalidParams, 41},
      {"tool name missing", ToolCallLine("42", "{}"), Expect::kError, kInvalidParams, 42},
      {"unknown prompt", Req("43", "prompts/get", R"({"name":"nope"})"), Expect::kError, kInvalidParams, 43},
      {"prompt missing argument", Req("44", "prompts/get", R"({"name":"test_prompt_with_arguments"})"), Expect::kError,
       kInvalidParams, 44},
      {"unknown resource", Req("45", "resources/read", R"({"uri":"file:///etc/passwd"})"), Expect::kError,
       kResourceNotFound, 45},
      {"resource uri number", Req("46", "resources/read", R"({"uri":3})"), Expect::kError, kInvalidParams, 46},
      {"bad cursor", Req("47", "tools/list", R"({"cursor":"////"})"), Expect::kError, kInvalidParams, 47},
      {"bad log level", Req("48", "logging/setLevel", R"({"level":"loud"})"), Expect::kError, kInvalidParams, 48},
      {"bad completion ref", Req("49", "completion/complete", R"({"ref":{"type":"ref/x"},"argument":{"name":"a","value":""}})"),
       Expect::kError, kInvalidParams, 49},
      {"second initialize", Req("50", "initialize", R"({"protocolVersion":"2025-11-25"})"), Expect::kError,
       kInvalidRequest, 50},
      // Arguments of the wrong type: tool results with isError.
      {"argument number for string", ToolCallLine("60", R"({"name":"test_sampling","arguments":{"prompt":5}})"),
       Expect::kToolError, 0, 60},
      {"required argument missing", ToolCallLine("61", R"({"name":"test_sampling","arguments":{}})"), Expect::kToolError,
       0, 61},
      {"arguments array", ToolCallLine("62", R"({"name":"test_elicitation","arguments":["message"]})"),
       Expect::kToolError, 0, 62},
      {"arguments string", ToolCallLine("63", R"({"name":"test_simple_text","arguments":"x"})"), Expect::kToolError, 0,
       63},
      // Over-size and too deep: -32600, id null.
      {"over-size valid request", Req("70", "ping", R"({"pad":")" + big + R"("})"), Expect::kError, kInvalidRequest},
      {"over-size garbage", std::string(1 << 20, 'g'), Expect::kError, kInvalidRequest},
      {"too deep params", Req("71", "ping", R"({"a":)" + Nested(kDepth) + "}"), Expect::kError, kInvalidRequest},
      {"very deep arrays", std::string(3000, '['), Expect::kError, kInvalidRequest},
      {"very deep objects", [] {
         std::string s;
         for (int i = 0; i < 400; ++i) s += R"({"a":)";
         return s + "1" + std::string(400, '}');
       }(),
       Expect::kError, kInvalidRequest},
      // Lines that deserve silence.
      {"blank line", "\n", Expect::kSilence},
      {"spaces and CR", "   \r\n", Expect::kSilence},
      {"answer nobody asked for", R"({"jsonrpc":"2.0","id":999,"result":{}})", Expect::kSilence},
      {"error answer nobody asked for", R"({"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"?"}})", Expect::kSilence},
      {"cancel of an unknown request", R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345}})",
       Expect::kSilence},
      {"unknown notification", R"({"jsonrpc":"2.0","method":"notifications/whatever"})", Expect::kSilence},
      {"request method as notification", R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"test_simple_text"}})",
       Expect::kSilence},
      // Odd but valid.
      {"CRLF line end", Req("80", "ping") + "\r\n", Expect::kResult, 0, 80},
      {"brackets inside strings", Req("81", "ping", R"({"s":")" + std::string(200, '[') + R"("})"), Expect::kResult, 0, 81},
      {"unknown top-level field", R"({"jsonrpc":"2.0","id":82,"method":"ping","extra":true})", Expect::kResult, 0, 82},
      {"duplicate id key keeps the last", R"({"jsonrpc":"2.0","id":1,"id":83,"method":"ping"})", Expect::kResult, 0, 83},
  };
}

bool Matches(const Json& m, const Hostile& c) {
  if (m.contains("method") || !m.contains("id") || m["id"] != c.id) return false;
  switch (c.expect) {
    case Expect::kError: return m.contains("error");
    case Expect::kToolError:
    case Expect::kResult: return m.contains("result");
    case Expect::kSilence: return false;
  }
  return false;
}

TEST(McpHostileStdioTest, EveryHostileLineGetsTheRightAnswerAndPingsStillWork) {
  auto catalog = std::make_shared<Catalog>();
  AddConformanceFixtures(*catalog);
  Limits limits;
  limits.max_message_bytes = kLimit;
  limits.max_json_depth = kDepth;
  StdioPeer peer(catalog, limits);
  ASSERT_TRUE(peer.Initialize());

  std::vector<Hostile> cases = Cases();
  ASSERT_GE(cases.size(), 60u);
  int n = 0;
  for (const Hostile& c : cases) {
    SCOPED_TRACE(c.name);
    std::string line = c.line;
    if (line.empty() || line.back() != '\n') line += '\n';
    ASSERT_TRUE(peer.SendRaw(line));
    const Json ping_id = "ping-" + std::to_string(n++);
    ASSERT_TRUE(peer.Send({{"jsonrpc", "2.0"}, {"id", ping_id}, {"method", "ping"}}));

    std::vector<Json> seen;
    bool got_ping = false;
    std::optional<Json> answer;
    auto deadline = std::chrono::steady_clock::now() + 5s;
    while ((!got_ping || (c.expect != Expect::kSilence && !answer)) && std::chrono::steady_clock::now() < deadline) {
      std::optional<Json> m = peer.Read(1s);
      if (!m) continue;
      ASSERT_FALSE(m->contains("not-json")) << "server wrote a line that is not JSON";
      EXPECT_EQ((*m)["jsonrpc"], "2.0");
      if (m->value("id", Json()) == ping_id) {
        EXPECT_EQ((*m)["result"], Json::object());
        got_ping = true;
      } else if (!answer && Matches(*m, c)) {
        answer = m;
      } else {
        seen.push_back(*m);
      }
    }
    ASSERT_TRUE(got_ping) << "the server stopped answering pings";
    for (const Json& m : seen) ADD_FAILURE() << "unexpected message: " << m.dump();
    if (c.expect == Expect::kSilence) continue;
    ASSERT_TRUE(answer) << "no answer";
    if (c.expect == Expect::kError) {
      EXPECT_EQ((*answer)["error"]["code"], c.code) << answer->dump();
      EXPECT_TRUE((*answer)["error"]["message"].is_string());
    } else if (c.expect == Expect::kToolError) {
      EXPECT_EQ((*answer)["result"]["isError"], true) << answer->dump();
      EXPECT_NE((*answer)["result"]["content"][0]["text"].get<std::string>().find("arguments"), std::string::npos);
    }
  }
}

TEST(McpHostileStdioTest, ToolArgumentErrorsNameTheField) {
  auto catalog = std::make_shared<Catalog>();
  AddConformanceFixtures(*catalog);
  StdioPeer peer(catalog);
  ASSERT_TRUE(peer.Initialize());
  auto r = peer.Call(1, "tools/call", {{"name", "test_sampling"}, {"arguments", {{"prompt", 5}}}});
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)["result"]["content"][0]["text"], "Invalid arguments: arguments.prompt: expected string, got number");
}

TEST(McpHostileStdioTest, RequestsBeforeInitializeAreRefusedAtOnce) {
  StdioPeer peer(std::make_shared<Catalog>());
  auto discover = peer.Call("server-discover-probe-1", "server/discover");
  ASSERT_TRUE(discover);
  EXPECT_EQ((*discover)["error"]["code"], kMethodNotFound);
  auto list = peer.Call(2, "tools/list");
  ASSERT_TRUE(list);
  EXPECT_EQ((*list)["error"]["code"], kInvalidRequest);
  EXPECT_EQ((*list)["error"]["message"], "session not initialized: send initialize first");
  auto pong = peer.Call(3, "ping");
  ASSERT_TRUE(pong);
  EXPECT_EQ((*pong)["result"], Json::object());
}

TEST(McpHostileStdioTest, HalfWrittenLineThenEndOfInput) {
  StdioPeer peer(std::make_shared<Catalog>());
  ASSERT_TRUE(peer.SendRaw(R"({"jsonrpc":"2.0","id":1,"meth)"));
  peer.CloseWrite();
  auto error = peer.Read();
  ASSERT_TRUE(error);
  EXPECT_EQ((*error)["error"]["code"], kParseError);
  EXPECT_TRUE((*error)["id"].is_null());
  EXPECT_EQ(peer.WaitExit(), 0);
}

TEST(McpHostileStdioTest, CompleteLastMessageWithoutNewlineIsServed) {
  StdioPeer peer(std::make_shared<Catalog>());
  ASSERT_TRUE(peer.SendRaw(R"({"jsonrpc":"2.0","id":"last","method":"ping"})"));
  peer.CloseWrite();
  auto pong = peer.Read();
  ASSERT_TRUE(pong);
  EXPECT_EQ((*pong)["id"], "last");
  EXPECT_EQ(peer.WaitExit(), 0);
}

TEST(McpHostileStdioTest, OverSizeLineCutByEndOfInput) {
  Limits limits;
  limits.max_message_bytes = 1024;
  StdioPeer peer(std::make_shared<Catalog>(), limits);
  ASSERT_TRUE(peer.SendRaw(std::string(5000, '{')));
  peer.CloseWrite();
  auto error = peer.Read();
  ASSERT_TRUE(error);
  EXPECT_EQ((*error)["error"]["code"], kInvalidRequest);
  EXPECT_EQ(peer.WaitExit(), 0);
}

TEST(McpHostileStdioTest, EmptyInputEndsAtOnce) {
  StdioPeer peer(std::make_shared<Catalog>());
  peer.CloseWrite();
  EXPECT_EQ(peer.WaitExit(), 0);
  EXPECT_FALSE(peer.Read(100ms));
}

// The client stops reading and keeps writing: the server must not die of SIGPIPE, and must stop.
TEST(McpHostileStdioTest, RequestsAfterThePeerClosedItsEnd) {
  StdioPeer peer(std::make_shared<Catalog>());
  peer.CloseRead();
  for (int i = 0; i < 100; ++i) {
    if (!peer.Send({{"jsonrpc", "2.0"}, {"id", i}, {"method", "ping"}})) break;
  }
  peer.CloseWrite();
  EXPECT_EQ(peer.WaitExit(), 0);
}

TEST(McpHostileStdioTest, RandomBytesNeverCrashTheServer) {
  Limits limits;
  limits.max_message_bytes = 2048;
  StdioPeer peer(std::make_shared<Catalog>(), limits);
  std::mt19937 rng(20251125);
  std::string noise;
  for (int i = 0; i < 200000; ++i) {
    char c = static_cast<char>(rng() & 0xFF);
    noise += (rng() % 97 == 0) ? '\n' : c;
  }
  ASSERT_TRUE(peer.SendRaw(noise + "\n"));
  ASSERT_TRUE(peer.Send({{"jsonrpc", "2.0"}, {"id", "alive"}, {"method", "ping"}}));
  auto pong = peer.ReadResponse("alive", nullptr, 20s);
  ASSERT_TRUE(pong);
  EXPECT_EQ((*pong)["result"], Json::object());
}

}  // namespace hostile_stdio_test
}  // namespace
}  // namespace dw::mcp
