// Tools of this agent. Its own tools (trace_cross_platform_lineage and blast_radius_analysis) are registered here as their capabilities land; an
// agent lists only tools that work.
#include "agents/agents.h"

namespace dw::agents {

void AddContextCatalogTools(mcp::Catalog& catalog, const std::shared_ptr<app::Services>& services) {
  (void)catalog.AddTool(DescribeWorkspaceTool(services));
}

}  // namespace dw::agents
