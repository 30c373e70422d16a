#include "base/iso_time.h"

#include "base/rfc3339.h"

namespace dw {

std::optional<int64_t> ParseIsoTimeMillis(std::string_view text) {
  // One timestamp reader for the whole product (base/time_text.h), with RFC 3339's requirements.
  Result<TimePoint> t = ParseRfc3339(text);
  if (!t.ok()) return std::nullopt;
  return ToUnixMillis(*t);
}

}  // namespace dw
