// The messages the server sends for one inbound HTTP POST, queued in order between the thread
// that runs Session::Handle and the thread that writes the HTTP response (one JSON body, or SSE
// events as they come).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "base/json.h"
#include "mcp/session.h"

namespace dw::mcp {

class ResponseStream final : public MessageSink {
 public:
  enum class Wait { kMessage, kFinished, kTimeout };

  // Queues `message` (thread-safe). Dropped once the writer abandoned the stream.
  void Send(const Json& message) override;
  // Marks the end of the stream: Session::Handle returned, nothing more will be sent.
  void Finish();
  // The writer is gone (client disconnected, server stopping): later messages are dropped so an
  // unread stream cannot grow without bound.
  void Abandon();

  // Blocks until a message is queued (moved to *out, returns kMessage), the stream finished with
  // nothing left (kFinished), or `timeout` passed (kTimeout).
  Wait Next(Json* out, std::chrono::milliseconds timeout);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Json> queue_;
  bool finished_ = false;
  bool abandoned_ = false;
};

}  // namespace dw::mcp
