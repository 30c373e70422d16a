// Drafting an incident's proposals as the surfaces use it: actions::ProposeForIncident over the
// process's store and graph, with the Kestra flows' current revisions read from the workspace's
// Kestra platform (so a flow diff is checked against what Kestra runs).
#pragma once

#include <string>

#include "actions/actions.h"
#include "workspace/services.h"

namespace dw::workspace {

// ProposeForIncident for `incident_id`, authored by `author` ("agent:dw-incidents", "cli:EMAIL").
// The store's or graph's error when either cannot be opened; REQUIRES: workspace_status().ok().
Result<actions::ProposeOutcome> ProposeIncidentFixes(Services& services, const std::string& incident_id,
                                                     const std::string& author);

// Reads a flow's current revision from the workspace's Kestra platform of that name (kNotFound
// when the workspace has none), through the process's HTTP client. REQUIRES: workspace loaded.
actions::FlowRevisionReader KestraRevisionReader(Services& services);

// The options of verifying as `actor`, with the cause checked against the platforms
// (KestraRevisionReader); `autonomous` as VerifyOptions says.
actions::VerifyOptions VerifyOptionsFor(Services& services, const std::string& actor, bool autonomous = false);

}  // namespace dw::workspace
