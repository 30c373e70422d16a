// Test helper: runs ServeStdio in-process on one end of a socketpair and plays the client on the
// other end, with a timeout on every read so a hung server fails the test instead of hanging it.
#pragma once

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include <poll.h>

#include "mcp/stdio_transport.h"

namespace dw::mcp {

class StdioPeer {
 public:
  StdioPeer(std::shared_ptr<const Catalog> catalog, Limits limits = {}) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) std::abort();
    client_ = fds[0];
    server_ = fds[1];
    ServerInfo info{"dw-test", "Data Workers test server", "0.0.0-test", "Test instructions."};
    exit_code_ = std::async(std::launch::async, [=, this] {
      return ServeStdio(catalog, info, limits, server_, server_);
    });
  }

  ~StdioPeer() {
    if (client_ >= 0) close(client_);  // EOF for the server, whatever the test left open
    if (exit_code_.valid()) exit_code_.wait();
    close(server_);
  }

  StdioPeer(const StdioPeer&) = delete;
  StdioPeer& operator=(const StdioPeer&) = delete;

  // Writes `bytes` as they are (no newline is added). False when the server end is gone.
  bool SendRaw(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = send(client_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  bool Send(const Json& message) { return SendRaw(message.dump() + "\n"); }

  // The next message the server wrote, or nullopt on timeout or end of output. A line that is not
  // JSON fails the test through the "not-json" marker.
  std::optional<Json> Read(std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (size_t nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        Json parsed = Json::parse(line, nullptr, false);
        if (parsed.is_discarded()) return Json{{"not-json", line}};
        return parsed;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{client_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buf[65536];
      ssize_t n = recv(client_, buf, sizeof buf, 0);
      if (n <= 0) return std::nullopt;
      buffer_.append(buf, static_cast<size_t>(n));
    }
  }

  // Reads until a message with this `id` (JSON equality) arrives; other messages are kept in
  // `skipped` when non-null.
  std::optional<Json> ReadResponse(const Json& id, std::vector<Json>* skipped = nullptr,
                                   std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      std::optional<Json> m = Read(left);
      if (!m) return std::nullopt;
      if (m->contains("id") && (*m)["id"] == id && !m->contains("method")) return m;
      if (skipped) skipped->push_back(*m);
    }
  }

  // Sends a request and waits for its response.
  std::optional<Json> Call(const Json& id, const std::string& method, const Json& params = Json::object()) {
    if (!Send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}})) return std::nullopt;
    return ReadResponse(id);
  }

  // initialize + notifications/initialized; returns the initialize response.
  std::optional<Json> Initialize() {
    auto r = Call("init", "initialize",
                  {{"protocolVersion", "2025-11-25"}, {"capabilities", Json::object()},
                   {"clientInfo", {{"name", "test"}, {"version", "1"}}}});
    Send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    return r;
  }

  // Ends the client's output (the server sees end of input) but keeps reading possible.
  void CloseWrite() { shutdown(client_, SHUT_WR); }
  // Stops the client from reading: the server's writes fail from now on.
  void CloseRead() { shutdown(client_, SHUT_RD); }

  // The server's return value once it has exited within `timeout`; nullopt while it still runs.
  std::optional<int> WaitExit(std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    if (exit_code_.wait_for(timeout) != std::future_status::ready) return std::nullopt;
    return exit_code_.get();
  }

 private:
  int client_ = -1;
  int server_ = -1;
  std::string buffer_;
  std::future<int> exit_code_;
};

}  // namespace dw::mcp
