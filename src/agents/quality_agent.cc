// Tools of this agent. Its own tools (run_quality_check) are registered here as their capabilities land; an
// agent lists only tools that work.
#include "agents/agents.h"

namespace dw::agents {

void AddQualityTools(mcp::Catalog& catalog, const std::shared_ptr<app::Services>& services) {
  (void)catalog.AddTool(DescribeWorkspaceTool(services));
}

}  // namespace dw::agents
