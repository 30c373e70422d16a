#include "mcp/response_stream.h"

#include <utility>

namespace dw::mcp {

void ResponseStream::Send(const Json& message) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (abandoned_ || finished_) return;
    queue_.push_back(message);
  }
  cv_.notify_one();
}

void ResponseStream::Finish() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    finished_ = true;
  }
  cv_.notify_all();
}

void ResponseStream::Abandon() {
  std::lock_guard<std::mutex> lock(mu_);
  abandoned_ = true;
  queue_.clear();
}

ResponseStream::Wait ResponseStream::Next(Json* out, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_for(lock, timeout, [this] { return !queue_.empty() || finished_; }))
    return Wait::kTimeout;
  if (queue_.empty()) return Wait::kFinished;
  *out = std::move(queue_.front());
  queue_.pop_front();
  return Wait::kMessage;
}

}  // namespace dw::mcp
