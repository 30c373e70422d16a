#include "base/time_text.h"

#include <gtest/gtest.h>

namespace dw {
namespace {

TEST(TimeTextTest, ParsesTheFormsWarehousesPrint) {
  EXPECT_EQ(ParseTimestampMillis("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(ParseTimestampMillis("2026-11-24T14:02:00Z"), 1795528920000);
  EXPECT_EQ(ParseTimestampMillis("2026-11-24 14:02:00"), 1795528920000);
  EXPECT_EQ(ParseTimestampMillis("2026-11-24T14:02:00.250Z"), 1795528920250);
  EXPECT_EQ(ParseTimestampMillis("2026-11-24 15:02:00.250123+01"), 1795528920250);
  EXPECT_EQ(ParseTimestampMillis("2026-11-24T09:02:00-05:00"), 1795528920000);
  EXPECT_EQ(ParseTimestampMillis("2026-11-24"), 1795478400000);
  EXPECT_EQ(ParseTimestampMillis("1969-12-31T23:59:59Z"), -1000);
}

TEST(TimeTextTest, RefusesWhatIsNotATimestamp) {
  for (const char* bad : {"", "2026", "2026-13-01", "2026-02-30", "2026-11-24T25:00:00Z",
                          "2026-11-24T14:02:00Zjunk", "yesterday", "2026-11-24T14:02:00+24:00",
                          "2026-11-24T14:02:00."}) {
    EXPECT_FALSE(ParseTimestampMillis(bad).has_value()) << bad;
  }
}

// Found by the openlineage fuzz target: an eventTime in the year 4725 overflowed the TimePoint it
// became (undefined behaviour). Times a TimePoint cannot hold are not timestamps.
TEST(TimeTextTest, RefusesTimesATimePointCannotHold) {
  EXPECT_EQ(ParseTimestampMillis("2262-04-11T23:47:16Z"), 9223372036000);
  EXPECT_EQ(ParseTimestampMillis("1677-09-21T00:12:44Z"), -9223372036000);
  for (const char* far : {"2262-04-11T23:47:17Z", "4725-12-01T00:00:00Z", "9999-12-31T23:59:59Z",
                          "1677-09-21T00:12:43Z", "0001-01-01", "0000-01-01T00:00:00Z"})
    EXPECT_FALSE(ParseTimestampMillis(far).has_value()) << far;
}

TEST(TimeTextTest, FormatsInTheStyleOfASample) {
  const int64_t ms = 1795528920250;
  for (const char* sample : {"2026-01-01T00:00:00.000Z", "2026-01-01 00:00:00", "2026-01-01T00:00:00+00:00",
                             "2026-01-01", "2026-01-01 00:00:00.123456+00"}) {
    auto style = LearnTextTimeStyle(sample);
    ASSERT_TRUE(style.has_value()) << sample;
    std::string formatted = FormatTimestamp(ms, *style);
    EXPECT_EQ(formatted.size(), std::string(sample).size()) << sample << " -> " << formatted;
    auto back = ParseTimestampMillis(formatted);
    ASSERT_TRUE(back.has_value()) << formatted;
    EXPECT_EQ(*back, style->date_only ? 1795478400000 : style->fraction_digits ? ms : ms - 250);
  }
  EXPECT_EQ(FormatTimestamp(-1000, {false, 'T', 0, "Z"}), "1969-12-31T23:59:59Z");
}

}  // namespace
}  // namespace dw
