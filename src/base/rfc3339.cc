#include "base/rfc3339.h"

#include "base/time_text.h"

namespace dw {

Result<TimePoint> ParseRfc3339(std::string_view text) {
  // RFC 3339 is the strict subset of what ParseTimestampMillis reads: a time and a zone are required.
  std::optional<TextTimeStyle> style = LearnTextTimeStyle(text);
  std::optional<int64_t> ms = ParseTimestampMillis(text);
  if (!style || !ms || style->date_only || style->zone_suffix.empty()) {
    return InvalidArgument("'" + std::string(text) +
                           "' is not an RFC 3339 timestamp (e.g. 2026-11-24T14:02:00Z)");
  }
  return FromUnixMillis(*ms);
}

}  // namespace dw
