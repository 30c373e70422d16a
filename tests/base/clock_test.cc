#include "base/clock.h"

#include <gtest/gtest.h>

namespace dw {
namespace {

using namespace std::chrono_literals;

TEST(BaseClockTest, SimulatedClockMovesOnlyWhenTold) {
  SimulatedClock c(FromUnixMillis(1'000'000));
  EXPECT_EQ(ToUnixMillis(c.Now()), 1'000'000);
  c.Advance(1500ms);
  EXPECT_EQ(ToUnixMillis(c.Now()), 1'001'500);
}

TEST(BaseClockTest, SimulatedClockNeverRunsBackwards) {
  SimulatedClock c(FromUnixMillis(5000));
  c.Advance(-1000ms);
  c.Set(FromUnixMillis(1000));
  EXPECT_EQ(ToUnixMillis(c.Now()), 5000);
}

TEST(BaseClockTest, FormatsRfc3339WithMillis) {
  // 2026-11-30T14:02:00.123Z
  EXPECT_EQ(FormatRfc3339(FromUnixMillis(1796047320123)), "2026-11-30T14:02:00.123Z");
  EXPECT_EQ(FormatRfc3339(FromUnixMillis(0)), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatRfc3339(FromUnixMillis(-1)), "1969-12-31T23:59:59.999Z");
}

}  // namespace
}  // namespace dw
