#include "graph/next_act.h"

#include <chrono>
#include <cstdint>

#include "config/cron.h"
#include "graph/blast_radius.h"

namespace dw::graph {

std::optional<NextAct> NextActOf(const AssetDetails& details, TimePoint now, const std::string& default_timezone) {
  if (details.schedule.empty()) return std::nullopt;
  NextAct act;
  act.timezone = details.schedule_timezone.empty() ? default_timezone : details.schedule_timezone;
  if (details.schedule_disabled) {
    act.state = NextAct::State::kDisabled;
    act.disabled_since = details.disabled_since;
    return act;
  }
  Result<TimePoint> next = config::NextRun(details.schedule, now, act.timezone);
  if (!next.ok()) {
    act.problem = next.status().message();
    return act;
  }
  act.state = NextAct::State::kAt;
  act.at = *next;
  return act;
}

void WriteNextAct(const NextAct& act, TimePoint now, Json* consumer) {
  Json& c = *consumer;
  c["timezone"] = act.timezone;
  switch (act.state) {
    case NextAct::State::kAt: {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(act.at - now);
      c["next_run"] = FormatRfc3339(act.at);
      c["time_left_seconds"] = left.count() / 1000;
      c["time_left"] = HumanDuration(left);
      break;
    }
    case NextAct::State::kDisabled:
      c["disabled"] = true;
      if (!act.disabled_since.empty()) c["disabled_since"] = act.disabled_since;
      c["acts"] = act.disabled_since.empty() ? "disabled: no next run"
                                             : "disabled since " + act.disabled_since + ": no next run";
      break;
    case NextAct::State::kUnknown:
      c["schedule_error"] = act.problem;
      break;
  }
}

int64_t NextActOrder(const NextAct& act) {
  return act.state == NextAct::State::kAt ? ToUnixMillis(act.at) : INT64_MAX;
}

}  // namespace dw::graph
