// A loopback SMTP receiver speaking enough of RFC 5321 for libcurl: EHLO/HELO, AUTH PLAIN and
// AUTH LOGIN (RFC 4954), MAIL FROM, RCPT TO, DATA (dot-unstuffed), RSET, NOOP, QUIT. It offers no
// STARTTLS (it answers 454), so clients reach it on smtp://127.0.0.1 with TLS optional. It records
// every accepted message and can be told to refuse: 4xx (try later) or 5xx (never).
//
// Script: {"username"?, "password"?: AUTH required when set, "fail"?: [{"at": "mail"|"rcpt"|"data",
// "code": 451, "times": 1}]}.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "base/json.h"
#include "base/status.h"

namespace dw::sim {

class SmtpReceiver {
 public:
  ~SmtpReceiver();
  // Starts serving on 127.0.0.1:`port` (0: a free port). InvalidArgument for a bad script.
  static Result<std::unique_ptr<SmtpReceiver>> Start(const Json& script, int port = 0);
  int port() const { return port_; }
  std::string url() const { return "smtp://127.0.0.1:" + std::to_string(port_); }
  // Every accepted message: {from, to: [...], data, user}.
  std::vector<Json> received() const;
  // Called with each accepted message (dw-sim prints it); set before the first message arrives.
  void OnMessage(std::function<void(const Json&)> fn) { on_message_ = std::move(fn); }
  // Blocks until the receiver stops (dw-sim's main).
  void Wait();

 private:
  struct Failure {
    std::string at;
    int code = 451;
    int times = -1;
  };
  SmtpReceiver() = default;
  void AcceptLoop();
  void Serve(int fd);
  // The failure code for `stage` (counting it), or 0.
  int TakeFailure(const std::string& stage);

  int listen_fd_ = -1;
  int port_ = 0;
  std::string username_, password_;
  std::vector<Failure> failures_;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mu_;
  std::vector<Json> received_;
  std::vector<int> client_fds_;
  std::vector<std::thread> clients_;
  std::thread acceptor_;
  std::function<void(const Json&)> on_message_;
};

}  // namespace dw::sim
