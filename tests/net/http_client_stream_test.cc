// HttpRequest::body_sink: a body handed over in chunks, bounded by the cap, never kept.
#include <gtest/gtest.h>

#include "net/http_client.h"
#include "tests/support/loopback_http_server.h"

namespace dw::net {
namespace {

class HttpStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    http_.server().Get("/big", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(3 * 1024 * 1024, 'x'), "text/plain");
    });
    http_.server().Get("/missing", [this](const httplib::Request&, httplib::Response& res) {
      ++missing_calls_;
      res.status = 503;
      res.set_content(R"({"errors":["down"]})", "application/json");
    });
    http_.Start();
  }
  testing::LoopbackHttpServer http_;
  std::atomic<int> missing_calls_{0};
  std::unique_ptr<HttpClient> client_ = MakeCurlHttpClient();
};

TEST_F(HttpStreamTest, WholeBodyGoesToTheSinkAndNotToTheResponse) {
  HttpRequest req;
  req.url = http_.url() + "/big";
  size_t got = 0, chunks = 0;
  req.body_sink = [&](std::string_view c) {
    got += c.size();
    ++chunks;
    return true;
  };
  auto r = client_->Send(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(got, 3u * 1024 * 1024);
  EXPECT_GT(chunks, 1u);
  EXPECT_TRUE(r->body.empty());
  EXPECT_FALSE(r->truncated);
  EXPECT_EQ(r->streamed_bytes, got);
}

TEST_F(HttpStreamTest, TheCapStopsTheReadWithoutAnError) {
  HttpRequest req;
  req.url = http_.url() + "/big";
  req.max_response_bytes = 100000;
  size_t got = 0;
  req.body_sink = [&](std::string_view c) {
    got += c.size();
    return true;
  };
  auto r = client_->Send(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(got, 100000u);
  EXPECT_TRUE(r->truncated);
}

TEST_F(HttpStreamTest, ErrorBodiesAreKeptForTheMessageAndRetriesStillHappen) {
  HttpRequest req;
  req.url = http_.url() + "/missing";
  req.max_attempts = 2;
  bool sink_called = false;
  req.body_sink = [&](std::string_view) {
    sink_called = true;
    return true;
  };
  auto r = client_->Send(req);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(r->body, R"({"errors":["down"]})");
  EXPECT_FALSE(sink_called);
  EXPECT_EQ(missing_calls_.load(), 2);  // nothing reached the sink, so the retry was safe
}

}  // namespace
}  // namespace dw::net
