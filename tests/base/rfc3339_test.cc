#include "base/rfc3339.h"

#include <gtest/gtest.h>

namespace dw {
namespace {

TEST(Rfc3339, ParsesUtcAndOffsetsToTheSameInstant) {
  auto z = ParseRfc3339("2026-11-24T14:02:00Z");
  auto plus = ParseRfc3339("2026-11-24T15:02:00+01:00");
  ASSERT_TRUE(z.ok());
  ASSERT_TRUE(plus.ok());
  EXPECT_EQ(*z, *plus);
  EXPECT_EQ(FormatRfc3339(*z), "2026-11-24T14:02:00.000Z");
}

TEST(Rfc3339, KeepsMilliseconds) {
  auto t = ParseRfc3339("2026-11-24T14:02:00.123456Z");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(FormatRfc3339(*t), "2026-11-24T14:02:00.123Z");
}

TEST(Rfc3339, RefusesWhatIsNotATime) {
  for (const char* bad : {"", "2026-11-24", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z",
                          "2026-11-24T14:02:00", "yesterday", "2026-11-24T14:02:00Zjunk",
                          "4725-12-01T00:00:00Z"})  // past what a TimePoint holds
    EXPECT_FALSE(ParseRfc3339(bad).ok()) << bad;
}

}  // namespace
}  // namespace dw
