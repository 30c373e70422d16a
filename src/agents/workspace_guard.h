// The guard every workspace tool starts with, written once: a workspace that failed to load
// (missing dataworkers.yaml, config errors) answers isError with the load problem, a sentence that
// says what to fix, instead of running the tool.
#pragma once

#include <functional>
#include <memory>

#include "mcp/catalog.h"
#include "workspace/services.h"

namespace dw::agents {

using ToolHandler = std::function<mcp::ToolResult(const Json& arguments, mcp::ToolCall& call)>;

// `handler`, run only when services' workspace loaded.
ToolHandler WhenWorkspaceLoaded(std::shared_ptr<workspace::Services> services, ToolHandler handler);

}  // namespace dw::agents
