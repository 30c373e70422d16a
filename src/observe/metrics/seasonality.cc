#include "observe/metrics/seasonality.h"

#include <chrono>

namespace dw::observe::metrics {
namespace {

constexpr int64_t kHourMs = 3600LL * 1000;
constexpr int64_t kDayMs = 24 * kHourMs;

// Floor division, so that points before 1970 still land in the right slot.
int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

int HourOfDay(int64_t ts_ms) { return static_cast<int>(FloorDiv(ts_ms, kHourMs) - FloorDiv(ts_ms, kDayMs) * 24); }
// 1970-01-01 was a Thursday (Monday 0 .. Sunday 6 makes it 3).
int DayOfWeek(int64_t ts_ms) {
  int64_t d = (FloorDiv(ts_ms, kDayMs) + 3) % 7;
  return static_cast<int>(d < 0 ? d + 7 : d);
}
int DayOfMonth(int64_t ts_ms) {
  std::chrono::sys_days days{std::chrono::days{FloorDiv(ts_ms, kDayMs)}};
  std::chrono::year_month_day ymd{days};
  return static_cast<int>(static_cast<unsigned>(ymd.day())) - 1;
}

const char* kWeekdays[] = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
                           "Sunday"};

std::string TwoDigits(int v) { return (v < 10 ? "0" : "") + std::to_string(v); }

}  // namespace

Result<Seasonality> ParseSeasonality(std::string_view text) {
  if (text == "none") return Seasonality::kNone;
  if (text == "auto") return Seasonality::kAuto;
  if (text == "hour_of_day") return Seasonality::kHourOfDay;
  if (text == "day_of_week") return Seasonality::kDayOfWeek;
  if (text == "hour_of_week") return Seasonality::kHourOfWeek;
  if (text == "day_of_month") return Seasonality::kDayOfMonth;
  return InvalidArgument("seasonality \"" + std::string(text) +
                         "\" is not one of none, auto, hour_of_day, day_of_week, hour_of_week, "
                         "day_of_month");
}

const char* SeasonalityName(Seasonality s) {
  switch (s) {
    case Seasonality::kNone: return "none";
    case Seasonality::kAuto: return "auto";
    case Seasonality::kHourOfDay: return "hour_of_day";
    case Seasonality::kDayOfWeek: return "day_of_week";
    case Seasonality::kHourOfWeek: return "hour_of_week";
    case Seasonality::kDayOfMonth: return "day_of_month";
  }
  return "none";
}

int SeasonalSlot(Seasonality s, int64_t ts_ms) {
  switch (s) {
    case Seasonality::kHourOfDay: return HourOfDay(ts_ms);
    case Seasonality::kDayOfWeek: return DayOfWeek(ts_ms);
    case Seasonality::kHourOfWeek: return DayOfWeek(ts_ms) * 24 + HourOfDay(ts_ms);
    case Seasonality::kDayOfMonth: return DayOfMonth(ts_ms);
    case Seasonality::kNone:
    case Seasonality::kAuto: return 0;
  }
  return 0;
}

int SeasonalSlotCount(Seasonality s) {
  switch (s) {
    case Seasonality::kHourOfDay: return 24;
    case Seasonality::kDayOfWeek: return 7;
    case Seasonality::kHourOfWeek: return 168;
    case Seasonality::kDayOfMonth: return 31;
    case Seasonality::kNone:
    case Seasonality::kAuto: return 1;
  }
  return 1;
}

std::string SeasonalSlotLabel(Seasonality s, int64_t ts_ms) {
  switch (s) {
    case Seasonality::kHourOfDay: return TwoDigits(HourOfDay(ts_ms)) + ":00";
    case Seasonality::kDayOfWeek: return kWeekdays[DayOfWeek(ts_ms)];
    case Seasonality::kHourOfWeek:
      return std::string(kWeekdays[DayOfWeek(ts_ms)]) + " " + TwoDigits(HourOfDay(ts_ms)) + ":00";
    case Seasonality::kDayOfMonth: return "day " + std::to_string(DayOfMonth(ts_ms) + 1) + " of the month";
    case Seasonality::kNone:
    case Seasonality::kAuto: return "";
  }
  return "";
}

}  // namespace dw::observe::metrics
