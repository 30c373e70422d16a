// Parsing RFC 3339 timestamps ("2026-11-24T14:02:00Z", "2026-11-24T15:02:00.123+01:00"), the
// format FormatRfc3339 writes and OpenLineage events carry.
#pragma once

#include <string_view>

#include "base/clock.h"
#include "base/status.h"

namespace dw {

// Parses `text` (date, 'T' or ' ', time with optional fraction, then 'Z' or +hh:mm/-hh:mm) into a
// UTC time point with millisecond precision. Fails with kInvalidArgument quoting `text` otherwise.
Result<TimePoint> ParseRfc3339(std::string_view text);

}  // namespace dw
