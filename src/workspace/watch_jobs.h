// The jobs `dw watch` runs for a workspace: every stage's WatchJobKind, in one list. A stage that
// adds a job (the incidents stage's signal evaluation) appends its kind here; nothing else changes.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "observe/watch/watch_jobs.h"
#include "workspace/services.h"

namespace dw::workspace {

// Every kind of watch job that needs only the environment, in the order they are added to the
// loop (the observe stage's, "notify", "approvals", "receipts": the receipt sweep every minute).
std::vector<observe::watch::WatchJobKind> WatchJobKinds();
// All of them, with the kinds that need the process's services ("verify": L3/L4 autonomous
// verification of mitigated incidents). What `dw watch` and the replay run.
std::vector<observe::watch::WatchJobKind> WatchJobKinds(const std::shared_ptr<Services>& services);

// What the jobs use, from `services` (kept alive by the environment); `say` gets one line per run.
// Its after_run hook is the incidents stage's signal pass (which writes the receipts of what it
// resolved); its sweep_receipts, the "receipts" job's work, is serialised with it.
// REQUIRES: services->workspace_status().ok().
std::shared_ptr<const observe::watch::WatchEnvironment> WatchEnvironmentFor(
    const std::shared_ptr<Services>& services, std::function<void(const std::string&)> say);

}  // namespace dw::workspace
