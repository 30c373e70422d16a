#include <gtest/gtest.h>

#include "base/url_redaction.h"

namespace dw {
namespace {

TEST(PercentDecodedTest, DecodesEscapesAndLeavesEverythingElse) {
  EXPECT_EQ(PercentDecoded("p%40ss%2Fw%3Ard"), "p@ss/w:rd");
  EXPECT_EQ(PercentDecoded("%7e%7E"), "~~") << "either case of hex digit";
  EXPECT_EQ(PercentDecoded("100%"), "100%") << "a stray '%' at the end";
  EXPECT_EQ(PercentDecoded("%4"), "%4");
  EXPECT_EQ(PercentDecoded("%zz%4g"), "%zz%4g") << "not hex";
  EXPECT_EQ(PercentDecoded(""), "");
  EXPECT_EQ(PercentDecoded("%00a").size(), 2u) << "a NUL byte is a byte";
}

}  // namespace
}  // namespace dw
