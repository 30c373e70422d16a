// The desk prints every time in the workspace's zone with its offset, as the CLI does: a page never
// says "06:00 UTC" beside "the 07:00 sync".
#include <gtest/gtest.h>

#include "base/rfc3339.h"
#include "config/time_zone.h"
#include "desk/html.h"

namespace dw::desk {
namespace {

TEST(DeskShortTimeTest, ATimeReadsInTheWorkspacesZoneWithItsOffset) {
  auto berlin = config::TimeZone::Load("Europe/Berlin");
  auto kolkata = config::TimeZone::Load("Asia/Kolkata");
  ASSERT_TRUE(berlin.ok() && kolkata.ok());
  const TimePoint winter = *ParseRfc3339("2026-11-24T14:02:00Z");
  const TimePoint summer = *ParseRfc3339("2026-07-01T05:00:00Z");
  EXPECT_EQ(ShortTime(winter, config::TimeZone::Utc()), "2026-11-24 14:02 UTC");
  EXPECT_EQ(ShortTime(winter, *berlin), "2026-11-24 15:02 +01:00");
  EXPECT_EQ(ShortTime(summer, *berlin), "2026-07-01 07:00 +02:00");
  EXPECT_EQ(ShortTime(winter, *kolkata), "2026-11-24 19:32 +05:30");
  // Late in the evening UTC is the next day in Kolkata.
  EXPECT_EQ(ShortTime("2026-11-24T20:00:00Z", *kolkata), "2026-11-25 01:30 +05:30");
  EXPECT_EQ(ShortTime("not a time", *berlin), "not a time");
}

}  // namespace
}  // namespace dw::desk
