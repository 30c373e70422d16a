#include "agents/attributed_writes.h"

#include "actions/actions.h"

namespace dw::agents {

void AttributeWrites(mcp::Catalog& catalog, const std::string& agent,
                     const std::shared_ptr<workspace::Services>& services) {
  catalog.EditTools([&](mcp::ToolSpec& tool) {
    if (tool.annotations.read_only) return;
    tool.handler = [agent, services, name = tool.name, inner = std::move(tool.handler)](
                       const Json& arguments, mcp::ToolCall& call) -> mcp::ToolResult {
      if (!services->workspace_status().ok()) return inner(arguments, call);
      auto store = services->state();
      if (!store.ok()) return mcp::ToolResult::Error("state store: " + store.status().message());
      const mcp::CallerInfo caller = call.Caller();
      Result<int64_t> recorded = actions::RecordAgentWrite(
          **store, services->clock(), {agent, caller.client, caller.session, name, arguments});
      if (!recorded.ok())
        return mcp::ToolResult::Error("not run: the call could not be recorded with who made it (" +
                                      recorded.status().message() + ")");
      return inner(arguments, call);
    };
  });
}

}  // namespace dw::agents
