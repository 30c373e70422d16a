// Test helper: an httplib server on a free loopback port, run on its own thread for the life of
// the object. Register routes on server() before Start().
#pragma once

#include <httplib.h>

#include <chrono>
#include <string>
#include <thread>

namespace dw::testing {

class LoopbackHttpServer {
 public:
  ~LoopbackHttpServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  httplib::Server& server() { return server_; }
  // Binds 127.0.0.1 on a free port and returns once the server accepts connections.
  void Start() {
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace dw::testing
