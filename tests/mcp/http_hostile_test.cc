// Streamable HTTP under hostile input: every case gets the status and JSON-RPC error it deserves,
// and the session it was sent on still answers a ping afterwards.
#include <gtest/gtest.h>

#include <optional>

#include "mcp/http_transport.h"
#include "tests/mcp/http_test_server.h"

namespace dw::mcp {
namespace {
namespace http_hostile_test {

using testing::HttpReply;
using testing::HttpTestServer;

constexpr const char* kNoSession = "<none>";
constexpr const char* kDeletedSession = "<deleted>";

struct HostileCase {
  std::string name;
  std::string body;
  int status;                      // expected HTTP status
  std::optional<int> rpc_code;     // expected error.code in the JSON body
  bool tool_error = false;         // expect a tools/call result with isError: true
  httplib::Headers extra;          // headers added to the standard ones
  std::vector<std::string> drop;   // standard headers removed first
  std::string session;             // "" = the live session; kNoSession; kDeletedSession; or a literal
  std::string content_type = "application/json";
};

std::string Req(const std::string& method, const std::string& params = "{}", const std::string& id = "1") {
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":")" + method + R"(","params":)" + params + "}";
}

std::string Call(const std::string& tool_and_args) {
  return Req("tools/call", "{" + tool_and_args + "}");
}

std::string Nested(int depth) {
  return R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":)" + std::string(depth, '[') +
         std::string(depth, ']') + "}}";
}

std::vector<HostileCase> Cases() {
  const std::string ping = Req("ping");
  std::vector<HostileCase> c = {
      // Malformed JSON: parse error, no id to answer.
      {"empty body", "", 400, -32700},
      {"open brace", "{", 400, -32700},
      {"plain text", "not json at all", 400, -32700},
      {"truncated", R"({"jsonrpc":"2.0","id":1,"method":"ping")", 400, -32700},
      {"trailing garbage", ping + " x", 400, -32700},
      {"single quotes", "{'jsonrpc':'2.0','id':1,'method':'ping'}", 400, -32700},
      {"NaN", Req("ping", R"({"x":NaN})"), 400, -32700},
      {"comment", "/* hi */" + ping, 400, -32700},
      {"number overflow", Req("ping", R"({"x":1e999})"), 400, -32700},
      {"invalid UTF-8", Req("ping", "{\"x\":\"\xff\xfe\"}"), 400, -32700},
      {"overlong UTF-8", Req("ping", "{\"x\":\"\xc0\xaf\"}"), 400, -32700},
      {"lone surrogate escape", Req("ping", R"({"x":"\ud800"})"), 400, -32700},
      {"raw control character", Req("ping", std::string("{\"x\":\"a\x01b\"}")), 400, -32700},
      {"raw NUL", Req("ping", std::string("{\"x\":\"a\0b\"}", 11)), 400, -32700},
      // Wrong shapes.
      {"batch", "[" + ping + "]", 400, -32600},
      {"empty batch", "[]", 400, -32600},
      {"number", "42", 400, -32600},
      {"string", R"("ping")", 400, -32600},
      {"null", "null", 400, -32600},
      {"empty object", "{}", 400, -32600},
      {"missing jsonrpc", R"({"id":1,"method":"ping"})", 200, -32600},
      {"jsonrpc 1.0", R"({"jsonrpc":"1.0","id":1,"method":"ping"})", 200, -32600},
      {"jsonrpc number", R"({"jsonrpc":2.0,"id":1,"method":"ping"})", 200, -32600},
      {"method number", R"({"jsonrpc":"2.0","id":1,"method":5})", 200, -32600},
      {"method null", R"({"jsonrpc":"2.0","id":1,"method":null})", 200, -32600},
      {"params array", Req("ping", "[1,2]"), 200, -32600},
      {"params string", Req("ping", R"("x")"), 200, -32600},
      {"neither method nor result", R"({"jsonrpc":"2.0","id":1})", 400, -32600},
      // Ids of the wrong type: the request cannot be named, so the error has id null.
      {"id true", Req("ping", "{}", "true"), 400, -32600},
      {"id object", Req("ping", "{}", "{}"), 400, -32600},
      {"id array", Req("ping", "{}", "[1]"), 400, -32600},
      {"id null", Req("ping", "{}", "null"), 400, -32600},
      {"id fraction", Req("ping", "{}", "1.5"), 400, -32600},
      // Unknown methods and tools, wrong arguments.
      {"unknown method", Req("tools/destroy"), 200, -32601},
      {"empty method", Req(""), 200, -32601},
      {"method with space", Req("tools/list "), 200, -32601},
      {"server/discover probe", Req("server/discover"), 200, -32601},
      {"huge method name", Req(std::string(100000, 'm')), 200, -32601},
      {"initialize again", testing::InitializeRequest(1).dump(), 200, -32600},
      {"unknown tool", Call(R"("name":"rm_rf","arguments":{})"), 200, -32602},
      {"tool name missing", Call(R"("arguments":{})"), 200, -32602},
      {"tool name number", Call(R"("name":42)"), 200, -32602},
      {"tools/call without params", R"({"jsonrpc":"2.0","id":1,"method":"tools/call"})", 200, -32602},
      {"argument of wrong type", Call(R"("name":"echo","arguments":{"text":42})"), 200, std::nullopt, true},
      {"required argument missing", Call(R"("name":"echo","arguments":{})"), 200, std::nullopt, true},
      {"arguments array", Call(R"("name":"echo","arguments":["hi"])"), 200, std::nullopt, true},
      {"arguments string", Call(R"("name":"echo","arguments":"hi")"), 200, std::nullopt, true},
      {"unknown resource", Req("resources/read", R"({"uri":"test://nope"})"), 200, -32002},
      {"resource uri missing", Req("resources/read"), 200, -32602},
      {"unknown prompt", Req("prompts/get", R"({"name":"nope"})"), 200, -32602},
      {"bad log level", Req("logging/setLevel", R"({"level":"loud"})"), 200, -32602},
      {"garbage cursor", Req("tools/list", R"({"cursor":"%%%not-a-cursor"})"), 200, -32602},
      // Notifications and responses nobody expects are accepted and ignored.
      {"unknown notification", R"({"jsonrpc":"2.0","method":"notifications/whatever"})", 202},
      {"cancel of unknown request", R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":77}})", 202},
      {"cancel with garbage params", R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}})", 202},
      {"response to nothing", R"({"jsonrpc":"2.0","id":"s-1","result":{}})", 202},
      {"error response to nothing", R"({"jsonrpc":"2.0","id":"s-2","error":{"code":-1,"message":"no"}})", 202},
      // Size and depth.
      {"too deep", Nested(200), 400, -32600},
      {"oversized body", Req("ping", R"({"x":")" + std::string(4 * 1024 * 1024, 'a') + R"("})"), 413, -32600},
      // Bad headers.
      {"text/plain content type", ping, 415, -32000, false, {}, {}, "", "text/plain"},
      {"form content type", ping, 415, -32000, false, {}, {}, "", "application/x-www-form-urlencoded"},
      {"Accept html", ping, 406, -32000, false, {{"Accept", "text/html"}}, {"Accept"}},
      {"Accept json only", ping, 406, -32000, false, {{"Accept", "application/json"}}, {"Accept"}},
      {"Accept sse only", ping, 406, -32000, false, {{"Accept", "text/event-stream"}}, {"Accept"}},
      {"Accept wildcard is fine", ping, 200, std::nullopt, false, {{"Accept", "*/*"}}, {"Accept"}},
      {"bad protocol version", ping, 400, -32000, false, {{"MCP-Protocol-Version", "2024-01-01"}}, {"MCP-Protocol-Version"}},
      {"protocol version junk", ping, 400, -32000, false, {{"MCP-Protocol-Version", "\x01\x02"}}, {"MCP-Protocol-Version"}},
      {"no session id", ping, 400, -32000, false, {}, {}, kNoSession},
      {"unknown session id", ping, 404, -32001, false, {}, {}, "0123456789abcdef0123456789abcdef"},
      {"empty session id", ping, 400, -32000, false, {}, {}, ""},  // an empty header is no header
      {"junk session id", ping, 404, -32001, false, {}, {}, std::string(2000, 'z')},
      {"request after DELETE", ping, 404, -32001, false, {}, {}, kDeletedSession},
      {"notification after DELETE", R"({"jsonrpc":"2.0","method":"notifications/initialized"})", 404, -32001, false, {}, {}, kDeletedSession},
      {"foreign Host", ping, 403, -32000, false, {{"Host", "evil.example.com"}}},
      {"null Origin", ping, 403, -32000, false, {{"Origin", "null"}}},
      {"two Host headers", ping, 403, -32000, false, {{"Host", "localhost"}, {"Host", "evil.example.com"}}},
  };
  // "empty session id" means an empty header, not "use the live session".
  for (auto& k : c)
    if (k.name == "empty session id") k.session = "<empty>";
  return c;
}

TEST(McpHttpHostile, EveryCaseIsAnsweredAndTheSessionSurvives) {
  HttpTestServer t;
  // A second session, ended at once, for the after-DELETE cases.
  t.Initialize();
  std::string deleted = t.session_id();
  {
    httplib::Client cli = t.NewClient();
    auto del = cli.Delete("/mcp", t.StandardHeaders());
    ASSERT_TRUE(del);
    ASSERT_EQ(del->status, 204);
  }
  t.Initialize();
  const std::string live = t.session_id();

  std::vector<HostileCase> cases = Cases();
  ASSERT_GE(cases.size(), 50u);
  for (const HostileCase& k : cases) {
    SCOPED_TRACE(k.name);
    if (k.session == kNoSession) {
      t.set_session_id("");
    } else if (k.session == kDeletedSession) {
      t.set_session_id(deleted);
    } else if (k.session == "<empty>") {
      t.set_session_id("");
    } else if (!k.session.empty()) {
      t.set_session_id(k.session);
    }
    httplib::Headers headers = t.StandardHeaders();
    if (k.session == "<empty>") headers.emplace("Mcp-Session-Id", "");
    for (const std::string& name : k.drop) headers.erase(name);
    for (const auto& kv : k.extra) headers.emplace(kv.first, kv.second);
    HttpReply r = t.RawPost(k.body, headers, k.content_type);
    t.set_session_id(live);

    EXPECT_EQ(r.status, k.status) << r.body.substr(0, 300);
    if (k.rpc_code) {
      ASSERT_TRUE(r.json.is_object()) << r.content_type << " " << r.body.substr(0, 300);
      EXPECT_EQ(r.json["jsonrpc"], "2.0");
      EXPECT_EQ(r.json["error"]["code"], *k.rpc_code) << r.body.substr(0, 300);
      EXPECT_TRUE(r.json["error"]["message"].is_string());
    }
    if (k.tool_error) {
      ASSERT_TRUE(r.json.is_object()) << r.body.substr(0, 300);
      EXPECT_EQ(r.json["result"]["isError"], true) << r.body.substr(0, 300);
    }
    if (k.status == 202) {
      EXPECT_EQ(r.body, "");
    }
    EXPECT_TRUE(t.PingWorks()) << "the session stopped answering after: " << k.name;
  }
  EXPECT_EQ(t.server().session_count(), 1u);
}

}  // namespace http_hostile_test
}  // namespace
}  // namespace dw::mcp
