// Slow and greedy clients cannot stop the server (docs/RELIABILITY.md, "Slow clients"): 500
// connections from one address, each trickling a header byte at a time, leave `/healthz` and the
// routes answering everyone else; the connections over that address's share are answered 503 at
// once, and those admitted are closed with 408 when their request's time is up.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <mutex>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "net/connection_table.h"
#include "net/http_server.h"
#include "net/peer_admission.h"

namespace dw::net {
namespace {
namespace http_slow_clients_test {

using Clock = std::chrono::steady_clock;

TEST(PeerAdmissionTest, EachAddressHoldsAtMostItsShareAndLeavingFreesIt) {
  PeerAdmission peers(2);
  EXPECT_TRUE(peers.Enter("127.0.0.2"));
  EXPECT_TRUE(peers.Enter("127.0.0.2"));
  EXPECT_FALSE(peers.Enter("127.0.0.2"));
  EXPECT_TRUE(peers.Enter("127.0.0.1"));  // another address has its own share
  EXPECT_EQ(peers.Held("127.0.0.2"), 2u);
  peers.Leave("127.0.0.2");
  EXPECT_TRUE(peers.Enter("127.0.0.2"));
  peers.Leave("127.0.0.2");
  peers.Leave("127.0.0.2");
  peers.Leave("127.0.0.1");
  EXPECT_EQ(peers.Held("127.0.0.2"), 0u);
  peers.Leave("10.0.0.9");  // never entered: nothing to undo
  EXPECT_EQ(peers.Held("10.0.0.9"), 0u);
}

TEST(ConnectionTableTest, AtTheCapANewcomerTakesThePlaceOfTheLongestWaiterNeverOfOneBeingServed) {
  using namespace std::chrono_literals;
  // Real sockets, so the eviction's shutdown has something to act on.
  int pairs[4][2];
  for (auto& p : pairs) ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, p), 0);
  const auto t0 = ConnectionTable::Steady::now();
  ConnectionTable table(2);
  EXPECT_TRUE(table.Admit(pairs[0][0], t0));
  EXPECT_TRUE(table.Admit(pairs[1][0], t0 + 100ms));
  table.Served(pairs[0][0]);
  table.Served(pairs[1][0]);
  // Full of connections being served: the newcomer is refused and nobody is touched.
  EXPECT_FALSE(table.Admit(pairs[2][0], t0 + 200ms));
  EXPECT_EQ(table.held(), 2u);
  EXPECT_EQ(table.evicted(), 0u);
  // Both idle again (keep-alive, waiting for a next head): the one waiting longest goes.
  table.Waiting(pairs[1][0], t0 + 300ms);
  table.Waiting(pairs[0][0], t0 + 400ms);
  EXPECT_TRUE(table.Admit(pairs[2][0], t0 + 500ms));
  EXPECT_EQ(table.evicted(), 1u);
  char byte;
  EXPECT_EQ(::recv(pairs[1][0], &byte, 1, MSG_DONTWAIT), 0) << "the evicted socket reads as ended";
  EXPECT_LT(::recv(pairs[0][0], &byte, 1, MSG_DONTWAIT), 0) << "the other is untouched";
  // The evicted connection's own thread leaving changes nothing; Waiting and Served of a socket
  // no longer held add nothing.
  table.Leave(pairs[1][0]);
  table.Waiting(pairs[1][0], t0 + 600ms);
  table.Served(pairs[1][0]);
  EXPECT_EQ(table.held(), 2u);
  // The newcomer's head arrives: it is served, so the next newcomer takes the idle one's place.
  table.Served(pairs[2][0]);
  EXPECT_TRUE(table.Admit(pairs[3][0], t0 + 700ms));
  EXPECT_EQ(::recv(pairs[0][0], &byte, 1, MSG_DONTWAIT), 0);
  EXPECT_LT(::recv(pairs[2][0], &byte, 1, MSG_DONTWAIT), 0);
  table.Leave(pairs[0][0]);
  table.Leave(pairs[2][0]);
  table.Leave(pairs[3][0]);
  EXPECT_EQ(table.held(), 0u);
  for (auto& p : pairs) ::close(p[0]), ::close(p[1]);
}

// Both ends of hundreds of connections live in this process.
void RaiseFileLimit() {
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < 4096) {
    files.rlim_cur = std::min<rlim_t>(files.rlim_max, 4096);
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
}

// POST /api/v1/echo answers {"got": body}.
Status AddEcho(HttpServer& server) {
  return server.AddJsonRoute("POST", "/api/v1/echo", [](const JsonRouteRequest& r) {
    return JsonRouteReply{200, {{"got", r.body}}};
  });
}

// A non-blocking TCP connection from `source` to 127.0.0.1:`port`, or -1.
int ConnectFrom(const char* source, int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  sockaddr_in local{};
  local.sin_family = AF_INET;
  ::inet_pton(AF_INET, source, &local.sin_addr);
  sockaddr_in server{};
  server.sin_family = AF_INET;
  server.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, "127.0.0.1", &server.sin_addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0 ||
      (::connect(fd, reinterpret_cast<sockaddr*>(&server), sizeof server) != 0 && errno != EINPROGRESS)) {
    ::close(fd);
    return -1;
  }
  return fd;
}

