// Every MCP tool that may change stored state is attributed: before it runs, the call is recorded
// in the action log with the agent, the client's declared name, the session and the arguments
// (actions::RecordAgentWrite). Applied once where catalogs are built, so no write tool is missed.
#pragma once

#include <memory>
#include <string>

#include "mcp/catalog.h"
#include "workspace/services.h"

namespace dw::agents {

// Wraps the handler of every tool of `catalog` that is not read-only: the call is recorded first,
// and one whose record cannot be written answers isError and does not run. With a workspace that
// failed to load the tool answers the load problem as before (it writes nothing).
void AttributeWrites(mcp::Catalog& catalog, const std::string& agent,
                     const std::shared_ptr<workspace::Services>& services);

}  // namespace dw::agents
