// One running tools/call: the ToolCall its handler sees, and RunTool, which turns a handler's
// outcome into the tools/call result object.
#pragma once

#include <atomic>

#include "mcp/catalog.h"
#include "mcp/client_requests.h"
#include "mcp/session.h"

namespace dw::mcp {

class ToolInvocation final : public ToolCall {
 public:
  // `progress_token` is null when the request did not ask for progress. `log_level` is the
  // session's current minimum level; it is read at each Log call because setLevel may change it.
  ToolInvocation(MessageSink& sink, Json progress_token, const std::atomic<int>& log_level,
                 ClientRequests& client, std::chrono::milliseconds max_client_timeout,
                 CallerInfo caller);

  void Log(LogLevel level, const Json& data, const std::string& logger) override;
  void Progress(double progress, std::optional<double> total, const std::string& message) override;
  bool Cancelled() const override { return cancelled_.load(); }
  Result<Json> Request(const std::string& method, const Json& params,
                       std::chrono::milliseconds timeout) override;
  CallerInfo Caller() const override { return caller_; }

  // Marks the call cancelled and wakes a Request waiting for the client.
  void Cancel();

 private:
  MessageSink& sink_;
  const Json progress_token_;
  const std::atomic<int>& log_level_;
  ClientRequests& client_;
  const std::chrono::milliseconds max_client_timeout_;
  std::atomic<bool> cancelled_{false};
  const CallerInfo caller_;
};

// Validates `arguments` against the tool's input schema, runs the handler and returns the
// tools/call result ({content, structuredContent?, isError?}). Never throws: invalid arguments, a
// handler exception or a result that breaks the tool's output schema become isError results.
Json RunTool(const ToolSpec& tool, const Json& arguments, ToolCall& call);

}  // namespace dw::mcp
