// The incident desk as the surfaces build it over a workspace's Services: the workspace's desk
// options, the context graph, and impact_sql counts run on the workspace's warehouses.
#pragma once

#include <memory>

#include "app/services.h"
#include "incidents/incidents.h"

namespace dw::app {

// The desk over `services`' store, graph and clock. The store's or graph's error when either
// cannot be opened. `services` must outlive the desk.
Result<std::unique_ptr<incidents::IncidentDesk>> MakeIncidentDesk(Services& services);

}  // namespace dw::app
