// The dw-connectors agent's own tools: get_connector_status (live Kafka Connect status with a
// health verdict) and get_change_timeline (the change events the collector stored). Both read only.
#pragma once

#include <memory>

#include "workspace/services.h"
#include "mcp/catalog.h"

namespace dw::agents {

mcp::ToolSpec ConnectorStatusTool(const std::shared_ptr<workspace::Services>& services);
mcp::ToolSpec ChangeTimelineTool(const std::shared_ptr<workspace::Services>& services);

}  // namespace dw::agents
