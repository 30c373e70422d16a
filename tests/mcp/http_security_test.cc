// Streamable HTTP: DNS-rebinding protection (Host/Origin) and the bearer token.
#include "net/http_security.h"

#include <gtest/gtest.h>

#include "tests/mcp/http_test_server.h"

namespace dw::mcp {
namespace {

using net::BearerCheck;
using net::IsLoopbackHost;
using net::IsWildcardHost;
using net::OriginPolicy;
using net::ParseHostHeader;
using testing::HttpReply;
using testing::HttpTestServer;
using testing::Request;

TEST(McpHttpSecurity, LoopbackNames) {
  for (const char* h : {"localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "::1", "[::1]"})
    EXPECT_TRUE(IsLoopbackHost(h)) << h;
  for (const char* h : {"evil.example.com", "localhost.evil.com", "127.0.0.1.evil.com", "0.0.0.0",
                        "10.0.0.1", "128.0.0.1", "", "127.0.0.1 "})
    EXPECT_FALSE(IsLoopbackHost(h)) << h;
}

TEST(McpHttpSecurity, HostHeaderParsing) {
  std::string host;
  EXPECT_TRUE(ParseHostHeader("localhost:8808", &host));
  EXPECT_EQ(host, "localhost");
  EXPECT_TRUE(ParseHostHeader("[::1]:9", &host));
  EXPECT_EQ(host, "::1");
  EXPECT_TRUE(ParseHostHeader("Example.COM", &host));
  EXPECT_EQ(host, "example.com");
  for (const char* bad : {"", ":80", "localhost:", "localhost:abc", "[::1", "a b", "user@localhost",
                          "localhost:80:80", "localhost/x", "[]:1"})
    EXPECT_FALSE(ParseHostHeader(bad, &host)) << bad;
}

TEST(McpHttpSecurity, OriginPolicy) {
  OriginPolicy local({}, false);
  EXPECT_TRUE(local.HostAllowed("127.0.0.1:8808"));
  EXPECT_TRUE(local.HostAllowed("localhost"));
  EXPECT_FALSE(local.HostAllowed("evil.example.com"));
  EXPECT_FALSE(local.HostAllowed(""));
  EXPECT_TRUE(local.OriginAllowed("http://localhost:3000"));
  EXPECT_TRUE(local.OriginAllowed("https://127.0.0.1"));
  EXPECT_TRUE(local.OriginAllowed("http://[::1]:5173"));
  for (const char* bad : {"http://evil.example.com", "null", "file://", "http://localhost.evil.com",
                          "ftp://localhost", "http://localhost:99999x", "http://127.0.0.1@evil.com"})
    EXPECT_FALSE(local.OriginAllowed(bad)) << bad;

  OriginPolicy named({"dw.internal"}, false);
  EXPECT_TRUE(named.HostAllowed("dw.internal:8808"));
  EXPECT_TRUE(named.OriginAllowed("https://dw.internal"));
  EXPECT_FALSE(named.HostAllowed("other.internal"));

  OriginPolicy wildcard({}, true);
  EXPECT_TRUE(wildcard.HostAllowed("10.1.2.3:8808"));
  EXPECT_FALSE(wildcard.OriginAllowed("http://evil.example.com"));
}

TEST(McpHttpSecurity, BearerCheck) {
  BearerCheck off("");
  EXPECT_FALSE(off.enabled());
  EXPECT_TRUE(off.Allows(""));
  BearerCheck on("s3cret-token-value");
  EXPECT_TRUE(on.enabled());
  EXPECT_TRUE(on.Allows("Bearer s3cret-token-value"));
  EXPECT_TRUE(on.Allows("bearer s3cret-token-value"));
  for (const char* bad : {"", "Bearer", "Bearer ", "Bearer s3cret-token-valu", "Bearer s3cret-token-value2",
                          "Basic s3cret-token-value", "s3cret-token-value"})
    EXPECT_FALSE(on.Allows(bad)) << bad;
}

TEST(McpHttpSecurity, ForeignHostIs403AndLocalHostsPass) {
  HttpTestServer t;
  HttpReply evil = t.Post(testing::InitializeRequest(), {{"Host", "evil.example.com"}});
  EXPECT_EQ(evil.status, 403);
  EXPECT_EQ(t.server().session_count(), 0u);
  for (std::string host : {"localhost", "127.0.0.1", "[::1]"}) {
    HttpReply ok = t.Post(testing::InitializeRequest(), {{"Host", host + ":" + std::to_string(t.port())}});
    EXPECT_EQ(ok.status, 200) << host;
  }
}

TEST(McpHttpSecurity, ForeignOriginIs403AndLocalOriginPasses) {
  HttpTestServer t;
  HttpReply evil = t.Post(testing::InitializeRequest(), {{"Origin", "http://evil.example.com"}});
  EXPECT_EQ(evil.status, 403);
  HttpReply ok = t.Post(testing::InitializeRequest(), {{"Origin", "http://localhost:5173"}});
  EXPECT_EQ(ok.status, 200);
}

TEST(McpHttpSecurity, ConformanceRebindingProbe) {
  // What the conformance suite's dns-rebinding-protection scenario sends.
  HttpTestServer t;
  HttpReply evil = t.Post(testing::InitializeRequest(),
                          {{"Host", "evil.example.com"}, {"Origin", "http://evil.example.com"}});
  EXPECT_GE(evil.status, 400);
  EXPECT_LT(evil.status, 500);
  std::string local = "localhost:" + std::to_string(t.port());
  HttpReply ok = t.Post(testing::InitializeRequest(), {{"Host", local}, {"Origin", "http://" + local}});
  EXPECT_EQ(ok.status, 200);
}

TEST(McpHttpSecurity, BearerTokenRequiredWhenConfigured) {
  HttpServerOptions options;
  options.bearer_token = "correct-horse-battery-staple";
  HttpTestServer t(options);
  httplib::Headers plain{{"Accept", "application/json, text/event-stream"}};
  HttpReply missing = t.RawPost(testing::InitializeRequest().dump(), plain);
  EXPECT_EQ(missing.status, 401);
  EXPECT_EQ(missing.header("WWW-Authenticate"), "Bearer realm=\"dw\"");
  EXPECT_EQ(missing.body.find("correct-horse"), std::string::npos);

  httplib::Headers wrong = plain;
  wrong.emplace("Authorization", "Bearer correct-horse-battery-stapler");
  EXPECT_EQ(t.RawPost(testing::InitializeRequest().dump(), wrong).status, 401);

  httplib::Headers twice = plain;
  twice.emplace("Authorization", "Bearer correct-horse-battery-staple");
  twice.emplace("Authorization", "Bearer something-else");
  EXPECT_EQ(t.RawPost(testing::InitializeRequest().dump(), twice).status, 401);

  t.Initialize();  // StandardHeaders carry the token
  EXPECT_TRUE(t.PingWorks());
  httplib::Client cli = t.NewClient();
  auto get = cli.Get("/mcp");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 401);  // checked before routing: even the 405 needs the token
}

TEST(McpHttpSecurity, BoundNonLoopbackHostIsAllowedWithToken) {
  // Binding 0.0.0.0 with a token: any Host passes (the token protects), foreign Origins do not.
  HttpServerOptions options;
  options.host = "0.0.0.0";
  options.bearer_token = "wildcard-token-0123456789";
  HttpTestServer t(options);
  EXPECT_EQ(t.Post(testing::InitializeRequest(), {{"Host", "dw.example.internal:1"}}).status, 200);
  EXPECT_EQ(t.Post(testing::InitializeRequest(), {{"Origin", "http://evil.example.com"}}).status, 403);
}

}  // namespace
}  // namespace dw::mcp
