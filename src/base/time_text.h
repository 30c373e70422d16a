// Timestamps written as text by warehouses and platforms: ISO 8601 / RFC 3339 and the space-
// separated form SQL engines print ("2026-11-24 13:59:00.123+00").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dw {

// Parses "YYYY-MM-DD", or a date and time separated by 'T' or ' ' ("HH:MM[:SS[.fraction]]"), with
// an optional zone: 'Z', "+HH", "+HHMM" or "+HH:MM" (a time without a zone is read as UTC).
// Returns Unix milliseconds, or nullopt when the text is not such a timestamp, a field is out of
// range, or the time lies outside what a TimePoint holds (1677-09-21T00:12:43.146Z to
// 2262-04-11T23:47:16.854Z).
std::optional<int64_t> ParseTimestampMillis(std::string_view text);

// How a column writes its timestamps as text, learnt from one sample, so that a bound parameter
// compares correctly (and can use an index) against the stored strings.
struct TextTimeStyle {
  bool date_only = false;
  char separator = 'T';      // between date and time
  int fraction_digits = 0;   // 0, 3 or 6 (others are rounded to the nearest of these)
  std::string zone_suffix;   // "", "Z", "+00:00" or "+00"
};

// Learns the style of `sample` (which must parse with ParseTimestampMillis); nullopt otherwise.
std::optional<TextTimeStyle> LearnTextTimeStyle(std::string_view sample);

// Formats `unix_ms` (UTC) in `style`.
std::string FormatTimestamp(int64_t unix_ms, const TextTimeStyle& style);

}  // namespace dw
