// A table's load cadence, learnt from the times its catalog counters were seen to move: hourly (or
// every N minutes or hours), daily at a time of day, weekdays only at a time of day, or irregular.
// What "late" means for a table is relative to it: a load is due at NextDue, and the table is late
// once no change was seen for half a cadence past that (1.5 cadences after the last load when loads
// are evenly spaced), never after a fixed threshold.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/time_zone.h"

namespace dw::observe::auto_monitor {

enum class CadenceKind {
  kUnknown,    // too few loads seen to say
  kEvery,      // evenly spaced: hourly, every 4h, every 3 days
  kDaily,      // once a day at about the same wall-clock time
  kWeekdays,   // once a day Monday to Friday, none at weekends
  kIrregular,  // no pattern: late only after 1.5 times the longest recent gap
};
const char* CadenceKindName(CadenceKind kind);  // "unknown", "every", "daily", "weekdays", "irregular"

struct LoadCadence {
  CadenceKind kind = CadenceKind::kUnknown;
  int64_t interval_ms = 0;  // the gap between loads (daily, weekdays: a day; irregular: the longest recent gap)
  int minute_of_day = -1;   // daily, weekdays: when loads are seen, local wall clock
  std::string text;         // "hourly", "every 4h", "daily at 02:15", "weekdays at 06:00", "irregular (gaps up to 9h)"
};

// The fewest changes a cadence is learnt from.
inline constexpr size_t kMinLoadsForCadence = 4;

// Learns the cadence from `change_ms` (ascending, the pass times at which a change was seen), on a
// table watched since `watched_since_ms` until `now_ms`, with wall-clock times in `zone`. Fewer than
// kMinLoadsForCadence changes: kUnknown. Daily loads none of which fell on a weekend are
// weekdays (said as a guess until a whole weekend was watched).
LoadCadence LearnCadence(const std::vector<int64_t>& change_ms, int64_t watched_since_ms, int64_t now_ms,
                         const config::TimeZone& zone);

// When the next load is due after a load at `last_ms`. REQUIRES: cadence.kind != kUnknown.
int64_t NextDue(const LoadCadence& cadence, int64_t last_ms, const config::TimeZone& zone);

// How late the table is at `now_ms`, in cadences: 1 + (now - due) / interval. About 0 just after a
// load, 1 when the next one is due, below 0 while a weekend's gap is still ahead; above kLateAfter
// the table is late.
double Lateness(const LoadCadence& cadence, int64_t last_ms, int64_t now_ms, const config::TimeZone& zone);
inline constexpr double kLateAfter = 1.5;

// "1h", "4h 30m", "2d": a span for a sentence.
std::string SpanText(int64_t ms);

}  // namespace dw::observe::auto_monitor
