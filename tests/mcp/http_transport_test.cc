// Streamable HTTP: sessions, headers, routing and the JSON/SSE response choice.
#include "mcp/http_transport.h"

#include <gtest/gtest.h>

#include "mcp/conformance_fixtures.h"
#include "tests/mcp/http_test_server.h"

namespace dw::mcp {
namespace {

using net::JsonRouteReply;
using net::JsonRouteRequest;
using testing::HttpReply;
using testing::HttpTestServer;
using testing::Request;
using testing::ToolCallRequest;

TEST(McpHttpTransport, InitializeIssuesARandomSessionId) {
  HttpTestServer t;
  HttpReply r = t.Post(testing::InitializeRequest());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.json["result"]["protocolVersion"], "2025-11-25");
  std::string id = r.header("Mcp-Session-Id");
  ASSERT_EQ(id.size(), 32u);
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos);
  HttpReply again = t.Post(testing::InitializeRequest());
  EXPECT_NE(again.header("Mcp-Session-Id"), id);
  EXPECT_EQ(t.server().session_count(), 2u);
}

TEST(McpHttpTransport, FailedInitializeCreatesNoSession) {
  HttpTestServer t;
  HttpReply r = t.Post(Request(1, "initialize", {{"protocolVersion", 7}}));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.json["error"]["code"], -32602);
  EXPECT_EQ(r.header("Mcp-Session-Id"), "");
  EXPECT_EQ(t.server().session_count(), 0u);
}

TEST(McpHttpTransport, RequestWithoutSessionIdIs400) {
  HttpTestServer t;
  t.Initialize();
  t.set_session_id("");
  HttpReply r = t.Post(Request(2, "ping"));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.json["error"]["code"], -32000);
}

TEST(McpHttpTransport, UnknownSessionIdIs404) {
  HttpTestServer t;
  t.Initialize();
  t.set_session_id(std::string(32, 'a'));
  HttpReply r = t.Post(Request(2, "ping"));
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.json["error"]["code"], -32001);
}

TEST(McpHttpTransport, DeleteEndsTheSession) {
  HttpTestServer t;
  t.Initialize();
  EXPECT_TRUE(t.PingWorks());
  httplib::Client cli = t.NewClient();
  auto del = cli.Delete("/mcp", t.StandardHeaders());
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 204);
  EXPECT_EQ(t.server().session_count(), 0u);
  HttpReply r = t.Post(Request(3, "ping"));
  EXPECT_EQ(r.status, 404);
  auto again = cli.Delete("/mcp", t.StandardHeaders());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 404);
}

TEST(McpHttpTransport, DeleteWithoutSessionIdIs400) {
  HttpTestServer t;
  httplib::Client cli = t.NewClient();
  auto del = cli.Delete("/mcp", t.StandardHeaders());
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 400);
}

TEST(McpHttpTransport, DeleteCancelsInFlightCalls) {
  HttpTestServer t;
  t.Initialize();
  HttpReply call;
  std::thread caller([&] { call = t.Post(ToolCallRequest(5, "wait_cancel")); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto started = std::chrono::steady_clock::now();
  httplib::Client cli = t.NewClient();
  auto del = cli.Delete("/mcp", t.StandardHeaders());
  caller.join();
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 204);
  // The call ended long before its 5 s timeout, and without a response (it was cancelled).
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(3));
  EXPECT_EQ(call.status, 200);
  EXPECT_TRUE(testing::SseMessages(call.body).empty()) << call.body;
}

TEST(McpHttpTransport, UnsupportedProtocolVersionHeaderIs400) {
  HttpTestServer t;
  t.Initialize();
  httplib::Headers h = t.StandardHeaders();
  h.erase("MCP-Protocol-Version");
  h.emplace("MCP-Protocol-Version", "1999-01-01");
  HttpReply r = t.RawPost(Request(2, "ping").dump(), h);
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.json["error"]["message"].get<std::string>().find("1999-01-01"), std::string::npos);
}

