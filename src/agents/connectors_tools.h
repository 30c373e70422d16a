// The dw-connectors agent's own tools: get_connector_status (live Kafka Connect status with a
// health verdict) and get_change_timeline (the change events the collector stored), both read only;
// register_stream_schema (register_schema_tool.cc), which writes only through an approval.
#pragma once

#include <memory>

#include "workspace/services.h"
#include "mcp/catalog.h"

namespace dw::agents {

mcp::ToolSpec ConnectorStatusTool(const std::shared_ptr<workspace::Services>& services);
mcp::ToolSpec ChangeTimelineTool(const std::shared_ptr<workspace::Services>& services);
// register_stream_schema: destructive; writes to the registry only for an approved proposal.
mcp::ToolSpec RegisterStreamSchemaTool(const std::shared_ptr<workspace::Services>& services);

}  // namespace dw::agents
