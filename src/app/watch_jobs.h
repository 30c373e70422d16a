// The jobs of `dw watch` (monitors, checks, collection passes, the metric prune), registered on a
// loop; `dw watch` runs them on the real clock, `dw replay` on its simulated one.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "app/services.h"
#include "base/status.h"
#include "observe/watch/watch_loop.h"

namespace dw::app {

// Receives each job's one-line log ("2026-11-24T15:00:00.000Z monitor x: anomalous: ...").
using WatchLog = std::function<void(const std::string&)>;

// Adds every `dw watch` job of `services`' workspace to `loop`. InvalidArgument (from the loop or
// a monitor's settings) naming the job; nothing is half added that would run.
Status AddWatchJobs(watch::WatchLoop& loop, const std::shared_ptr<Services>& services, const WatchLog& log);

}  // namespace dw::app
