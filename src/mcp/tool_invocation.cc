#include "mcp/tool_invocation.h"

#include <algorithm>

#include "base/log.h"
#include "base/redaction.h"
#include "mcp/json_schema.h"
#include "mcp/jsonrpc.h"

namespace dw::mcp {

ToolInvocation::ToolInvocation(MessageSink& sink, Json progress_token,
                               const std::atomic<int>& log_level, ClientRequests& client,
                               std::chrono::milliseconds max_client_timeout, CallerInfo caller)
    : sink_(sink),
      progress_token_(std::move(progress_token)),
      log_level_(log_level),
      client_(client),
      max_client_timeout_(max_client_timeout),
      caller_(std::move(caller)) {}

void ToolInvocation::Log(LogLevel level, const Json& data, const std::string& logger) {
  if (static_cast<int>(level) < log_level_.load()) return;
  Json params{{"level", LogLevelName(level)}, {"data", data}};
  if (!logger.empty()) params["logger"] = logger;
  RedactSecretsIn(params);
  sink_.Send(MakeNotification("notifications/message", std::move(params)));
}

void ToolInvocation::Progress(double progress, std::optional<double> total,
                              const std::string& message) {
  if (progress_token_.is_null()) return;
  Json params{{"progressToken", progress_token_}, {"progress", progress}};
  if (total) params["total"] = *total;
  if (!message.empty()) params["message"] = message;
  RedactSecretsIn(params);
  sink_.Send(MakeNotification("notifications/progress", std::move(params)));
}

Result<Json> ToolInvocation::Request(const std::string& method, const Json& params,
                                     std::chrono::milliseconds timeout) {
  if (Cancelled()) return dw::Cancelled("the tool call was cancelled");
  return client_.Call(sink_, method, params, std::min(timeout, max_client_timeout_), cancelled_);
}

void ToolInvocation::Cancel() {
  cancelled_.store(true);
  client_.WakeAll();
}

namespace {

ToolResult CallHandler(const ToolSpec& tool, const Json& arguments, ToolCall& call) {
  try {
    return tool.handler(arguments, call);
  } catch (const std::exception& e) {
    spdlog::error("tool {} threw: {}", tool.name, e.what());
    return ToolResult::Error("The tool " + tool.name + " failed unexpectedly: " + e.what());
  } catch (...) {
    spdlog::error("tool {} threw a non-standard exception", tool.name);
    return ToolResult::Error("The tool " + tool.name + " failed unexpectedly.");
  }
}

// A non-empty sentence when `result` breaks the tool's contract (a bug of ours), else "".
std::string ContractViolation(const ToolSpec& tool, const ToolResult& result) {
  if (!result.content.is_array()) return "its content is not an array";
  if (result.is_error || !tool.output_schema) return "";
  if (!result.structured) return "it returned no structuredContent although it declares an output schema";
  Status s = ValidateJson(*tool.output_schema, *result.structured, "structuredContent");
  return s.ok() ? "" : "its structuredContent does not match its output schema (" + s.message() + ")";
}

}  // namespace

Json RunTool(const ToolSpec& tool, const Json& arguments, ToolCall& call) {
  ToolResult result;
  if (Status valid = ValidateJson(tool.input_schema, arguments, "arguments"); !valid.ok()) {
    result = ToolResult::Error("Invalid arguments: " + valid.message());
  } else {
    result = CallHandler(tool, arguments, call);
  }
  if (std::string bug = ContractViolation(tool, result); !bug.empty()) {
    // Never ship a wrong shape: the client gets an honest error instead.
    spdlog::error("tool {} broke its contract: {}", tool.name, bug);
    result = ToolResult::Error("Internal error: the tool " + tool.name +
                               " produced an invalid result (" + bug + "). This is a bug; please report it.");
  }
  Json out{{"content", std::move(result.content)}};
  if (result.structured) out["structuredContent"] = std::move(*result.structured);
  if (result.is_error) out["isError"] = true;
  // Every tool's result leaves through here: no tool can hand a secret to the client.
  RedactSecretsIn(out);
  return out;
}

}  // namespace dw::mcp
