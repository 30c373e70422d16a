// Time zones for the workspace `timezone:` key and cron schedules: IANA names read from the system
// tz database (TZif files in $TZDIR or /usr/share/zoneinfo). We read the files ourselves because
// libstdc++ 12 has no std::chrono::tzdb and setting $TZ for localtime_r is not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace dw::config {

class TimeZone {
 public:
  // The UTC zone; needs no files.
  static TimeZone Utc();

  // Loads the IANA zone `name` ("Europe/Berlin"). "UTC", "Etc/UTC" and "GMT" never need the
  // database. Fails with kInvalidArgument when the name is malformed, kNotFound when the zone is
  // not in the database, kDataLoss when its file is unreadable.
  static Result<TimeZone> Load(const std::string& name);

  const std::string& name() const { return name_; }

  // Seconds to add to a UTC time (seconds since the Unix epoch) to get local wall-clock time.
  // After the last recorded transition the file's POSIX rule applies (Mm.w.d rules; other rule
  // forms keep the last offset).
  int64_t OffsetAt(int64_t utc_seconds) const;

 private:
  // The POSIX TZ footer of a TZif file, e.g. "CET-1CEST,M3.5.0,M10.5.0/3" (only Mm.w.d rules).
  struct PosixRule {
    int64_t std_offset = 0;  // seconds east of UTC
    int64_t dst_offset = 0;
    bool has_dst = false;
    int start_month = 0, start_week = 0, start_wday = 0;
    int64_t start_time = 7200;  // seconds after local midnight (standard time)
    int end_month = 0, end_week = 0, end_wday = 0;
    int64_t end_time = 7200;  // seconds after local midnight (daylight time)
  };
  static std::optional<PosixRule> ParsePosixRule(const std::string& text);
  int64_t RuleOffsetAt(int64_t utc_seconds) const;

  std::string name_ = "UTC";
  std::vector<int64_t> transitions_;  // UTC seconds, ascending
  std::vector<int64_t> offsets_;      // offset in effect from transitions_[i]
  int64_t initial_offset_ = 0;        // before the first transition
  std::optional<PosixRule> rule_;
};

// The zone `name` for an answer that names its zone: the workspace's `timezone:` was checked when
// it loaded, so a zone the system no longer has reads as UTC (and the answer says "UTC").
TimeZone ZoneOrUtc(const std::string& name);

// `t` as RFC 3339 in `zone`'s wall-clock time with its offset at that moment, to the second:
// "2026-11-24T15:03:00+01:00" (Europe/Berlin), "2026-11-24T14:03:00Z" (an offset of zero). What
// an answer that names its zone prints, so that every time in it reads in that one zone.
std::string FormatWithOffset(TimePoint t, const TimeZone& zone);

}  // namespace dw::config