TEST(McpHttpTransport, MissingProtocolVersionHeaderIsAccepted) {
  HttpTestServer t;
  t.Initialize();
  httplib::Headers h = t.StandardHeaders();
  h.erase("MCP-Protocol-Version");
  HttpReply r = t.RawPost(Request(2, "ping").dump(), h);
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST(McpHttpTransport, GetIs405WithAllow) {
  HttpTestServer t;
  t.Initialize();
  httplib::Client cli = t.NewClient();
  auto r = cli.Get("/mcp", t.StandardHeaders({{"Accept", "text/event-stream"}}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  EXPECT_EQ(r->get_header_value("Allow"), "POST, DELETE");
}

TEST(McpHttpTransport, NotificationsAndResponsesAre202) {
  HttpTestServer t;
  t.Initialize();
  HttpReply n = t.Post(Json{{"jsonrpc", "2.0"}, {"method", "notifications/roots/list_changed"}});
  EXPECT_EQ(n.status, 202);
  EXPECT_EQ(n.body, "");
  // An answer to a request nobody is waiting for is still accepted.
  HttpReply resp = t.Post(Json{{"jsonrpc", "2.0"}, {"id", "nobody"}, {"result", Json::object()}});
  EXPECT_EQ(resp.status, 202);
  EXPECT_TRUE(t.PingWorks());
}

TEST(McpHttpTransport, PlainRequestsGetJson) {
  HttpTestServer t;
  t.Initialize();
  HttpReply r = t.Post(Request(2, "tools/list"));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.json["result"]["tools"].size(), 4u);
  // A tool that sends nothing before its result is answered with JSON too (the fast path).
  HttpReply c = t.Post(ToolCallRequest(3, "echo", {{"text", "hi"}}));
  ASSERT_EQ(c.status, 200);
  EXPECT_EQ(c.content_type, "application/json");
  EXPECT_EQ(c.json["result"]["content"][0]["text"], "hi");
}

TEST(McpHttpTransport, ProtocolErrorsAre200WithTheErrorObject) {
  HttpTestServer t;
  t.Initialize();
  HttpReply r = t.Post(Request(2, "no/such/method"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.json["id"], 2);
  EXPECT_EQ(r.json["error"]["code"], -32601);
}

TEST(McpHttpTransport, UnknownPathIs404AndHealthzIsOpen) {
  HttpServerOptions options;
  options.bearer_token = "a-long-enough-test-token";
  HttpTestServer t(options);
  httplib::Client cli = t.NewClient();
  auto health = cli.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(Json::parse(health->body), (Json{{"status", "ok"}}));
  auto other = cli.Post("/nope", t.StandardHeaders(), "{}", "application/json");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 404);
  // A path that only starts like an endpoint is not that endpoint.
  auto longer = cli.Post("/mcpx", t.StandardHeaders(), "{}", "application/json");
  ASSERT_TRUE(longer);
  EXPECT_EQ(longer->status, 404);
}

TEST(McpHttpTransport, SessionsBelongToTheirEndpoint) {
  auto catalog = testing::TransportTestCatalog();
  StreamableHttpServer server;
  ASSERT_TRUE(server
                  .Start({}, {McpEndpoint{"/mcp", catalog, {"a", "", "1", ""}},
                              McpEndpoint{"/mcp/other", catalog, {"b", "", "1", ""}}})
                  .ok());
  httplib::Client cli("127.0.0.1", server.port());
  httplib::Headers h{{"Accept", "application/json, text/event-stream"}};
  auto init = cli.Post("/mcp", h, testing::InitializeRequest().dump(), "application/json");
  ASSERT_TRUE(init);
  std::string id = init->get_header_value("Mcp-Session-Id");
  h.emplace("Mcp-Session-Id", id);
  auto mine = cli.Post("/mcp", h, Request(2, "ping").dump(), "application/json");
  auto theirs = cli.Post("/mcp/other", h, Request(2, "ping").dump(), "application/json");
  ASSERT_TRUE(mine && theirs);
  EXPECT_EQ(mine->status, 200);
  EXPECT_EQ(theirs->status, 404);
  server.Stop();
}

TEST(McpHttpTransport, JsonRoutesShareTheChecks) {
  StreamableHttpServer server;
  Json seen;
  ASSERT_TRUE(server
                  .AddJsonRoute("POST", "/api/v1/lineage",
                                [&](const JsonRouteRequest& req) {
                                  seen = req.body;
                                  return JsonRouteReply{201, {{"accepted", true}}};
                                })
                  .ok());
  EXPECT_FALSE(server.AddJsonRoute("BREW", "/coffee", [](const JsonRouteRequest&) {
    return JsonRouteReply{};
  }).ok());
  HttpServerOptions options;
  options.bearer_token = "route-token-0123456789";
  ASSERT_TRUE(server.Start(options, {McpEndpoint{"/mcp", testing::TransportTestCatalog(), {}}}).ok());
  EXPECT_EQ(server.AddJsonRoute("GET", "/late", [](const JsonRouteRequest&) { return JsonRouteReply{}; })
                .code(),
            StatusCode::kFailedPrecondition);
  httplib::Client cli("127.0.0.1", server.port());
  auto denied = cli.Post("/api/v1/lineage", R"({"eventType":"COMPLETE"})", "application/json");
  ASSERT_TRUE(denied);
  EXPECT_EQ(denied->status, 401);
  httplib::Headers auth{{"Authorization", "Bearer route-token-0123456789"}};
  auto ok = cli.Post("/api/v1/lineage", auth, R"({"eventType":"COMPLETE"})", "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 201);
  EXPECT_EQ(seen["eventType"], "COMPLETE");
  auto bad = cli.Post("/api/v1/lineage", auth, "{not json", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  server.Stop();
}

TEST(McpHttpTransport, StartRefusesNonLoopbackWithoutToken) {
  StreamableHttpServer server;
  HttpServerOptions options;
  options.host = "0.0.0.0";
  Status st = server.Start(options, {McpEndpoint{"/mcp", testing::TransportTestCatalog(), {}}});
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("bearer token"), std::string::npos);
  EXPECT_EQ(server.port(), 0);
}

TEST(McpHttpTransport, StartRejectsBadEndpointsAndBusyPorts) {
  StreamableHttpServer a;
  EXPECT_EQ(a.Start({}, {}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.Start({}, {McpEndpoint{"mcp", testing::TransportTestCatalog(), {}}}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(a.Start({}, {McpEndpoint{"/mcp", nullptr, {}}}).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(a.Start({}, {McpEndpoint{"/mcp", testing::TransportTestCatalog(), {}}}).ok());
  EXPECT_EQ(a.Start({}, {McpEndpoint{"/mcp", testing::TransportTestCatalog(), {}}}).code(),
            StatusCode::kFailedPrecondition);
  StreamableHttpServer b;
  HttpServerOptions same_port;
  same_port.port = a.port();
  EXPECT_EQ(b.Start(same_port, {McpEndpoint{"/mcp", testing::TransportTestCatalog(), {}}}).code(),
            StatusCode::kUnavailable);
  a.Stop();
  a.Stop();  // idempotent
}

TEST(McpHttpTransport, ServesTheConformanceFixtures) {
  auto catalog = std::make_shared<Catalog>();
  AddConformanceFixtures(*catalog);
  HttpTestServer t({}, catalog);
  t.Initialize();
  HttpReply r = t.Post(ToolCallRequest(2, "test_simple_text"));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json["result"]["content"][0]["text"], "This is a simple text response for testing.");
}

}  // namespace
}  // namespace dw::mcp
