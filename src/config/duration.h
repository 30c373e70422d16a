// Durations in the workspace file: a whole number and a unit, e.g. "90s", "30m", "2h", "1d".
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"

namespace dw::config {

// Parses "<digits><unit>" with unit ms, s, m, h, d or w, optionally repeated ("1h30m"), into
// milliseconds. Fails with kInvalidArgument and a sentence showing the accepted form for an empty
// string, a missing or unknown unit, a negative or zero duration, or an overflow.
Result<std::chrono::milliseconds> ParseDuration(std::string_view text);

// A time as every option and tool argument that takes one accepts it (`--since`, `--until`,
// `since`): an ISO 8601 timestamp ("2026-11-24T14:00:00Z") or a duration back from `now` ("90m",
// "1d"). kInvalidArgument "<name>: '<text>' is neither a timestamp ... nor a duration ..." naming
// both forms.
Result<TimePoint> ParseTimeOrAgo(const std::string& name, const std::string& text, TimePoint now);

// Formats `d` in the largest unit that divides it exactly ("2h", "90s", "1500ms"); "0s" for zero.
std::string FormatDuration(std::chrono::milliseconds d);

}  // namespace dw::config
