// Address ranges for desk.trusted_proxies: a peer inside counts, one outside never does.
#include "base/ip_range.h"

#include <gtest/gtest.h>

namespace dw {
namespace {

TEST(IpRangeTest, APeerCountsOnlyInsideTheRange) {
  auto r = ParseIpRange("10.0.0.0/8");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(InIpRange(*r, "10.1.2.3"));
  EXPECT_TRUE(InIpRange(*r, "::ffff:10.1.2.3")) << "a dual-stack socket's IPv4-mapped peer";
  EXPECT_FALSE(InIpRange(*r, "11.0.0.1"));
  EXPECT_FALSE(InIpRange(*r, "proxy"));
  EXPECT_FALSE(InIpRange(*r, ""));
  auto one = ParseIpRange("127.0.0.2");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->prefix, 32);
  EXPECT_TRUE(InIpRange(*one, "127.0.0.2"));
  EXPECT_FALSE(InIpRange(*one, "127.0.0.1"));
  auto v6 = ParseIpRange("fd00::/8");
  ASSERT_TRUE(v6.ok());
  EXPECT_TRUE(InIpRange(*v6, "fd12::1"));
  EXPECT_FALSE(InIpRange(*v6, "10.0.0.1"));
  auto odd = ParseIpRange("192.168.1.0/23");
  EXPECT_FALSE(odd.ok()) << "bits past the prefix";
  auto all = ParseIpRange("0.0.0.0/0");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(InIpRange(*all, "8.8.8.8"));
  EXPECT_FALSE(ParseIpRange("10.0.0.0/").ok());
  EXPECT_FALSE(ParseIpRange("10.0.0.0/-1").ok());
  EXPECT_FALSE(ParseIpRange("::/129").ok());
}

}  // namespace
}  // namespace dw
