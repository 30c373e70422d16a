// Server-to-client requests (sampling/createMessage, elicitation/create, ...) waiting for the
// client's answer. Thread-safe: a tool handler waits in Call() while the transport's reader thread
// hands the answer to Deliver().
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "base/json.h"
#include "base/status.h"

namespace dw::mcp {

class MessageSink;

class ClientRequests {
 public:
  // Sends `method` with `params` through `sink` and blocks until the client answers, `cancelled`
  // becomes true (noticed on WakeAll), the timeout passes or the registry closes. Returns the
  // answer's `result`; kUnavailable for an error answer, kDeadlineExceeded, or kCancelled.
  // On timeout or cancellation the client is told with notifications/cancelled.
  Result<Json> Call(MessageSink& sink, const std::string& method, const Json& params,
                    std::chrono::milliseconds timeout, const std::atomic<bool>& cancelled);

  // Hands a client response ({id, result|error}) to the call waiting for it. Returns false when no
  // call waits for that id (unknown, already answered, or timed out).
  bool Deliver(const Json& response);

  // Makes every waiting Call re-check its cancellation flag.
  void WakeAll();

  // Fails every waiting and future Call with kCancelled (the session ended).
  void Close();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int64_t next_id_ = 1;
  bool closed_ = false;
  std::map<int64_t, std::optional<Json>> waiting_;  // id -> the answer, once it arrived
};

}  // namespace dw::mcp
