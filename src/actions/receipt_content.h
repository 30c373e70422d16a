// Internal to actions/: what a resolution receipt is built from, and the helpers that keep its
// content hashable (canonical JSON holds integers only).
#pragma once

#include <string>

#include "actions/actions.h"

namespace dw::actions {

// The event log subject under which each resolution receipt is recorded as written
// (`receipt_written`: {incident, seq, hash}); the chain's verification checks it too.
inline constexpr const char* kReceiptsSubject = "receipts";

// The event log subject of an incident ("incident:<id>").
std::string IncidentSubject(const std::string& incident_id);

// `value` with every non-integer number written as a fixed decimal string ("0.25", six significant
// digits), NaN and infinities as null, so CanonicalJson accepts it.
Json HashableJson(const Json& value);

}  // namespace dw::actions
