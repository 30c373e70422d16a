// Tools of this agent: get_connector_status and get_change_timeline (connectors_tools.cc);
// register_stream_schema is registered here when its approval flow lands. An agent lists only
// tools that work.
#include "agents/agents.h"
#include "agents/connectors_tools.h"

namespace dw::agents {

void AddConnectorsTools(mcp::Catalog& catalog, const std::shared_ptr<workspace::Services>& services) {
  (void)catalog.AddTool(DescribeWorkspaceTool(services));
  (void)catalog.AddTool(ConnectorStatusTool(services));
  (void)catalog.AddTool(ChangeTimelineTool(services));
}

}  // namespace dw::agents
