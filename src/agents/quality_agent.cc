// Tools of the dw-quality agent: describe_workspace, run_quality_check and get_warehouse_spend.
#include "agents/agents.h"

namespace dw::agents {

void AddQualityTools(mcp::Catalog& catalog, const std::shared_ptr<workspace::Services>& services) {
  (void)catalog.AddTool(DescribeWorkspaceTool(services));
  (void)catalog.AddTool(RunQualityCheckTool(services));
  (void)catalog.AddTool(GetWarehouseSpendTool(services));
}

}  // namespace dw::agents
