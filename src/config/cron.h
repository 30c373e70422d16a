// Cron schedules in the workspace file (`schedule:` on an asset): five fields, minute hour
// day-of-month month day-of-week, each `*`, a value, a range `a-b`, a step `*/n`, `a-b/n` or
// `a/n`, or a comma list of those; month and weekday names (jan, mon) and the macros @hourly,
// @daily, @weekly, @monthly and @yearly are accepted. Times are wall-clock times in a zone.
#pragma once

#include <bitset>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "config/time_zone.h"

namespace dw::config {

struct CronSchedule {
  std::string text;  // as written
  std::bitset<60> minutes;
  std::bitset<24> hours;
  std::bitset<32> days_of_month;  // bit 0 unused
  std::bitset<13> months;         // bit 0 unused
  std::bitset<7> days_of_week;    // 0 = Sunday (7 in the text is also Sunday)
  // Classic cron: when both day fields are restricted (neither starts with '*'), a day matches if
  // EITHER matches; otherwise both must.
  bool dom_restricted = false;
  bool dow_restricted = false;
};

// Parses a 5-field expression or a macro. Fails with kInvalidArgument naming the field and the
// offending value ("hour: 24 is out of range 0-23") when `text` is not a valid schedule.
Result<CronSchedule> ParseCron(std::string_view text);

// Returns the first time the schedule fires strictly after `after`, reading the fields as
// wall-clock time in `zone`. Across daylight-saving changes, a wall-clock time that does not exist
// (spring forward) is skipped and one that occurs twice (fall back) fires once, at its first
// occurrence. Fails with kNotFound when the schedule never fires (e.g. "0 0 30 2 *").
Result<TimePoint> NextRun(const CronSchedule& cron, TimePoint after, const TimeZone& zone);

// Convenience: parses `cron` and loads the IANA zone `timezone` ("UTC", "Europe/Berlin"), then
// as above. Fails with the parse or zone error.
Result<TimePoint> NextRun(std::string_view cron, TimePoint after, const std::string& timezone);

}  // namespace dw::config
