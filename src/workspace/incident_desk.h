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

// The full id of the incident `given` names, for every command that takes one: `given` itself, or
// the one incident whose id starts with it (IncidentDesk::Get, which abbreviates as git does).
// InvalidArgument naming the candidates when several start with it; `given` unchanged when no
// incident has it, so the front door it goes to answers an unknown id as before (naming the
// closest ids, recording a refusal); the store's error otherwise.
Result<std::string> ResolveIncidentId(incidents::IncidentDesk& desk, const std::string& given);

// How many rows asset `asset`'s trusted impact_sql counts since `since`, run read-only on the
// warehouse its table lives in (the workspace's default warehouse for any other kind of asset),
// through `services`' HTTP client where that warehouse is reached over HTTP. kFailedPrecondition
// when no such warehouse is configured; the query's error otherwise.
Result<int64_t> CountImpact(Services& services, const std::string& asset, const std::string& sql, TimePoint since);

}  // namespace dw::workspace
