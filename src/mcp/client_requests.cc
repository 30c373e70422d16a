#include "mcp/client_requests.h"

#include "mcp/jsonrpc.h"
#include "mcp/session.h"

namespace dw::mcp {
namespace {

Result<Json> FromAnswer(const std::string& method, const Json& answer) {
  if (auto r = answer.find("result"); r != answer.end()) return *r;
  const Json& err = answer.value("error", Json::object());
  std::string message = err.is_object() && err.contains("message") && err["message"].is_string()
                            ? err["message"].get<std::string>()
                            : "no message";
  std::string code = err.is_object() && err.contains("code") ? err["code"].dump() : "?";
  return Unavailable("the client answered " + method + " with error " + code + ": " + message);
}

}  // namespace

Result<Json> ClientRequests::Call(MessageSink& sink, const std::string& method, const Json& params,
                                  std::chrono::milliseconds timeout,
                                  const std::atomic<bool>& cancelled) {
  int64_t id;
  {
    std::lock_guard lock(mu_);
    if (closed_) return Cancelled("the session has ended");
    id = next_id_++;
    waiting_.emplace(id, std::nullopt);
  }
  sink.Send(MakeRequest(id, method, params));

  std::unique_lock lock(mu_);
  bool answered = cv_.wait_for(lock, timeout, [&] {
    return waiting_[id].has_value() || cancelled.load() || closed_;
  });
  std::optional<Json> answer = std::move(waiting_[id]);
  waiting_.erase(id);
  bool closed = closed_;
  lock.unlock();

  if (answer) return FromAnswer(method, *answer);
  if (closed) return Cancelled("the session has ended");
  // Tell the client to stop working on a request nobody waits for any more.
  std::string reason = answered ? "the tool call was cancelled" : "timed out";
  sink.Send(MakeNotification("notifications/cancelled", {{"requestId", id}, {"reason", reason}}));
  if (answered) return Cancelled("the tool call was cancelled while waiting for " + method);
  return DeadlineExceeded("the client did not answer " + method + " within " +
                          std::to_string(timeout.count()) + " ms");
}

bool ClientRequests::Deliver(const Json& response) {
  auto id = response.find("id");
  if (id == response.end() || !id->is_number_integer()) return false;
  std::lock_guard lock(mu_);
  auto it = waiting_.find(id->get<int64_t>());
  if (it == waiting_.end() || it->second) return false;
  it->second = response;
  cv_.notify_all();
  return true;
}

void ClientRequests::WakeAll() {
  std::lock_guard lock(mu_);
  cv_.notify_all();
}

void ClientRequests::Close() {
  std::lock_guard lock(mu_);
  closed_ = true;
  cv_.notify_all();
}

}  // namespace dw::mcp
