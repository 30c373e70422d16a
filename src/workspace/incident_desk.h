// The incident desk as the surfaces use it: built from the process's Services (state store,
// context graph, workspace settings), with impact_sql counted on the workspace's warehouses.
#pragma once

#include <memory>

#include "workspace/services.h"
#include "incidents/incidents.h"

namespace dw::workspace {

// A desk over `services`' store and graph (both opened on first use). The store's or graph's error
// when either cannot be opened; REQUIRES: services.workspace_status().ok(). `services` must
// outlive the desk.
Result<std::unique_ptr<incidents::IncidentDesk>> OpenIncidentDesk(Services& services);

}  // namespace dw::workspace
