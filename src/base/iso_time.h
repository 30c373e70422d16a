// Parsing of ISO-8601 / RFC 3339 date-times as platforms write them (Kestra's
// "2024-11-21T17:09:42.016Z", offsets like "+02:00", any number of fraction digits).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace dw {

// Unix milliseconds of `text` ("YYYY-MM-DDTHH:MM:SS[.fff...](Z|+hh:mm|-hh:mm)"; a space may stand
// for the 'T'); nullopt when it is not such a date-time or names an impossible date.
std::optional<int64_t> ParseIsoTimeMillis(std::string_view text);

}  // namespace dw
