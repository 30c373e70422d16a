// The product `dw replay` plays a scenario against, built the way the other commands build it:
// the workspace's Services over the replay's simulated clock, the jobs `dw watch` runs, the
// OpenLineage intake's route, the agents' tools through a real MCP session, and the incident desk.
#pragma once

#include <filesystem>
#include <map>
#include <memory>

#include "base/clock.h"
#include "replay/replay.h"

namespace dw::app {

// Builds the product over the workspace folder `dir` (a scratch copy made by the replay) and
// `clock`. The workspace's errors when it does not load.
Result<std::unique_ptr<replay::ReplayProduct>> MakeReplayProduct(const std::filesystem::path& dir, const Clock& clock,
                                                                 const std::map<std::string, actions::IssuedKey>& person_keys);

}  // namespace dw::app