TEST(HttpSlowClientsTest, FiveHundredTricklingConnectionsFromOneAddressLeaveTheOthersAnswered) {
  RaiseFileLimit();
  HttpServer server;
  ASSERT_TRUE(AddEcho(server).ok());
  HttpServerOptions options;
  options.max_connections_per_peer = 16;
  options.request_read_limit = std::chrono::milliseconds(1500);
  ASSERT_TRUE(server.Start(options).ok());

  std::vector<int> slow;
  for (int i = 0; i < 500; ++i) {
    int fd = ConnectFrom("127.0.0.2", server.port());
    ASSERT_GE(fd, 0) << "connection " << i << ": " << std::strerror(errno);
    slow.push_back(fd);
  }
  // Each sends its request head one byte every 200 ms ("GET /healthz HTTP/1.1\r\n..." never ends in
  // time) and keeps what it is answered.
  std::vector<std::string> answered(slow.size());
  std::atomic<bool> stop{false};
  std::thread trickle([&] {
    const std::string head = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + std::string(200, 'a');
    for (size_t at = 0; !stop && at < head.size(); ++at) {
      for (size_t i = 0; i < slow.size(); ++i) {
        char buf[256];
        ssize_t n = ::recv(slow[i], buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) answered[i].append(buf, static_cast<size_t>(n));
        if (answered[i].empty()) (void)::send(slow[i], &head[at], 1, MSG_NOSIGNAL | MSG_DONTWAIT);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  });

  // Meanwhile another address is served as usual: every request answered, none waiting on them.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  httplib::Client cli("127.0.0.1", server.port());
  cli.set_connection_timeout(5);
  cli.set_read_timeout(5);
  std::vector<double> took_ms;
  const auto measured_from = Clock::now();
  while (Clock::now() - measured_from < std::chrono::milliseconds(2500)) {
    const auto t0 = Clock::now();
    auto health = (took_ms.size() % 2 == 0) ? cli.Get("/healthz")
                                            : cli.Post("/api/v1/echo", R"({"n":1})", "application/json");
    took_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    ASSERT_TRUE(health) << "request " << took_ms.size() << " got no answer";
    ASSERT_EQ(health->status, 200) << health->body;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop = true;
  trickle.join();
  ASSERT_GE(took_ms.size(), 20u);
  std::sort(took_ms.begin(), took_ms.end());
  const double p99 = took_ms[took_ms.size() * 99 / 100];
  // Generous for a sanitized build on a loaded host; the connections without the limits waited
  // for ever (every connection thread held by a trickling client).
  EXPECT_LT(p99, 1000.0) << "p99 of " << took_ms.size() << " requests";

  // Every trickling connection has ended: refused at once (503 with Retry-After) or, admitted,
  // out of time (408). A reset before the answer was read is counted apart (the server closes
  // a refused connection at once, and a byte the client sent in that moment makes the close a reset).
  size_t refused = 0, timed_out = 0, reset = 0, still_open = 0;
  for (size_t i = 0; i < slow.size(); ++i) {
    char buf[256];
    ssize_t n;
    while ((n = ::recv(slow[i], buf, sizeof buf, MSG_DONTWAIT)) > 0) answered[i].append(buf, static_cast<size_t>(n));
    const bool ended = n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
    if (answered[i].rfind("HTTP/1.1 503", 0) == 0 && answered[i].find("Retry-After: 1") != std::string::npos) ++refused;
    else if (answered[i].rfind("HTTP/1.1 408", 0) == 0) ++timed_out;
    else if (ended) ++reset;
    else ++still_open;
    ::close(slow[i]);
  }
  EXPECT_GE(refused, 400u);
  EXPECT_GE(timed_out, 1u);
  EXPECT_LE(timed_out, 16u);
  EXPECT_EQ(still_open, 0u) << refused << " refused, " << timed_out << " timed out, " << reset << " reset";
  server.Stop();
}

// The same attack from many addresses, each under its share: the cap in all (below the thread
// pool's) lets newcomers take the place of the connections that have only trickled a head, so
// `/healthz` and the routes still answer everyone else.
TEST(HttpSlowClientsTest, TricklingConnectionsFromManyAddressesLeaveTheOthersAnswered) {
  RaiseFileLimit();
  HttpServer server;
  ASSERT_TRUE(AddEcho(server).ok());
  HttpServerOptions options;
  options.max_connections_per_peer = 40;   // each address stays under its share
  options.max_threads = 48;                // fewer threads than trickling connections
  options.request_read_limit = std::chrono::seconds(30);  // longer than the test: only eviction helps
  ASSERT_TRUE(server.Start(options).ok());

  // 10 addresses × 30 connections, opened in waves while the trickle runs, as a fleet would.
  std::vector<int> slow;
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::thread attack([&] {
    const std::string head = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + std::string(400, 'a');
    size_t at = 0;
    for (int wave = 0; !stop; ++wave) {
      if (wave < 30) {
        std::lock_guard<std::mutex> lock(mu);
        for (int a = 2; a <= 11; ++a) {
          const std::string source = "127.0.0." + std::to_string(a);
          int fd = ConnectFrom(source.c_str(), server.port());
          if (fd >= 0) slow.push_back(fd);
        }
      }
      {
        std::lock_guard<std::mutex> lock(mu);
        for (int fd : slow) (void)::send(fd, &head[at % head.size()], 1, MSG_NOSIGNAL | MSG_DONTWAIT);
      }
      ++at;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });

  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // the server is full by now
  std::vector<double> took_ms;
  int failed = 0;
  const auto measured_from = Clock::now();
  while (Clock::now() - measured_from < std::chrono::milliseconds(3000)) {
    httplib::Client cli("127.0.0.1", server.port());  // a new connection each time: it must be admitted
    cli.set_connection_timeout(5);
    cli.set_read_timeout(5);
    const auto t0 = Clock::now();
    auto r = (took_ms.size() % 2 == 0) ? cli.Get("/healthz") : cli.Post("/api/v1/echo", R"({"n":1})", "application/json");
    took_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (!r || r->status != 200) ++failed;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop = true;
  attack.join();
  ASSERT_GE(took_ms.size(), 20u);
  std::sort(took_ms.begin(), took_ms.end());
  const double p99 = took_ms[took_ms.size() * 99 / 100];
  EXPECT_EQ(failed, 0) << "of " << took_ms.size() << " requests";
  EXPECT_LT(p99, 1000.0) << "p99 of " << took_ms.size() << " requests";
  EXPECT_GE(slow.size(), 250u) << "the attack opened its connections";
  for (int fd : slow) ::close(fd);
  server.Stop();
}

}  // namespace http_slow_clients_test
}  // namespace
}  // namespace dw::net
