// Test helper: a MessageSink that keeps what it receives and lets a test wait for a message.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

#include "mcp/session.h"

namespace dw::mcp {

class RecordingSink : public MessageSink {
 public:
  void Send(const Json& message) override {
    std::lock_guard lock(mu_);
    messages_.push_back(message);
    cv_.notify_all();
  }

  std::vector<Json> messages() const {
    std::lock_guard lock(mu_);
    return messages_;
  }

  // The first message (received so far or within `timeout`) that satisfies `pred`.
  std::optional<Json> WaitFor(const std::function<bool(const Json&)>& pred,
                              std::chrono::milliseconds timeout = std::chrono::seconds(5)) const {
    std::unique_lock lock(mu_);
    std::optional<Json> found;
    cv_.wait_for(lock, timeout, [&] {
      for (const Json& m : messages_) {
        if (pred(m)) {
          found = m;
          return true;
        }
      }
      return false;
    });
    return found;
  }

  // Messages whose method is `method`.
  std::vector<Json> WithMethod(const std::string& method) const {
    std::vector<Json> out;
    for (const Json& m : messages()) {
      if (m.value("method", "") == method) out.push_back(m);
    }
    return out;
  }

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::vector<Json> messages_;
};

}  // namespace dw::mcp
