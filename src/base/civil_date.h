// Proleptic Gregorian dates as days since 1970-01-01, both ways (Howard Hinnant's algorithms):
// what every reader of a date or a timestamp written as text or as days needs, in one place.
#pragma once

#include <cstdint>

namespace dw {

// Days since 1970-01-01 of year `y`, month `m` (1..12), day `d` (1..31); negative before 1970.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d);

// The year, month (1..12) and day (1..31) of `z` days since 1970-01-01.
void CivilFromDays(int64_t z, int64_t& y, unsigned& m, unsigned& d);

}  // namespace dw
