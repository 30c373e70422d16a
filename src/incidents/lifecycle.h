// The lifecycle: open → acknowledged → mitigated → resolved, or closed (expected/false_positive)
// by a person. Every step is a Transition with who and when; nothing moves by timeout.
#pragma once

#include <string>

#include "incidents/incidents.h"

namespace dw::incidents {

// Moves `incident` to `to` as `actor` at `at`: appends the Transition, sets status, and closed_at
// for resolved/closed. FailedPrecondition naming the current status when the move is not allowed:
// acknowledged only from open; mitigated from open or acknowledged; resolved or closed from any
// status that still needs someone.
Status ApplyTransition(Incident& incident, IncidentStatus to, const std::string& actor, TimePoint at,
                       const std::string& reason);

}  // namespace dw::incidents
