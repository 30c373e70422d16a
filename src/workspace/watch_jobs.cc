#include "workspace/watch_jobs.h"

#include "workspace/incident_windows.h"

namespace dw::workspace {

std::vector<observe::watch::WatchJobKind> WatchJobKinds() {
  std::vector<observe::watch::WatchJobKind> kinds = observe::watch::ObserveWatchJobKinds();
  return kinds;
}

std::shared_ptr<const observe::watch::WatchEnvironment> WatchEnvironmentFor(
    const std::shared_ptr<Services>& services, std::function<void(const std::string&)> say) {
  auto env = std::make_shared<observe::watch::WatchEnvironment>();
  env->workspace = &services->workspace();
  env->state = [services] { return services->state(); };
  env->http = &services->http();
  env->clock = &services->clock();
  env->say = std::move(say);
  env->unlearnt = [services](const std::string& metric, const std::string& asset_id, TimePoint from,
                             TimePoint to) -> Result<std::vector<observe::metrics::UnlearntWindow>> {
    auto store = services->state();
    if (!store.ok()) return store.status();
    return IncidentWindows(**store)(metric, asset_id, from, to);
  };
  return env;
}

}  // namespace dw::workspace
