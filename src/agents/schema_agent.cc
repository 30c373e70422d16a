// Tools of this agent. Its own tools (check_compatibility and assess_impact) are registered here as their capabilities land; an
// agent lists only tools that work.
#include "agents/agents.h"

namespace dw::agents {

void AddSchemaTools(mcp::Catalog& catalog, const std::shared_ptr<workspace::Services>& services) {
  (void)catalog.AddTool(DescribeWorkspaceTool(services));
}

}  // namespace dw::agents
