#include "observe/auto_monitor/load_cadence.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace dw::observe::auto_monitor {
namespace {

constexpr int64_t kMinuteMs = 60 * 1000;
constexpr int64_t kHourMs = 60 * kMinuteMs;
constexpr int64_t kDayMs = 24 * kHourMs;

int64_t MedianOf(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Local wall-clock milliseconds since the epoch (the zone's offset added).
int64_t LocalMs(int64_t utc_ms, const config::TimeZone& zone) {
  return utc_ms + zone.OffsetAt(utc_ms / 1000) * 1000;
}

int MinuteOfDay(int64_t utc_ms, const config::TimeZone& zone) {
  int64_t local = LocalMs(utc_ms, zone);
  int64_t in_day = ((local % kDayMs) + kDayMs) % kDayMs;
  return static_cast<int>(in_day / kMinuteMs);
}

// 0 = Monday .. 6 = Sunday, local.
int Weekday(int64_t utc_ms, const config::TimeZone& zone) {
  int64_t days = LocalMs(utc_ms, zone) / kDayMs;
  if (LocalMs(utc_ms, zone) < 0 && LocalMs(utc_ms, zone) % kDayMs != 0) --days;
  return static_cast<int>(((days + 3) % 7 + 7) % 7);  // 1970-01-01 was a Thursday
}

std::string ClockText(int minute_of_day) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02d:%02d", minute_of_day / 60, minute_of_day % 60);
  return buf;
}

// The signed difference a - b of two minutes of the day, in (-720, 720].
int MinuteDelta(int a, int b) {
  int d = ((a - b) % 1440 + 1440) % 1440;
  return d > 720 ? d - 1440 : d;
}

// Whether [from, to] holds a whole local Saturday and Sunday.
bool WatchedAWeekend(int64_t from_ms, int64_t to_ms, const config::TimeZone& zone) {
  for (int64_t t = from_ms; t + 2 * kDayMs <= to_ms + kDayMs; t += kDayMs) {
    // The local midnight at or after t.
    int64_t local = LocalMs(t, zone);
    int64_t midnight = t + (kDayMs - ((local % kDayMs) + kDayMs) % kDayMs) % kDayMs;
    if (Weekday(midnight, zone) == 5 && midnight >= from_ms && midnight + 2 * kDayMs <= to_ms) return true;
  }
  return false;
}

}  // namespace

const char* CadenceKindName(CadenceKind kind) {
  switch (kind) {
    case CadenceKind::kUnknown: return "unknown";
    case CadenceKind::kEvery: return "every";
    case CadenceKind::kDaily: return "daily";
    case CadenceKind::kWeekdays: return "weekdays";
    case CadenceKind::kIrregular: return "irregular";
  }
  return "unknown";
}

std::string SpanText(int64_t ms) {
  if (ms < 0) ms = 0;
  int64_t minutes = (ms + kMinuteMs / 2) / kMinuteMs;
  if (minutes < 60) return std::to_string(minutes) + "m";
  int64_t hours = minutes / 60, rest = minutes % 60;
  if (hours < 48) return std::to_string(hours) + "h" + (rest ? " " + std::to_string(rest) + "m" : "");
  int64_t days = hours / 24, h = hours % 24;
  return std::to_string(days) + "d" + (h ? " " + std::to_string(h) + "h" : "");
}

LoadCadence LearnCadence(const std::vector<int64_t>& change_ms, int64_t watched_since_ms, int64_t now_ms,
                         const config::TimeZone& zone) {
  LoadCadence out;
  if (change_ms.size() < kMinLoadsForCadence) return out;
  // The last 30 gaps: a cadence that changed is relearnt within a month of loads.
  const size_t first = change_ms.size() > 31 ? change_ms.size() - 31 : 0;
  std::vector<int64_t> gaps;
  for (size_t i = first + 1; i < change_ms.size(); ++i) gaps.push_back(change_ms[i] - change_ms[i - 1]);
  const int64_t median = MedianOf(gaps);
  const int64_t longest = *std::max_element(gaps.begin(), gaps.end());
  // Daily (or weekdays): loads about a day apart (a weekend gap aside), at about one time of day.
  if (median >= 20 * kHourMs && median <= 28 * kHourMs) {
    const int anchor = MinuteOfDay(change_ms.back(), zone);
    std::vector<int64_t> deltas;
    for (size_t i = first; i < change_ms.size(); ++i) deltas.push_back(MinuteDelta(MinuteOfDay(change_ms[i], zone), anchor));
    const int64_t centre = MedianOf(deltas);
    size_t near = 0;
    for (int64_t d : deltas) near += std::llabs(d - centre) <= 90;
    bool daily_gaps = true;  // every gap a day, or (weekdays) three days over a weekend
    for (int64_t g : gaps) daily_gaps &= (g >= 20 * kHourMs && g <= 28 * kHourMs) || (g >= 68 * kHourMs && g <= 76 * kHourMs);
    if (near * 5 >= deltas.size() * 4 && daily_gaps) {
      out.interval_ms = kDayMs;
      out.minute_of_day = ((anchor + static_cast<int>(centre)) % 1440 + 1440) % 1440;
      bool weekend_load = false;
      for (size_t i = first; i < change_ms.size(); ++i) weekend_load |= Weekday(change_ms[i], zone) >= 5;
      // No load on a Saturday or Sunday: weekdays only. Before a whole weekend was watched that is
      // a guess, said as such; it errs towards calling a stopped table late on Monday, not a
      // weekday table late every Saturday.
      if (!weekend_load) {
        out.kind = CadenceKind::kWeekdays;
        out.text = "weekdays at " + ClockText(out.minute_of_day);
        if (!WatchedAWeekend(std::max(watched_since_ms, change_ms[first]), now_ms, zone))
          out.text += " (no weekend watched yet)";
      } else {
        out.kind = CadenceKind::kDaily;
        out.text = "daily at " + ClockText(out.minute_of_day);
      }
      const std::string zone_name = zone.name() == "UTC" ? "UTC" : zone.name();
      const size_t paren = out.text.find(" (");
      out.text.insert(paren == std::string::npos ? out.text.size() : paren, " " + zone_name);
      return out;
    }
  }
  // Evenly spaced: 90% of the gaps within a quarter of the median (loads seen by the passes of
  // another cadence land a pass early or late, no more).
  size_t even = 0;
  for (int64_t g : gaps) even += g * 4 >= median * 3 && g * 4 <= median * 5;
  if (even * 10 >= gaps.size() * 9 && median > 0) {
    out.kind = CadenceKind::kEvery;
    out.interval_ms = median;
    out.text = median >= 45 * kMinuteMs && median <= 75 * kMinuteMs ? "hourly" : "every " + SpanText(median);
    return out;
  }
  out.kind = CadenceKind::kIrregular;
  out.interval_ms = longest;
  out.text = "irregular (gaps up to " + SpanText(longest) + ")";
  return out;
}

int64_t NextDue(const LoadCadence& cadence, int64_t last_ms, const config::TimeZone& zone) {
  if (cadence.kind != CadenceKind::kDaily && cadence.kind != CadenceKind::kWeekdays) return last_ms + cadence.interval_ms;
  // The first time of day `minute_of_day` (on a weekday, for kWeekdays) a quarter of a day or more
  // after the last load: a load seen a little late does not make the next one due at once.
  int64_t t = last_ms + kDayMs / 4;
  const int64_t local = LocalMs(t, zone);
  const int64_t in_day = ((local % kDayMs) + kDayMs) % kDayMs;
  int64_t due = t - in_day + static_cast<int64_t>(cadence.minute_of_day) * kMinuteMs;
  if (due < t) due += kDayMs;
  for (int i = 0; i < 7 && cadence.kind == CadenceKind::kWeekdays && Weekday(due, zone) >= 5; ++i) due += kDayMs;
  return due;
}

double Lateness(const LoadCadence& cadence, int64_t last_ms, int64_t now_ms, const config::TimeZone& zone) {
  if (cadence.kind == CadenceKind::kUnknown || cadence.interval_ms <= 0) return 0;
  const int64_t due = NextDue(cadence, last_ms, zone);
  return 1.0 + static_cast<double>(now_ms - due) / static_cast<double>(cadence.interval_ms);
}

}  // namespace dw::observe::auto_monitor
