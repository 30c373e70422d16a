// The fast path for raw-body JSON routes: which heads it reads, and, over a real socket, that it
// answers plain POSTs itself while every other request on the same keep-alive connection (other
// paths, failed checks, split heads) still gets httplib's answer, in order.
#include "net/http_fast_route.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "mcp/http_transport.h"
#include "tests/mcp/http_test_server.h"

namespace dw::mcp {
namespace {
namespace http_fast_route_test {

using net::FastHead;
using net::FastRequestHead;
using net::JsonRouteReply;
using net::JsonRouteRequest;
using net::ParseFastRequestHead;
FastHead Parse(std::string_view text, FastRequestHead* head) { return ParseFastRequestHead(text, head); }

constexpr char kPlain[] =
    "POST /api/v1/lineage HTTP/1.1\r\nHost: 127.0.0.1:5000\r\ncontent-type: application/json\r\n"
    "Content-Length: 2\r\nAuthorization: Bearer t\r\n\r\n{}";

TEST(McpHttpFastHead, ReadsAPlainPost) {
  FastRequestHead h;
  ASSERT_EQ(Parse(kPlain, &h), FastHead::kComplete);
  EXPECT_EQ(h.method, "POST");
  EXPECT_EQ(h.target, "/api/v1/lineage");
  EXPECT_EQ(h.host_count, 1);
  EXPECT_EQ(h.host, "127.0.0.1:5000");
  EXPECT_EQ(h.content_type, "application/json");
  EXPECT_EQ(h.content_length, 2u);
  EXPECT_EQ(h.authorization_count, 1);
  EXPECT_EQ(h.authorization, "Bearer t");
  EXPECT_EQ(h.origin_count, 0);
  EXPECT_FALSE(h.close);
  EXPECT_EQ(h.head_bytes, std::string_view(kPlain).size() - 2);
  std::string close = "POST / HTTP/1.1\r\nHost: x\r\nConnection: Close\r\nContent-Length: 0\r\n\r\n";
  ASSERT_EQ(Parse(close, &h), FastHead::kComplete);
  EXPECT_TRUE(h.close);
}

TEST(McpHttpFastHead, WaitsForTheBlankLine) {
  FastRequestHead h;
  EXPECT_EQ(Parse("POST /x HTTP/1.1\r\nHost: a\r\n", &h), FastHead::kIncomplete);
  EXPECT_EQ(Parse("", &h), FastHead::kIncomplete);
}

TEST(McpHttpFastHead, LeavesEverythingUnusualToHttplib) {
  const std::string base = "POST /x HTTP/1.1\r\nHost: a\r\n";
  for (const std::string& head : {
           std::string("POST /x HTTP/1.0\r\nHost: a\r\nContent-Length: 1\r\n\r\n"),
           std::string("POST /x  HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\n"),
           std::string("PO\x01ST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\n"),
           base + "Transfer-Encoding: chunked\r\n\r\n",
           base + "Content-Length: 1\r\nContent-Encoding: gzip\r\n\r\n",
           base + "Content-Length: 1\r\nExpect: 100-continue\r\n\r\n",
           base + "Content-Length: 1\r\nContent-Length: 1\r\n\r\n",
           base + "Content-Length: 1x\r\n\r\n",
           base + "Content-Length: -1\r\n\r\n",
           base + "Content-Length: 99999999999999999999\r\n\r\n",
           base + "\r\n",  // no Content-Length
           base + "Content-Length: 1\r\nX-A: b\r\n folded\r\n\r\n",
           base + "Content-Length: 1\r\nNo colon\r\n\r\n",
           base + "Content-Length: 1\r\nBad Name: v\r\n\r\n",
           base + "Content-Length: 1\r\nX: a\nb\r\n\r\n",
           base + "Content-Length: 1\r\nContent-Type: a\r\nContent-Type: b\r\n\r\n",
           std::string("POST /x HTTP/1.1\nHost: a\n"),  // bare LF, even before the end
       }) {
    FastRequestHead h;
    EXPECT_EQ(Parse(head, &h), FastHead::kNotFast) << head;
  }
}

// A raw keep-alive connection: writes bytes as given, reads responses by Content-Length.
class RawConnection {
 public:
  explicit RawConnection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    timeval tv{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~RawConnection() { ::close(fd_); }
  bool connected() const { return connected_; }

  void Send(const std::string& bytes) {
    ASSERT_EQ(::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
  }

  struct Response {
    int status = 0;
    std::string head;  // status line and headers, lower-cased
    std::string body;
  };
  // The next response; status 0 when the connection ended first.
  Response Read() {
    Response r;
    size_t end;
    while ((end = buf_.find("\r\n\r\n")) == std::string::npos)
      if (!Fill()) return r;
    r.head = buf_.substr(0, end);
    for (char& c : r.head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    size_t length = 0;
    if (size_t at = r.head.find("\r\ncontent-length:"); at != std::string::npos)
      length = std::stoul(r.head.substr(at + 17));
    while (buf_.size() < end + 4 + length)
      if (!Fill()) return r;
    r.status = std::stoi(buf_.substr(9, 3));
    r.body = buf_.substr(end + 4, length);
    buf_.erase(0, end + 4 + length);
    return r;
  }
  // True when the server closed the connection (and nothing else arrived).
  bool Closed() { return buf_.empty() && !Fill(); }

 private:
  bool Fill() {
    char tmp[4096];
    ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
    if (n <= 0) return false;
    buf_.append(tmp, static_cast<size_t>(n));
    return true;
  }
  int fd_ = -1;
  bool connected_ = false;
  std::string buf_;
};

std::string Post(const std::string& body, const std::string& extra_headers = "",
                 const std::string& path = "/api/v1/lineage") {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
         extra_headers + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

class McpHttpFastRoute : public ::testing::Test {
 protected:
  void StartServer(HttpServerOptions options = {}) {
    ASSERT_TRUE(server_
                    .AddJsonRoute("POST", "/api/v1/lineage",
                                  [this](const JsonRouteRequest& req) {
                                    ++calls_;
                                    if (req.raw_body == "\"throw\"") throw std::runtime_error("boom");
                                    return JsonRouteReply{201, {{"got", std::string(req.raw_body)}}};
                                  },
                                  /*raw_body=*/true)
                    .ok());
    ASSERT_TRUE(server_.Start(options, {McpEndpoint{"/mcp", testing::TransportTestCatalog(), {}}}).ok());
  }
  ~McpHttpFastRoute() override { server_.Stop(); }

  StreamableHttpServer server_;
  std::atomic<int> calls_{0};
};

TEST_F(McpHttpFastRoute, OtherRequestsOnTheSameConnectionStillGetHttplibAnswers) {
  StartServer();
  RawConnection c(server_.port());
  ASSERT_TRUE(c.connected());
  c.Send(Post(R"({"a":1})"));
  auto first = c.Read();
  EXPECT_EQ(first.status, 201);
  EXPECT_EQ(Json::parse(first.body)["got"], R"({"a":1})");
  EXPECT_NE(first.head.find("keep-alive: timeout=5"), std::string::npos) << first.head;
  c.Send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  auto health = c.Read();
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(Json::parse(health.body)["status"], "ok");
  c.Send(Post("{}", "", "/api/v1/other"));  // no such route: httplib's 404
  EXPECT_EQ(c.Read().status, 404);
  c.Send("POST /api/v1/lineage HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
         "Content-Length: 2\r\n\r\n{}");
  EXPECT_EQ(c.Read().status, 415);  // httplib's answer
  c.Send(Post("[2]"));
  auto again = c.Read();
  EXPECT_EQ(again.status, 201);
  EXPECT_EQ(Json::parse(again.body)["got"], "[2]");
  EXPECT_EQ(calls_.load(), 2);
}

TEST_F(McpHttpFastRoute, PipelinedAndSplitRequestsAreAnsweredInOrder) {
  StartServer();
  RawConnection c(server_.port());
  ASSERT_TRUE(c.connected());
  // Three requests in one write, the middle one for httplib.
  c.Send(Post("[1]") + "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + Post("[3]"));
  auto one = c.Read();
  auto two = c.Read();
  auto three = c.Read();
  EXPECT_EQ(one.status, 201);
  EXPECT_EQ(Json::parse(one.body)["got"], "[1]");
  EXPECT_EQ(two.status, 200);
  EXPECT_EQ(three.status, 201);
  EXPECT_EQ(Json::parse(three.body)["got"], "[3]");
  // A head split across writes (httplib reads it), then a body that comes late (fast path waits).
  std::string split = Post("[4]");
  c.Send(split.substr(0, 20));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  c.Send(split.substr(20));
  auto four = c.Read();
  EXPECT_EQ(four.status, 201);
  EXPECT_EQ(Json::parse(four.body)["got"], "[4]");
  std::string late = Post("[5]");
  c.Send(late.substr(0, late.size() - 2));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  c.Send(late.substr(late.size() - 2));
  auto five = c.Read();
  EXPECT_EQ(five.status, 201);
  EXPECT_EQ(Json::parse(five.body)["got"], "[5]");
}

TEST_F(McpHttpFastRoute, ALargeBodyArrivingInPiecesIsReadWhole) {
  StartServer();
  RawConnection c(server_.port());
  ASSERT_TRUE(c.connected());
  const std::string body = "\"" + std::string(300000, 'y') + "\"";
  const std::string request = Post(body);
  for (size_t at = 0; at < request.size(); at += 70000) {
    c.Send(request.substr(at, 70000));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  auto r = c.Read();
  EXPECT_EQ(r.status, 201);
  EXPECT_EQ(Json::parse(r.body)["got"].get<std::string>().size(), body.size());
}

TEST_F(McpHttpFastRoute, ChecksFailLikeTheyDoOnHttplibsPath) {
  HttpServerOptions options;
  options.bearer_token = "fast-token-0123456789";
  StartServer(options);
  // httplib rejects before reading the body, so each rejected request gets its own connection.
  auto status = [&](const std::string& request, std::string* head = nullptr) {
    RawConnection c(server_.port());
    EXPECT_TRUE(c.connected());
    c.Send(request);
    auto r = c.Read();
    if (head) *head = r.head;
    return r.status;
  };
  std::string head;
  EXPECT_EQ(status(Post("{}"), &head), 401);
  EXPECT_NE(head.find("www-authenticate: bearer"), std::string::npos) << head;
  EXPECT_EQ(status(Post("{}", "Authorization: Bearer wrong\r\n")), 401);
  EXPECT_EQ(status(Post("{}", "Authorization: Bearer fast-token-0123456789\r\nOrigin: http://evil.example\r\n")), 403);
  EXPECT_EQ(status("POST /api/v1/lineage HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\n"
                   "Authorization: Bearer fast-token-0123456789\r\nContent-Length: 2\r\n\r\n{}"),
            403);
  EXPECT_EQ(calls_.load(), 0);
  EXPECT_EQ(status(Post("{}", "Authorization: Bearer fast-token-0123456789\r\n")), 201);
  EXPECT_EQ(calls_.load(), 1);
}

TEST_F(McpHttpFastRoute, OversizedBodiesThrowingHandlersAndConnectionClose) {
  HttpServerOptions options;
  options.limits.max_message_bytes = 64;
  StartServer(options);
  RawConnection c(server_.port());
  ASSERT_TRUE(c.connected());
  c.Send(Post("\"" + std::string(100, 'x') + "\""));
  EXPECT_EQ(c.Read().status, 413);
  RawConnection d(server_.port());
  d.Send(Post("\"throw\""));
  auto failed = d.Read();
  EXPECT_EQ(failed.status, 500);
  EXPECT_EQ(Json::parse(failed.body)["error"]["message"], "Internal error");
  d.Send(Post("[6]", "Connection: close\r\n"));
  auto last = d.Read();
  EXPECT_EQ(last.status, 201);
  EXPECT_NE(last.head.find("connection: close"), std::string::npos) << last.head;
  EXPECT_TRUE(d.Closed());
}

}  // namespace http_fast_route_test
}  // namespace
}  // namespace dw::mcp
