// The dw-schema agent's tools: check_compatibility and assess_impact (both read-only; each a thin
// translation of its arguments into one call of the schema stage's front door, schema/schema.h).
#pragma once

#include <memory>

#include "workspace/services.h"
#include "mcp/catalog.h"

namespace dw::agents {

mcp::ToolSpec CheckCompatibilityTool(const std::shared_ptr<workspace::Services>& services);
mcp::ToolSpec AssessImpactTool(const std::shared_ptr<workspace::Services>& services);

}  // namespace dw::agents
