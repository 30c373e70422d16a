// The canonical encoding receipts are hashed over and decisions are signed over.
#include <gtest/gtest.h>

#include "actions/actions.h"

namespace dw::actions {
namespace {

TEST(CanonicalJsonTest, SortsKeysDropsWhitespaceAndKeepsUtf8) {
  Json j = Json::parse(R"({ "b": [1, -2, {"z": null, "a": true}], "a": "café \"q\"\n" })");
  Result<std::string> out = CanonicalJson(j);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, "{\"a\":\"café \\\"q\\\"\\n\",\"b\":[1,-2,{\"a\":true,\"z\":null}]}");
}

TEST(CanonicalJsonTest, EscapesControlCharactersInLowerCaseHex) {
  Result<std::string> out = CanonicalJson(Json(std::string("a\x01\x1f\tb")));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, "\"a\\u0001\\u001f\\tb\"");
}

TEST(CanonicalJsonTest, RefusesFractionsAndNamesThePath) {
  Result<std::string> out = CanonicalJson(Json{{"checks", {{{"observed", 0.25}}}}});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("$.checks[0].observed"), std::string::npos)
      << out.status().message();
}

TEST(CanonicalJsonTest, RefusesInvalidUtf8) {
  EXPECT_FALSE(CanonicalJson(Json(std::string("\xC0\xAF"))).ok());       // overlong '/'
  EXPECT_FALSE(CanonicalJson(Json(std::string("\xED\xA0\x80"))).ok());   // a surrogate
  EXPECT_FALSE(CanonicalJson(Json(std::string("abc\xE2\x82"))).ok());    // cut short
  EXPECT_TRUE(CanonicalJson(Json(std::string("\xF0\x9F\x98\x80"))).ok());  // U+1F600
}

TEST(CanonicalJsonTest, IntegerExtremesAreExact) {
  Result<std::string> out = CanonicalJson(Json::array({INT64_MIN, INT64_MAX, 0}));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, "[-9223372036854775808,9223372036854775807,0]");
  EXPECT_FALSE(CanonicalJson(Json(uint64_t{1} << 63)).ok());
}

TEST(CanonicalJsonTest, Sha256MatchesAKnownVector) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace dw::actions
