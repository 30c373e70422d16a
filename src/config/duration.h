// Durations in the workspace file: a whole number and a unit, e.g. "90s", "30m", "2h", "1d".
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "base/status.h"

namespace dw::config {

// Parses "<digits><unit>" with unit ms, s, m, h, d or w, optionally repeated ("1h30m"), into
// milliseconds. Fails with kInvalidArgument and a sentence showing the accepted form for an empty
// string, a missing or unknown unit, a negative or zero duration, or an overflow.
Result<std::chrono::milliseconds> ParseDuration(std::string_view text);

// Formats `d` in the largest unit that divides it exactly ("2h", "90s", "1500ms"); "0s" for zero.
std::string FormatDuration(std::chrono::milliseconds d);

}  // namespace dw::config
