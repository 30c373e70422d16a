// Test support: a ToolCall for invoking MCP tools directly, with no client behind it (logs and
// progress are dropped, nothing is cancelled, requests to the client fail as Unavailable).
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "mcp/catalog.h"

namespace dw::testing {

class NullCall final : public mcp::ToolCall {
 public:
  void Log(mcp::LogLevel, const Json&, const std::string&) override {}
  void Progress(double, std::optional<double>, const std::string&) override {}
  bool Cancelled() const override { return false; }
  Result<Json> Request(const std::string&, const Json&, std::chrono::milliseconds) override {
    return Unavailable("no client");
  }
  mcp::CallerInfo Caller() const override { return caller; }

  mcp::CallerInfo caller{"test-client", "test-session"};
};

}  // namespace dw::testing
