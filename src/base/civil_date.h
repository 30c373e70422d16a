// Proleptic Gregorian dates as days since 1970-01-01, both ways (Howard Hinnant's algorithms):
// what every reader of a date or a timestamp written as text or as days needs, in one place.
#pragma once

#include <cstdint>
#include <string>

namespace dw {

// Days since 1970-01-01 of year `y`, month `m` (1..12), day `d` (1..31); negative before 1970.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d);

// The year, month (1..12) and day (1..31) of `z` days since 1970-01-01.
void CivilFromDays(int64_t z, int64_t& y, unsigned& m, unsigned& d);

// `micros` microseconds since 1970 (UTC) as "YYYY-MM-DDTHH:MM:SS.ffffff" followed by `suffix`
// ("Z", or "" for a zone-less DATETIME), or as "YYYY-MM-DD" with `date_only`.
std::string FormatEpochMicros(int64_t micros, bool date_only, const char* suffix);

}  // namespace dw
