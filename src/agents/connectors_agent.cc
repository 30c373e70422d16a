// Tools of this agent. Its own tools (get_connector_status and register_stream_schema) are registered here as their capabilities land; an
// agent lists only tools that work.
#include "agents/agents.h"

namespace dw::agents {

void AddConnectorsTools(mcp::Catalog& catalog, const std::shared_ptr<app::Services>& services) {
  (void)catalog.AddTool(DescribeWorkspaceTool(services));
}

}  // namespace dw::agents
