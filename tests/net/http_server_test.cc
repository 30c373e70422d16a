// The one HTTP server without MCP on it: JSON routes behind the shared checks, the plain rejection
// shape, and routes that cannot be registered.
#include "net/http_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

namespace dw::net {
namespace {

TEST(NetHttpServerTest, JsonRoutesWithoutMcpAndThePlainRejectionShape) {
  HttpServer server;
  ASSERT_TRUE(server.AddJsonRoute("POST", "/api/v1/echo", [](const JsonRouteRequest& r) {
    return JsonRouteReply{201, {{"got", r.body}}};
  }).ok());
  HttpServerOptions options;
  options.bearer_token = "net-server-token-0123456789";
  ASSERT_TRUE(server.Start(options).ok());
  ASSERT_GT(server.port(), 0);
  httplib::Client cli("127.0.0.1", server.port());

  auto health = cli.Get("/healthz");  // open: no token
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);

  auto denied = cli.Post("/api/v1/echo", R"({"a":1})", "application/json");
  ASSERT_TRUE(denied);
  EXPECT_EQ(denied->status, 401);
  EXPECT_EQ(Json::parse(denied->body), (Json{{"error", "Unauthorized: a valid bearer token is required"}}));

  httplib::Headers auth{{"Authorization", "Bearer net-server-token-0123456789"}};
  auto ok = cli.Post("/api/v1/echo", auth, R"({"a":1})", "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 201);
  EXPECT_EQ(Json::parse(ok->body), (Json{{"got", {{"a", 1}}}}));

  httplib::Headers foreign{{"Authorization", "Bearer net-server-token-0123456789"}, {"Host", "evil.example.com"}};
  auto rebinding = cli.Post("/api/v1/echo", foreign, R"({"a":1})", "application/json");
  ASSERT_TRUE(rebinding);
  EXPECT_EQ(rebinding->status, 403);
  EXPECT_EQ(Json::parse(rebinding->body)["error"], "Forbidden: Host header not allowed");

  auto missing = cli.Get("/nope", auth);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  server.Stop();
  EXPECT_EQ(server.port(), 0);
}

TEST(NetHttpServerTest, APathBelongsToOneKindOfRouteAndRoutesCloseAtStart) {
  HttpServer server;
  auto json = [](const JsonRouteRequest&) { return JsonRouteReply{}; };
  auto raw = [](const httplib::Request&, httplib::Response&) {};
  ASSERT_TRUE(server.AddJsonRoute("POST", "/a", json).ok());
  EXPECT_EQ(server.AddJsonRoute("POST", "/a", json).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(server.AddHandler("GET", "/a", raw).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(server.AddHandler("POST", "/b", raw).ok());
  EXPECT_EQ(server.AddJsonRoute("GET", "/b", json).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(server.AddHandler("BREW", "/c", raw).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(server.AddHandler("GET", "/healthz", raw).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(server.AddHandler("GET", "relative", raw).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(server.Start({}).ok());
  EXPECT_EQ(server.AddHandler("GET", "/late", raw).code(), StatusCode::kFailedPrecondition);
  server.Stop();
}

TEST(NetHttpServerTest, ANonLoopbackHostNeedsAToken) {
  HttpServer server;
  HttpServerOptions options;
  options.host = "0.0.0.0";
  Status st = server.Start(options);
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("bearer token"), std::string::npos);
}

}  // namespace
}  // namespace dw::net
