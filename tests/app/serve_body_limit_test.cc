// The 4 MiB body limit of `dw serve` holds however a body is framed or encoded: a chunked body far
// over it and a small gzip body that inflates far over it are both refused with 413 while they
// are read, and the server's memory (its peak resident set, VmHWM) never holds them.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/support/serve_process.h"
#include "tests/support/subprocess.h"

extern char** environ;

namespace dw {
namespace {

constexpr size_t kMiB = 1024 * 1024;

// `dw --workspace WS serve --listen 127.0.0.1:0`.
class Server : public testing::ServeProcess {
 public:
  explicit Server(const std::filesystem::path& workspace)
      : ServeProcess({"--workspace", workspace.string(), "serve", "--listen", "127.0.0.1:0"}) {}
};

// Sends `head` then up to `body_bytes` of `chunk`-framed (chunked) or raw body bytes, reading
// the server's answer as soon as it comes (a server that refuses early answers mid-upload).
// Returns the status line ("" when none came) and how many body bytes went out.
struct Upload {
  std::string status_line;
  size_t sent = 0;
};
Upload Send(int port, const std::string& head, const std::string& piece, size_t body_bytes, bool chunked) {
  Upload u;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return u;
  }
  std::string frame = piece;
  if (chunked) {
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
    frame = size + piece + "\r\n";
  }
  std::string pending = head;
  bool finished = false;
  std::string answer;
  while (true) {
    pollfd p{fd, static_cast<short>(POLLIN | (finished && pending.empty() ? 0 : POLLOUT)), 0};
    if (poll(&p, 1, 10000) <= 0) break;
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
      char buf[4096];
      ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      answer.append(buf, static_cast<size_t>(n));
      if (answer.find("\r\n") != std::string::npos) break;
      continue;
    }
    if (pending.empty()) {
      if (u.sent >= body_bytes) {
        if (!finished && chunked) pending = "0\r\n\r\n";
        finished = true;
        if (pending.empty()) continue;
      } else {
        pending = frame;
        u.sent += piece.size();
      }
    }
    ssize_t n = send(fd, pending.data(), pending.size(), MSG_NOSIGNAL);
    if (n <= 0) break;
    pending.erase(0, static_cast<size_t>(n));
  }
  close(fd);
  u.status_line = answer.substr(0, answer.find("\r\n"));
  return u;
}

class ServeBodyLimitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tmp_.Write("dataworkers.yaml", "version: 1\nname: limits\nlineage:\n  openlineage: true\n");
  }
  testing::TempDir tmp_;
};

TEST_F(ServeBodyLimitTest, AChunkedBodyFarOverTheLimitIsRefusedWhileItIsRead) {
  Server server(tmp_.path());
  ASSERT_GT(server.port(), 0);
  const size_t before = server.PeakRss();
  const std::string head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server.port()) +
                           "\r\nContent-Type: application/json\r\nAccept: application/json, "
                           "text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
  Upload u = Send(server.port(), head, std::string(64 * 1024, ' '), 200 * kMiB, /*chunked=*/true);
  EXPECT_EQ(u.status_line, "HTTP/1.1 413 Payload Too Large");
  EXPECT_LT(u.sent, 100 * kMiB) << "the server answered only after reading most of the body";
  const size_t after = server.PeakRss();
  EXPECT_LT(after - before, 32 * kMiB) << "peak RSS grew from " << before << " to " << after;
  // The server still serves, on a new connection.
  httplib::Client client("127.0.0.1", server.port());
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

TEST_F(ServeBodyLimitTest, AGzipBodyThatInflatesFarOverTheLimitIsRefusedWhileItIsInflated) {
  // 300 MiB of zeros, gzipped: about 300 KB on the wire, well under the limit as sent.
  auto bomb = tmp_.path() / "bomb.gz";
  auto made = testing::RunCommand("head -c " + std::to_string(300 * kMiB) + " /dev/zero | gzip -1 > '" +
                                  bomb.string() + "'");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const std::string body = testing::ReadWholeFile(bomb);
  ASSERT_LT(body.size(), 4 * kMiB);
  Server server(tmp_.path());
  ASSERT_GT(server.port(), 0);
  const size_t before = server.PeakRss();
  httplib::Client client("127.0.0.1", server.port());
  httplib::Headers headers = {{"Content-Encoding", "gzip"}};
  auto res = client.Post("/api/v1/lineage", headers, body, "application/json");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 413) << res->body;
  EXPECT_NE(res->body.find("after decompression"), std::string::npos) << res->body;
  // The same bomb on the MCP endpoint.
  httplib::Headers mcp = {{"Content-Encoding", "gzip"}, {"Accept", "application/json, text/event-stream"}};
  auto on_mcp = httplib::Client("127.0.0.1", server.port()).Post("/mcp", mcp, body, "application/json");
  ASSERT_TRUE(on_mcp);
  EXPECT_EQ(on_mcp->status, 413);
  const size_t after = server.PeakRss();
  EXPECT_LT(after - before, 32 * kMiB) << "peak RSS grew from " << before << " to " << after;
  // A body within the limit still goes through, compressed or not.
  auto ok = httplib::Client("127.0.0.1", server.port())
                .Post("/api/v1/lineage", "{not json", "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 400);
}

TEST_F(ServeBodyLimitTest, AnUnroutedPathNeverBuffersABody) {
  Server server(tmp_.path());
  ASSERT_GT(server.port(), 0);
  const size_t before = server.PeakRss();
  const std::string head = "PUT /nowhere HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server.port()) +
                           "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
  Upload u = Send(server.port(), head, std::string(64 * 1024, 'x'), 100 * kMiB, /*chunked=*/true);
  EXPECT_EQ(u.status_line, "HTTP/1.1 413 Payload Too Large");
  EXPECT_LT(server.PeakRss() - before, 32 * kMiB);
}

}  // namespace
}  // namespace dw
