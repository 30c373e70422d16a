// The input schema of the dw-incidents tools that act on one incident, written once so that every
// such tool bounds and describes the id the same way.
#pragma once

#include "base/json.h"

namespace dw::agents {

// {"incident_id": string of 1-200 characters}, required, nothing else allowed.
Json IncidentIdInputSchema();

}  // namespace dw::agents
