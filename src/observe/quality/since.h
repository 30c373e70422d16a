// The start of an incremental run as a caller writes it: a timestamp or a duration back from now.
#pragma once

#include <string>

#include "base/clock.h"
#include "base/status.h"

namespace dw::observe::quality {

// Parses `text` as an ISO 8601 timestamp ("2026-11-24T14:00:00Z") or a duration ("90m": that long
// before `now`). Fails with kInvalidArgument naming the text and both accepted forms.
Result<TimePoint> ParseSince(const std::string& text, TimePoint now);

}  // namespace dw::observe::quality
