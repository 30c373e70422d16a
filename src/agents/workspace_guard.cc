#include "agents/workspace_guard.h"

namespace dw::agents {

ToolHandler WhenWorkspaceLoaded(std::shared_ptr<workspace::Services> services, ToolHandler handler) {
  return [services = std::move(services), handler = std::move(handler)](const Json& args, mcp::ToolCall& call) {
    if (!services->workspace_status().ok()) return mcp::ToolResult::Error(services->workspace_status().message());
    return handler(args, call);
  };
}

}  // namespace dw::agents
