// Cron schedules: parsing with clear errors, and the next run in UTC and in real IANA zones,
// including the daylight-saving days when a wall-clock time is skipped or repeated.
#include <chrono>

#include <gtest/gtest.h>

#include "config/cron.h"
#include "config/time_zone.h"

namespace dw::config {
namespace {
namespace cron_test {

using namespace std::chrono;

TimePoint At(int y, unsigned mo, unsigned d, int h, int mi, int s = 0) {
  return TimePoint{sys_days{year{y} / month{mo} / day{d}} + hours{h} + minutes{mi} + seconds{s}};
}

TimePoint Next(const std::string& cron, TimePoint after, const std::string& tz = "UTC") {
  auto r = NextRun(cron, after, tz);
  EXPECT_TRUE(r.ok()) << cron << ": " << r.status().ToString();
  return r.ok() ? *r : TimePoint{};
}

std::string ParseError(const std::string& cron) {
  auto r = ParseCron(cron);
  EXPECT_FALSE(r.ok()) << cron << " parsed";
  return r.status().message();
}

TEST(ConfigCronTest, ParsesFieldsListsRangesAndSteps) {
  auto c = ParseCron("*/15 9-17 1,15 jan-mar mon-fri");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->minutes.count(), 4u);
  EXPECT_TRUE(c->minutes.test(45));
  EXPECT_EQ(c->hours.count(), 9u);
  EXPECT_TRUE(c->days_of_month.test(1) && c->days_of_month.test(15));
  EXPECT_EQ(c->months.count(), 3u);
  EXPECT_EQ(c->days_of_week.count(), 5u);
  EXPECT_FALSE(c->days_of_week.test(0));
  auto sunday = ParseCron("0 0 * * 7");
  ASSERT_TRUE(sunday.ok());
  EXPECT_TRUE(sunday->days_of_week.test(0));
  auto from = ParseCron("5/20 * * * *");
  ASSERT_TRUE(from.ok());
  EXPECT_EQ(from->minutes.count(), 3u);  // 5, 25, 45
  EXPECT_TRUE(ParseCron("@daily").ok());
}

TEST(ConfigCronTest, RejectsBadExpressionsNamingTheField) {
  EXPECT_NE(ParseError("0 24 * * *").find("hour: 24 is out of range 0-23"), std::string::npos);
  EXPECT_NE(ParseError("60 * * * *").find("minute: 60 is out of range 0-59"), std::string::npos);
  EXPECT_NE(ParseError("0 0 0 * *").find("day-of-month: 0 is out of range 1-31"), std::string::npos);
  EXPECT_NE(ParseError("0 0 * 13 *").find("month: 13"), std::string::npos);
  EXPECT_NE(ParseError("0 0 * * 8").find("day-of-week: 8"), std::string::npos);
  EXPECT_NE(ParseError("*/0 * * * *").find("step"), std::string::npos);
  EXPECT_NE(ParseError("5-1 * * * *").find("runs backwards"), std::string::npos);
  EXPECT_NE(ParseError("1,,2 * * * *").find("empty item"), std::string::npos);
  EXPECT_NE(ParseError("x * * * *").find("'x' is not a number"), std::string::npos);
  EXPECT_NE(ParseError("0 0 * * funday").find("day-of-week"), std::string::npos);
  EXPECT_NE(ParseError("0 22 * * * *").find("has 6 fields"), std::string::npos);
  EXPECT_NE(ParseError("").find("has 0 fields"), std::string::npos);
}

TEST(ConfigCronTest, NextRunInUtc) {
  // The loyalty sync: after the 15:05 detection, the next Braze send is 22:00 the same day.
  EXPECT_EQ(Next("0 22 * * *", At(2026, 11, 24, 15, 5)), At(2026, 11, 24, 22, 0));
  // Strictly after: at 22:00 exactly, the next run is tomorrow's.
  EXPECT_EQ(Next("0 22 * * *", At(2026, 11, 24, 22, 0)), At(2026, 11, 25, 22, 0));
  EXPECT_EQ(Next("0 22 * * *", At(2026, 11, 24, 21, 59, 59)), At(2026, 11, 24, 22, 0));
  EXPECT_EQ(Next("*/15 * * * *", At(2026, 11, 24, 15, 5)), At(2026, 11, 24, 15, 15));
  EXPECT_EQ(Next("0 0 1 1 *", At(2026, 11, 24, 15, 5)), At(2027, 1, 1, 0, 0));
  EXPECT_EQ(Next("@hourly", At(2026, 11, 24, 23, 30)), At(2026, 11, 25, 0, 0));
}

TEST(ConfigCronTest, WeekdaysAndTheDayFieldOrRule) {
  // 2026-11-28 is a Saturday: a weekday schedule waits for Monday.
  EXPECT_EQ(Next("0 9-17 * * mon-fri", At(2026, 11, 28, 12, 0)), At(2026, 11, 30, 9, 0));
  // Both day fields restricted: the 13th OR any Friday (2026-11-27 is a Friday).
  EXPECT_EQ(Next("0 0 13 * 5", At(2026, 11, 24, 0, 0)), At(2026, 11, 27, 0, 0));
  // Only the day of month restricted: weekdays do not matter.
  EXPECT_EQ(Next("0 0 13 * *", At(2026, 11, 24, 0, 0)), At(2026, 12, 13, 0, 0));
}

TEST(ConfigCronTest, LeapDayAndSchedulesThatNeverFire) {
  EXPECT_EQ(Next("0 0 29 2 *", At(2026, 3, 1, 0, 0)), At(2028, 2, 29, 0, 0));
  auto never = NextRun("0 0 30 2 *", At(2026, 3, 1, 0, 0), "UTC");
  ASSERT_FALSE(never.ok());
  EXPECT_EQ(never.status().code(), StatusCode::kNotFound);
}

TEST(ConfigCronTest, NextRunInAZoneWithDaylightSaving) {
  // Berlin is UTC+1 in November and UTC+2 in July.
  EXPECT_EQ(Next("0 22 * * *", At(2026, 11, 24, 15, 5), "Europe/Berlin"), At(2026, 11, 24, 21, 0));
  EXPECT_EQ(Next("0 22 * * *", At(2026, 7, 1, 12, 0), "Europe/Berlin"), At(2026, 7, 1, 20, 0));
  // New York is UTC-5 in November: 07:30 local is 12:30 UTC.
  EXPECT_EQ(Next("30 7 * * *", At(2026, 11, 24, 0, 0), "America/New_York"), At(2026, 11, 24, 12, 30));
}

TEST(ConfigCronTest, SpringForwardSkipsTheMissingTime) {
  // 2026-03-29 in Berlin: 02:00 jumps to 03:00, so 02:30 does not exist that day.
  EXPECT_EQ(Next("30 2 * * *", At(2026, 3, 28, 12, 0), "Europe/Berlin"), At(2026, 3, 30, 0, 30));
}

TEST(ConfigCronTest, FallBackFiresOnceAtTheFirstOccurrence) {
  // 2026-10-25 in Berlin: 03:00 CEST falls back to 02:00 CET, so 02:30 happens twice.
  TimePoint first = Next("30 2 * * *", At(2026, 10, 24, 12, 0), "Europe/Berlin");
  EXPECT_EQ(first, At(2026, 10, 25, 0, 30));  // 02:30 CEST
  EXPECT_EQ(Next("30 2 * * *", first, "Europe/Berlin"), At(2026, 10, 26, 1, 30));  // next day, CET
}

TEST(ConfigCronTest, UnknownZoneIsAnError) {
  auto r = NextRun("0 22 * * *", At(2026, 1, 1, 0, 0), "Mars/Olympus");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unknown time zone"), std::string::npos);
}

TEST(ConfigTimeZoneTest, OffsetsFromTheTzDatabase) {
  auto berlin = TimeZone::Load("Europe/Berlin");
  ASSERT_TRUE(berlin.ok()) << berlin.status().ToString();
  auto secs = [](TimePoint t) { return duration_cast<seconds>(t.time_since_epoch()).count(); };
  EXPECT_EQ(berlin->OffsetAt(secs(At(2026, 1, 15, 12, 0))), 3600);
  EXPECT_EQ(berlin->OffsetAt(secs(At(2026, 7, 15, 12, 0))), 7200);
  // Beyond the file's last transition the POSIX rule in its footer applies.
  EXPECT_EQ(berlin->OffsetAt(secs(At(2045, 7, 15, 12, 0))), 7200);
  EXPECT_EQ(berlin->OffsetAt(secs(At(2045, 12, 15, 12, 0))), 3600);
  auto sydney = TimeZone::Load("Australia/Sydney");
  ASSERT_TRUE(sydney.ok());
  EXPECT_EQ(sydney->OffsetAt(secs(At(2045, 1, 15, 12, 0))), 11 * 3600);  // southern summer
  EXPECT_EQ(sydney->OffsetAt(secs(At(2045, 7, 15, 12, 0))), 10 * 3600);
  EXPECT_EQ(TimeZone::Utc().OffsetAt(0), 0);
  EXPECT_TRUE(TimeZone::Load("UTC").ok());
}

TEST(ConfigTimeZoneTest, RejectsUnknownAndMalformedNames) {
  EXPECT_EQ(TimeZone::Load("Europe/Atlantis").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(TimeZone::Load("../../etc/passwd").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(TimeZone::Load("/etc/localtime").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(TimeZone::Load("").status().code(), StatusCode::kInvalidArgument);
}

TEST(TimeZoneTest, ATimeIsWrittenInTheZoneWithItsOffsetAtThatMoment) {
  auto berlin = TimeZone::Load("Europe/Berlin");
  auto new_york = TimeZone::Load("America/New_York");
  auto kolkata = TimeZone::Load("Asia/Kolkata");
  ASSERT_TRUE(berlin.ok() && new_york.ok() && kolkata.ok());
  const TimePoint winter = FromUnixMillis(1'795'948'800'123);  // 2026-11-29T10:40:00.123Z
  const TimePoint summer = FromUnixMillis(1'782'729'600'000);  // 2026-06-29T10:40:00Z
  EXPECT_EQ(FormatWithOffset(winter, *berlin), "2026-11-29T11:40:00+01:00");
  EXPECT_EQ(FormatWithOffset(summer, *berlin), "2026-06-29T12:40:00+02:00");
  EXPECT_EQ(FormatWithOffset(winter, *new_york), "2026-11-29T05:40:00-05:00");
  EXPECT_EQ(FormatWithOffset(winter, *kolkata), "2026-11-29T16:10:00+05:30");
  EXPECT_EQ(FormatWithOffset(winter, TimeZone::Utc()), "2026-11-29T10:40:00Z");
  // Before 1970 the second is floored, not truncated towards zero.
  EXPECT_EQ(FormatWithOffset(FromUnixMillis(-500), TimeZone::Utc()), "1969-12-31T23:59:59Z");
}

}  // namespace cron_test
}  // namespace
}  // namespace dw::config
