#include <gtest/gtest.h>

#include "config/duration.h"

namespace dw::config {
namespace {

using namespace std::chrono;

TEST(ConfigDurationTest, ParsesEachUnit) {
  EXPECT_EQ(*ParseDuration("250ms"), milliseconds(250));
  EXPECT_EQ(*ParseDuration("90s"), seconds(90));
  EXPECT_EQ(*ParseDuration("30m"), minutes(30));
  EXPECT_EQ(*ParseDuration("2h"), hours(2));
  EXPECT_EQ(*ParseDuration("1d"), hours(24));
  EXPECT_EQ(*ParseDuration("2w"), hours(24 * 14));
  EXPECT_EQ(*ParseDuration("1h30m"), minutes(90));
}

TEST(ConfigDurationTest, RejectsWithAReason) {
  auto why = [](const char* text) { return ParseDuration(text).status().message(); };
  EXPECT_NE(why("30").find("'30' is not a duration: the unit is missing"), std::string::npos);
  EXPECT_NE(why("30x").find("unknown unit"), std::string::npos);
  EXPECT_NE(why("").find("it is empty"), std::string::npos);
  EXPECT_NE(why("-5m").find("negative"), std::string::npos);
  EXPECT_NE(why("0s").find("longer than zero"), std::string::npos);
  EXPECT_NE(why("1.5h").find("unknown unit"), std::string::npos);
  EXPECT_NE(why("2 hours").find("unknown unit"), std::string::npos);
  EXPECT_NE(why("99999999999999999999d").find("too large"), std::string::npos);
  EXPECT_NE(why("h").find("expected a digit"), std::string::npos);
  EXPECT_NE(why("30").find("e.g. 90s, 30m, 2h, 1d"), std::string::npos);
}

TEST(ConfigDurationTest, FormatsInTheLargestExactUnit) {
  EXPECT_EQ(FormatDuration(hours(2)), "2h");
  EXPECT_EQ(FormatDuration(seconds(90)), "90s");
  EXPECT_EQ(FormatDuration(milliseconds(1500)), "1500ms");
  EXPECT_EQ(FormatDuration(hours(48)), "2d");
  EXPECT_EQ(FormatDuration(milliseconds(0)), "0s");
  EXPECT_EQ(*ParseDuration(FormatDuration(minutes(90))), minutes(90));
}

}  // namespace
}  // namespace dw::config
