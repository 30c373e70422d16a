#include <gtest/gtest.h>

#include "config/suggest.h"

namespace dw::config {
namespace {

TEST(ConfigSuggestTest, EditDistance) {
  EXPECT_EQ(EditDistance("warehouse", "warehouses"), 1u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
}

TEST(ConfigSuggestTest, SuggestsOnlyLikelyTypos) {
  std::vector<std::string> keys = {"warehouses", "platforms", "domains", "monitors"};
  EXPECT_EQ(ClosestName("warehouse", keys), "warehouses");
  EXPECT_EQ(ClosestName("platfroms", keys), "platforms");
  EXPECT_EQ(ClosestName("colour", keys), "");
  EXPECT_EQ(DidYouMean("domain", keys), "; did you mean 'domains'?");
  EXPECT_EQ(DidYouMean("zzz", keys), "");
}

}  // namespace
}  // namespace dw::config
