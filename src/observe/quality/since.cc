#include "observe/quality/since.h"

#include "base/time_text.h"
#include "config/duration.h"

namespace dw::observe::quality {

Result<TimePoint> ParseSince(const std::string& text, TimePoint now) {
  if (std::optional<int64_t> ms = ParseTimestampMillis(text)) return FromUnixMillis(*ms);
  Result<std::chrono::milliseconds> d = config::ParseDuration(text);
  if (d.ok()) return now - *d;
  return InvalidArgument("since: '" + text +
                         "' is neither a timestamp (2026-11-24T14:00:00Z) nor a duration back from "
                         "now (90m, 2h, 1d)");
}

}  // namespace dw::observe::quality
