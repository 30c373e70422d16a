// Tools of this agent: check_compatibility and assess_impact (schema_tools.cc). An agent lists
// only tools that work.
#include "agents/agents.h"
#include "agents/schema_tools.h"

namespace dw::agents {

void AddSchemaTools(mcp::Catalog& catalog, const std::shared_ptr<workspace::Services>& services) {
  (void)catalog.AddTool(DescribeWorkspaceTool(services));
  (void)catalog.AddTool(CheckCompatibilityTool(services));
  (void)catalog.AddTool(AssessImpactTool(services));
}

}  // namespace dw::agents
