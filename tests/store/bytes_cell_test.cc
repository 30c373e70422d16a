// Bytes cells: every byte value survives the trip through each backend's spelling, and a damaged
// PostgreSQL hex cell is an error naming where, never bytes made up.
#include "store/bytes_cell.h"

#include <gtest/gtest.h>

namespace dw::store {
namespace {

std::string EveryByte() {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  return all;
}

TEST(BytesCellTest, EveryByteRoundTripsOnBothBackends) {
  for (std::string backend : {"sqlite", "postgresql"}) {
    auto back = BytesFromCell(backend, BytesParamValue(backend, EveryByte()));
    ASSERT_TRUE(back.ok()) << backend << ": " << back.status().ToString();
    EXPECT_EQ(*back, EveryByte()) << backend;
  }
  EXPECT_EQ(BytesParamValue("postgresql", std::string("\0\xff", 2)), "00ff");
  EXPECT_EQ(BytesParamSql("postgresql", 5), "decode($5, 'hex')");
  EXPECT_EQ(BytesParamSql("sqlite", 5), "CAST($5 AS BLOB)");
}

TEST(BytesCellTest, ADamagedHexCellIsDataLossWithItsOffset) {
  auto odd = BytesFromCell("postgresql", "abc");
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(odd.status().message().find("odd length 3"), std::string::npos);
  auto bad = BytesFromCell("postgresql", "00zz");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("offset 2"), std::string::npos) << bad.status().ToString();
}

}  // namespace
}  // namespace dw::store
