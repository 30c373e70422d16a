// Test helper: a StreamableHttpServer on a free loopback port with a small catalog of tools that
// exercise the transport (echo, logging and progress, sampling, waiting for cancellation), and a
// client that speaks to it the way MCP clients do.
#pragma once

#include <httplib.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "mcp/catalog.h"
#include "mcp/http_transport.h"

namespace dw::mcp::testing {

inline Json StringArgSchema(const std::string& name) {
  return Json{{"type", "object"},
              {"properties", {{name, {{"type", "string"}}}}},
              {"required", Json::array({name})}};
}

// echo(text) -> text; progress -> logs, progress 0/50/100, "done"; ask(prompt) -> the client's
// sampling answer; wait_cancel -> waits (up to 5 s) until cancelled.
inline std::shared_ptr<Catalog> TransportTestCatalog() {
  auto catalog = std::make_shared<Catalog>();
  ToolSpec echo;
  echo.name = "echo";
  echo.description = "Returns its text.";
  echo.input_schema = StringArgSchema("text");
  echo.handler = [](const Json& args, ToolCall&) {
    return ToolResult::Text(args.at("text").get<std::string>());
  };
  EXPECT_TRUE(catalog->AddTool(std::move(echo)).ok());

  ToolSpec progress;
  progress.name = "progress";
  progress.description = "Logs and reports progress before answering.";
  progress.input_schema = Json{{"type", "object"}};
  progress.streams = true;
  progress.handler = [](const Json&, ToolCall& call) {
    call.Log(LogLevel::kInfo, "starting");
    for (double p : {0.0, 50.0, 100.0}) {
      call.Progress(p, 100.0);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return ToolResult::Text("done");
  };
  EXPECT_TRUE(catalog->AddTool(std::move(progress)).ok());

  ToolSpec ask;
  ask.name = "ask";
  ask.description = "Asks the client's model.";
  ask.input_schema = StringArgSchema("prompt");
  ask.streams = true;
  ask.handler = [](const Json& args, ToolCall& call) {
    Json params{{"messages", Json::array({{{"role", "user"},
                                           {"content", {{"type", "text"}, {"text", args.at("prompt")}}}}})},
                {"maxTokens", 100}};
    Result<Json> answer = call.Request("sampling/createMessage", params, std::chrono::seconds(5));
    if (!answer.ok()) return ToolResult::Error("sampling failed: " + answer.status().message());
    return ToolResult::Text("LLM said: " + answer->at("content").at("text").get<std::string>());
  };
  EXPECT_TRUE(catalog->AddTool(std::move(ask)).ok());

  ToolSpec wait;
  wait.name = "wait_cancel";
  wait.description = "Waits until cancelled.";
  wait.input_schema = Json{{"type", "object"}};
  wait.streams = true;
  wait.handler = [](const Json&, ToolCall& call) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!call.Cancelled() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return ToolResult::Text(call.Cancelled() ? "cancelled" : "timed out");
  };
  EXPECT_TRUE(catalog->AddTool(std::move(wait)).ok());
  return catalog;
}

struct HttpReply {
  int status = 0;  // 0: no HTTP response at all
  std::string body;
  httplib::Headers headers;
  std::string content_type;
  Json json;  // parsed body when it is JSON, else null

  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

// The `data:` payloads of an SSE body, parsed as JSON, in order.
inline std::vector<Json> SseMessages(const std::string& body) {
  std::vector<Json> out;
  size_t pos = 0;
  while (pos < body.size()) {
    size_t end = body.find("\n\n", pos);
    std::string event = body.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    std::string data;
    size_t line_start = 0;
    while (line_start < event.size()) {
      size_t nl = event.find('\n', line_start);
      std::string line = event.substr(line_start, nl == std::string::npos ? std::string::npos : nl - line_start);
      if (line.rfind("data: ", 0) == 0) data += line.substr(6);
      if (nl == std::string::npos) break;
      line_start = nl + 1;
    }
    if (!data.empty()) out.push_back(Json::parse(data, nullptr, false));
    if (end == std::string::npos) break;
    pos = end + 2;
  }
  return out;
}

inline Json Request(int id, const std::string& method, Json params = Json::object()) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

inline Json ToolCallRequest(int id, const std::string& tool, Json args = Json::object(), Json meta = nullptr) {
  Json params{{"name", tool}, {"arguments", std::move(args)}};
  if (!meta.is_null()) params["_meta"] = std::move(meta);
  return Request(id, "tools/call", std::move(params));
}

inline Json InitializeRequest(int id = 1, const std::string& version = "2025-11-25") {
  return Request(id, "initialize",
                 {{"protocolVersion", version},
                  {"capabilities", {{"sampling", Json::object()}, {"elicitation", Json::object()}}},
                  {"clientInfo", {{"name", "http-test"}, {"version", "1.0"}}}});
}

class HttpTestServer {
 public:
  explicit HttpTestServer(HttpServerOptions options = {},
                          std::shared_ptr<const Catalog> catalog = TransportTestCatalog()) {
    token_ = options.bearer_token;
    Status st = server_.Start(std::move(options),
                              {McpEndpoint{"/mcp", std::move(catalog), {"http-test", "", "1.0", ""}}});
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  ~HttpTestServer() { server_.Stop(); }

  StreamableHttpServer& server() { return server_; }
  int port() const { return server_.port(); }
  const std::string& session_id() const { return session_id_; }
  void set_session_id(std::string id) { session_id_ = std::move(id); }

  httplib::Client NewClient() const {
    httplib::Client cli("127.0.0.1", server_.port());
    cli.set_read_timeout(std::chrono::seconds(10));
    return cli;
  }

  // The headers an MCP client sends: Accept, the session id once known, the protocol version and
  // the token when configured. `extra` entries are added after (a test may add duplicates).
  httplib::Headers StandardHeaders(const httplib::Headers& extra = {}) const {
    httplib::Headers h{{"Accept", "application/json, text/event-stream"},
                       {"MCP-Protocol-Version", "2025-11-25"}};
    if (!session_id_.empty()) h.emplace("Mcp-Session-Id", session_id_);
    if (!token_.empty()) h.emplace("Authorization", "Bearer " + token_);
    for (const auto& kv : extra) h.emplace(kv.first, kv.second);
    return h;
  }

  // Sends `body` as POST to `path` with exactly `headers` (and the given content type).
  HttpReply RawPost(const std::string& body, const httplib::Headers& headers,
                    const std::string& content_type = "application/json",
                    const std::string& path = "/mcp") const {
    httplib::Client cli = NewClient();
    return Convert(cli.Post(path.c_str(), headers, body, content_type.c_str()));
  }

  HttpReply Post(const std::string& body, const httplib::Headers& extra = {}) const {
    return RawPost(body, StandardHeaders(extra));
  }
  HttpReply Post(const Json& message, const httplib::Headers& extra = {}) const {
    return Post(message.dump(), extra);
  }

  // initialize + notifications/initialized; remembers the session id.
  void Initialize() {
    session_id_.clear();
    HttpReply r = Post(InitializeRequest());
    ASSERT_EQ(r.status, 200) << r.body;
    session_id_ = r.header("Mcp-Session-Id");
    ASSERT_EQ(session_id_.size(), 32u);
    HttpReply n = Post(Json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    ASSERT_EQ(n.status, 202) << n.body;
  }

  // True iff a ping on the current session gets its empty result.
  bool PingWorks(int id = 9001) const {
    HttpReply r = Post(Request(id, "ping"));
    return r.status == 200 && r.json.is_object() && r.json.value("id", -1) == id &&
           r.json.contains("result");
  }

  static HttpReply Convert(const httplib::Result& res) {
    HttpReply out;
    if (!res) return out;
    out.status = res->status;
    out.body = res->body;
    out.headers = res->headers;
    out.content_type = res->get_header_value("Content-Type");
    if (out.content_type.rfind("application/json", 0) == 0)
      out.json = Json::parse(out.body, nullptr, false);
    return out;
  }

 private:
  StreamableHttpServer server_;
  std::string session_id_;
  std::string token_;
};

}  // namespace dw::mcp::testing
