// When a scheduled asset acts next: the one answer every surface gives (the blast radius, schema
// impact, the run plan), whichever scheduler the schedule came from (the team's notes, Kestra, and
// any scheduler read later). A disabled schedule never acts; a schedule in its own time zone (a
// Kestra trigger's `timezone:`) reads its cron there, not in the workspace's zone.
#pragma once

#include <optional>
#include <string>

#include "base/clock.h"
#include "base/json.h"
#include "graph/graph_index.h"

namespace dw::graph {

struct NextAct {
  enum class State { kAt, kDisabled, kUnknown };
  State state = State::kUnknown;
  TimePoint at{};              // kAt: the next run, strictly after now
  std::string timezone;        // the zone the cron reads in
  std::string disabled_since;  // kDisabled: RFC 3339 when known, else empty
  std::string problem;         // kUnknown: why there is no time (a bad cron or zone, never fires)
};

// The next act of an asset with `details`, at `now`; nullopt when it has no schedule. The cron
// reads in details.schedule_timezone, else in `default_timezone` (the workspace's).
std::optional<NextAct> NextActOf(const AssetDetails& details, TimePoint now, const std::string& default_timezone);

// Writes `act` into a consumer's answer: timezone, and next_run, time_left, time_left_seconds
// (kAt); disabled: true, disabled_since? and acts: "disabled since ..." or "disabled" (kDisabled);
// schedule_error (kUnknown).
void WriteNextAct(const NextAct& act, TimePoint now, Json* consumer);

// The sort key of an act: its time in Unix milliseconds; INT64_MAX for one that does not act.
int64_t NextActOrder(const NextAct& act);

}  // namespace dw::graph
