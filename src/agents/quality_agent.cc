// Tools of the dw-quality agent: describe_workspace and run_quality_check.
#include "agents/agents.h"

namespace dw::agents {

void AddQualityTools(mcp::Catalog& catalog, const std::shared_ptr<workspace::Services>& services) {
  (void)catalog.AddTool(DescribeWorkspaceTool(services));
  (void)catalog.AddTool(RunQualityCheckTool(services));
}

}  // namespace dw::agents
