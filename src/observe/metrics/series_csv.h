// Reading and writing `timestamp,value` series files (NAB's format, and `dw monitor score`'s).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/status.h"

namespace dw::observe::metrics {

struct SeriesRow {
  int64_t ts_ms = 0;
  double value = 0;  // NaN when the cell is empty, "nan" or "null"; may be +-inf
};

// Parses "YYYY-MM-DD HH:MM:SS[.frac]" or RFC 3339 "YYYY-MM-DDTHH:MM:SS[.frac](Z|+hh:mm)" (UTC when
// no offset) or "YYYY-MM-DD" into Unix ms; the offset may also be +hh, +hhmm or +hh:mm:ss, as
// PostgreSQL prints timestamptz. InvalidArgument quoting the text otherwise.
Result<int64_t> ParseSeriesTimestamp(std::string_view text);
// A point's time given as Unix milliseconds in JSON: an integer from 0 (1970-01-01T00:00:00Z) to
// 9223372036854 (2262-04-11T23:47:16.854Z), the last millisecond a TimePoint holds, so every
// store and format of ours keeps it exactly. InvalidArgument saying the range otherwise (a larger integer would wrap to 1969).
Result<int64_t> SeriesMillisFromJson(const Json& ts);

// "YYYY-MM-DD HH:MM:SS" (UTC), the form NAB uses; milliseconds are appended when not zero.
std::string FormatSeriesTimestamp(int64_t ts_ms);

// Reads a CSV whose header names the columns `timestamp` and `value` (in any position; other
// columns are ignored). InvalidArgument naming the line on a bad timestamp or value, NotFound when
// the file cannot be opened. Rows keep the file's order.
Result<std::vector<SeriesRow>> ReadSeriesCsv(const std::string& path);

}  // namespace dw::observe::metrics
