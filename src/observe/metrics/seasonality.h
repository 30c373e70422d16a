// Seasonality: which calendar slot a point belongs to, so that a Monday 09:00 is compared with
// earlier Mondays 09:00 rather than with Sunday night. Slots are computed in UTC.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace dw::observe::metrics {

enum class Seasonality { kNone, kAuto, kHourOfDay, kDayOfWeek, kHourOfWeek, kDayOfMonth };

// Parses "none", "auto", "hour_of_day", "day_of_week", "hour_of_week", "day_of_month";
// InvalidArgument naming the accepted values otherwise.
Result<Seasonality> ParseSeasonality(std::string_view text);
// The workspace spelling of `s` ("hour_of_week", ...).
const char* SeasonalityName(Seasonality s);

// The slot of `ts_ms` (Unix ms, UTC) under `s`: hour 0-23, weekday 0-6 (Monday 0), hour of week
// 0-167 (Monday 00:00 is 0), day of month 0-30. Always 0 for kNone and kAuto.
int SeasonalSlot(Seasonality s, int64_t ts_ms);
// How many distinct slots `s` has (1 for kNone and kAuto).
int SeasonalSlotCount(Seasonality s);
// A person's name for the slot of `ts_ms` ("Tuesday 15:00", "hour 15", "day 3 of the month"), or
// "" for kNone/kAuto.
std::string SeasonalSlotLabel(Seasonality s, int64_t ts_ms);

}  // namespace dw::observe::metrics
