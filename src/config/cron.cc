#include "config/cron.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <optional>
#include <sstream>
#include <vector>

namespace dw::config {
namespace {

using namespace std::chrono;

struct FieldSpec {
  const char* name;
  int min;
  int max;
  const char* const* names;  // names for min, min+1, ...; nullptr when the field has none
};

constexpr const char* kMonthNames[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                       "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr const char* kDayNames[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

constexpr FieldSpec kFields[5] = {
    {"minute", 0, 59, nullptr},
    {"hour", 0, 23, nullptr},
    {"day-of-month", 1, 31, nullptr},
    {"month", 1, 12, kMonthNames},
    {"day-of-week", 0, 7, kDayNames},  // 7 is Sunday too
};

Status FieldError(const FieldSpec& f, const std::string& why) {
  return InvalidArgument(std::string(f.name) + ": " + why);
}

// Parses a number or (for month and weekday) a three-letter name.
Result<int> ParseValue(const FieldSpec& f, std::string_view s) {
  if (!s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (s.size() > 3) return FieldError(f, std::string(s) + " is out of range");
    int v = std::stoi(std::string(s));
    if (v < f.min || v > f.max)
      return FieldError(f, std::string(s) + " is out of range " + std::to_string(f.min) + "-" +
                               std::to_string(f.max));
    return v;
  }
  if (f.names != nullptr && s.size() == 3) {
    std::string lower(s);
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    int count = f.max - f.min + 1 - (f.max == 7 ? 1 : 0);
    for (int i = 0; i < count; ++i)
      if (lower == f.names[i]) return f.min + i;
  }
  return FieldError(f, "'" + std::string(s) + "' is not a number" +
                           (f.names != nullptr ? " or a name" : ""));
}

// Parses one comma-separated field into the set of values it selects.
Result<std::vector<int>> ParseField(const FieldSpec& f, std::string_view text) {
  std::vector<int> values;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string_view item = text.substr(start, comma == std::string_view::npos ? comma : comma - start);
    if (item.empty()) return FieldError(f, "empty item in '" + std::string(text) + "'");
    std::string_view range = item;
    int step = 1;
    if (size_t slash = item.find('/'); slash != std::string_view::npos) {
      range = item.substr(0, slash);
      std::string_view step_text = item.substr(slash + 1);
      if (step_text.empty() || step_text.size() > 3 ||
          !std::all_of(step_text.begin(), step_text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return FieldError(f, "step in '" + std::string(item) + "' is not a number");
      step = std::stoi(std::string(step_text));
      if (step < 1 || step > f.max) return FieldError(f, "step in '" + std::string(item) + "' is out of range");
    }
    int lo = f.min, hi = f.max;
    if (range != "*") {
      size_t dash = range.find('-', 1);
      auto first = ParseValue(f, range.substr(0, dash));
      if (!first.ok()) return first.status();
      lo = hi = *first;
      if (dash != std::string_view::npos) {
        auto last = ParseValue(f, range.substr(dash + 1));
        if (!last.ok()) return last.status();
        hi = *last;
        if (hi < lo) return FieldError(f, "range '" + std::string(range) + "' runs backwards");
      } else if (step > 1 || item.find('/') != std::string_view::npos) {
        hi = f.max;  // "a/n" means a through the end of the field, every n
      }
    }
    for (int v = lo; v <= hi; v += step) values.push_back(v);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return values;
}

std::string_view ExpandMacro(std::string_view text) {
  if (text == "@yearly" || text == "@annually") return "0 0 1 1 *";
  if (text == "@monthly") return "0 0 1 * *";
  if (text == "@weekly") return "0 0 * * 0";
  if (text == "@daily" || text == "@midnight") return "0 0 * * *";
  if (text == "@hourly") return "0 * * * *";
  return text;
}

int64_t ToSeconds(TimePoint t) { return duration_cast<seconds>(floor<seconds>(t).time_since_epoch()).count(); }

// Maps local wall-clock seconds to UTC: the earliest UTC instant whose local time is `local`, or
// nothing when `local` falls in a gap. Assumes at most one offset change within a day of `local`.
std::optional<int64_t> LocalToUtc(const TimeZone& zone, int64_t local) {
  std::optional<int64_t> best;
  for (int64_t probe : {local - 86400, local + 86400}) {
    int64_t offset = zone.OffsetAt(probe);
    int64_t utc = local - offset;
    if (zone.OffsetAt(utc) == offset && (!best || utc < *best)) best = utc;
  }
  return best;
}

}  // namespace

Result<CronSchedule> ParseCron(std::string_view input) {
  CronSchedule cron;
  cron.text = std::string(input);
  std::istringstream in{std::string(ExpandMacro(input))};
  std::vector<std::string> fields;
  for (std::string f; in >> f;) fields.push_back(f);
  if (fields.size() != 5)
    return InvalidArgument("'" + std::string(input) + "' has " + std::to_string(fields.size()) +
                           " fields; a cron schedule has 5: minute hour day-of-month month "
                           "day-of-week (e.g. \"0 22 * * *\")");
  std::array<std::vector<int>, 5> values;
  for (int i = 0; i < 5; ++i) {
    auto parsed = ParseField(kFields[i], fields[i]);
    if (!parsed.ok()) return InvalidArgument("'" + std::string(input) + "': " + parsed.status().message());
    values[i] = std::move(*parsed);
  }
  for (int v : values[0]) cron.minutes.set(v);
  for (int v : values[1]) cron.hours.set(v);
  for (int v : values[2]) cron.days_of_month.set(v);
  for (int v : values[3]) cron.months.set(v);
  for (int v : values[4]) cron.days_of_week.set(v % 7);
  cron.dom_restricted = fields[2][0] != '*';
  cron.dow_restricted = fields[4][0] != '*';
  return cron;
}

Result<TimePoint> NextRun(const CronSchedule& cron, TimePoint after, const TimeZone& zone) {
  const int64_t after_s = ToSeconds(after);
  const int64_t after_local = after_s + zone.OffsetAt(after_s);
  const int64_t after_local_minute = after_local - (((after_local % 60) + 60) % 60);
  sys_days day = floor<days>(sys_seconds{seconds{after_local}});
  // A date-restricted schedule (29 February on a Monday) can be up to 28 years apart; a day
  // loop of that length is still only ~10k cheap iterations.
  for (int i = 0; i < 366 * 28 + 7; ++i, day += days{1}) {
    year_month_day ymd{day};
    if (!cron.months.test(static_cast<unsigned>(ymd.month()))) continue;
    bool dom = cron.days_of_month.test(static_cast<unsigned>(ymd.day()));
    bool dow = cron.days_of_week.test(weekday{day}.c_encoding());
    bool day_ok = (cron.dom_restricted && cron.dow_restricted) ? (dom || dow) : (dom && dow);
    if (!day_ok) continue;
    const int64_t day_s = duration_cast<seconds>(day.time_since_epoch()).count();
    for (int h = 0; h < 24; ++h) {
      if (!cron.hours.test(h) || day_s + h * 3600 + 3599 <= after_local_minute) continue;
      for (int m = 0; m < 60; ++m) {
        if (!cron.minutes.test(m)) continue;
        int64_t local = day_s + h * 3600 + m * 60;
        if (local <= after_local_minute) continue;
        auto utc = LocalToUtc(zone, local);
        if (!utc || *utc <= after_s) continue;  // a gap, or the second pass of a repeated hour
        return TimePoint{seconds{*utc}};
      }
    }
  }
  return NotFound("cron schedule '" + cron.text + "' never fires");
}

Result<TimePoint> NextRun(std::string_view cron, TimePoint after, const std::string& timezone) {
  auto parsed = ParseCron(cron);
  if (!parsed.ok()) return parsed.status();
  auto zone = TimeZone::Load(timezone);
  if (!zone.ok()) return zone.status();
  return NextRun(*parsed, after, *zone);
}

}  // namespace dw::config
