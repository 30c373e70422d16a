#include "incidents/lifecycle.h"

#include <algorithm>

#include "incidents/incident_codec.h"

namespace dw::incidents {

Status CheckPersonActor(const std::string& actor) {
  size_t at = actor.find('@');
  bool ok = !actor.empty() && actor.size() <= 254 && at != std::string::npos && at > 0 && at + 1 < actor.size() &&
            actor.find('@', at + 1) == std::string::npos &&
            std::none_of(actor.begin(), actor.end(), [](unsigned char c) { return c <= ' ' || c == 0x7f; });
  if (!ok)
    return InvalidArgument("--as must be the email of the person making the change (e.g. ana@example.com), not \"" +
                           actor.substr(0, 80) + "\"");
  return Status::Ok();
}

Status ApplyTransition(Incident& incident, IncidentStatus to, const std::string& actor, TimePoint at,
                       const std::string& reason) {
  const IncidentStatus from = incident.status;
  bool allowed = false;
  switch (to) {
    case IncidentStatus::kAcknowledged: allowed = from == IncidentStatus::kOpen; break;
    case IncidentStatus::kMitigated:
      allowed = from == IncidentStatus::kOpen || from == IncidentStatus::kAcknowledged;
      break;
    case IncidentStatus::kResolved:
    case IncidentStatus::kClosed: allowed = IsActive(from); break;
    case IncidentStatus::kOpen: allowed = false; break;
  }
  if (!allowed)
    return FailedPrecondition("incident " + incident.id + " is " + IncidentStatusName(from) + ": it cannot move to " +
                              IncidentStatusName(to));
  incident.transitions.push_back({IncidentStatusName(from), IncidentStatusName(to), actor, at, reason});
  incident.status = to;
  incident.updated_at = at;
  if (to == IncidentStatus::kResolved || to == IncidentStatus::kClosed) incident.closed_at = at;
  return Status::Ok();
}

}  // namespace dw::incidents
