#include "workspace/watch_jobs.h"

#include <mutex>

#include "incidents/incidents.h"
#include "workspace/incident_desk.h"
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
  // The incidents stage's signal job: after every monitor, check and collection run, one pass
  // over what was observed since the last (incidents::RunSignalPass). Jobs of different groups may
  // end at once; passes are serialised so two never judge the same signals. A failed pass is
  // reported and retried by the next one (its cursor did not move).
  auto pass_mu = std::make_shared<std::mutex>();
  env->after_run = [services, pass_mu, say = env->say](const std::string& job) {
    std::lock_guard<std::mutex> lock(*pass_mu);
    const std::string now = FormatRfc3339(services->clock().Now());
    auto fail = [&](const Status& s) { say(now + " incidents after " + job + ": FAILED (the next pass retries): " + s.message()); };
    auto store = services->state();
    if (!store.ok()) return fail(store.status());
    auto desk = OpenIncidentDesk(*services);
    if (!desk.ok()) return fail(desk.status());
    auto r = incidents::RunSignalPass(services->workspace(), **desk, **store, services->clock());
    if (!r.ok()) return fail(r.status());
    for (const std::string& id : r->opened) say(now + " incident opened " + id + " (after " + job + ")");
    for (const std::string& id : r->updated) say(now + " incident updated " + id + " (after " + job + ")");
    for (const std::string& id : r->resolved) say(now + " incident resolved by verification " + id);
    for (const incidents::ObservationGap& g : r->gaps) say(now + " observation gap " + g.source + ": " + g.message);
  };
  return env;
}

}  // namespace dw::workspace
