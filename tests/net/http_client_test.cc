#include "net/http_client.h"

#include <gtest/gtest.h>
#include "tests/support/loopback_http_server.h"

#include <thread>

#include "base/log.h"
#include "base/url_redaction.h"

namespace dw::net {
namespace {

using namespace std::chrono_literals;

TEST(NetHttpClientTest, EncodesPathSegments) {
  EXPECT_EQ(EncodePathSegment("bq-sink balances/1"), "bq-sink%20balances%2F1");
  EXPECT_EQ(EncodePathSegment("a.b_c~d-e"), "a.b_c~d-e");
  EXPECT_EQ(EncodePathSegment("ünï"), "%C3%BCn%C3%AF");
  EXPECT_EQ(JoinUrl("http://h:8083/", {"connectors", "a/b", "status"}),
            "http://h:8083/connectors/a%2Fb/status");
}

TEST(NetHttpClientTest, RedactsPasswordsInUrls) {
  EXPECT_EQ(RedactUrl("postgresql://dw:s3cret@127.0.0.1:5432/dw"), "postgresql://dw:***@127.0.0.1:5432/dw");
  EXPECT_EQ(RedactUrl("http://127.0.0.1:8081/overview"), "http://127.0.0.1:8081/overview");
  EXPECT_EQ(RedactUrl("http://h/path@x"), "http://h/path@x");
}

TEST(NetHttpClientTest, RejectsNonHttpUrls) {
  auto client = MakeCurlHttpClient();
  HttpRequest req;
  req.url = "file:///etc/passwd";
  auto r = client->Send(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
}

class NetHttpClientServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Get("/ok", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content("{\"auth\":\"" + req.get_header_value("Authorization") + "\"}", "application/json");
    });
    server_.Get("/flaky", [this](const httplib::Request&, httplib::Response& res) {
      res.status = ++flaky_calls_ < 3 ? 503 : 200;
    });
    server_.Get("/big", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(100000, 'x'), "text/plain");
    });
    server_.Get("/slow", [](const httplib::Request&, httplib::Response& res) {
      std::this_thread::sleep_for(1500ms);
      res.set_content("late", "text/plain");
    });
    http_.Start();
  }
  std::string Url(const std::string& path) { return http_.url() + path; }

  testing::LoopbackHttpServer http_;
  httplib::Server& server_ = http_.server();
  std::atomic<int> flaky_calls_{0};
};

TEST_F(NetHttpClientServerTest, SendsBearerToken) {
  auto client = MakeCurlHttpClient();
  HttpRequest req;
  req.url = Url("/ok");
  req.bearer_token = "tok-123456";
  auto r = client->Send(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "{\"auth\":\"Bearer tok-123456\"}");
  EXPECT_EQ(r->headers["content-type"], "application/json");
}

TEST_F(NetHttpClientServerTest, RetriesServerErrorsWithBackoff) {
  auto client = MakeCurlHttpClient();
  HttpRequest req;
  req.url = Url("/flaky");
  req.max_attempts = 4;
  auto r = client->Send(req);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->attempts, 3);
}

TEST_F(NetHttpClientServerTest, CapsTheBodySize) {
  auto client = MakeCurlHttpClient();
  HttpRequest req;
  req.url = Url("/big");
  req.max_response_bytes = 1000;
  auto r = client->Send(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
}

TEST_F(NetHttpClientServerTest, TimesOut) {
  auto client = MakeCurlHttpClient();
  HttpRequest req;
  req.url = Url("/slow");
  req.timeout = 200ms;
  auto r = client->Send(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDeadlineExceeded);
}

TEST(NetHttpClientUnreachableTest, ConnectionRefusedIsUnavailableAndHidesPassword) {
  auto client = MakeCurlHttpClient();
  HttpRequest req;
  // Port 1 on loopback: nothing listens there.
  req.url = "http://admin:hunter22@127.0.0.1:1/";
  auto r = client->Send(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(r.status().message().find("hunter22"), std::string::npos);
}

}  // namespace
}  // namespace dw::net
