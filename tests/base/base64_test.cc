// base/base64.h against RFC 4648's test vectors and, for random bytes, against OpenSSL's encoder
// (an independent implementation); decoding refuses what no encoder produces.
#include "base/base64.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <random>

namespace dw {
namespace {

TEST(Base64Test, Rfc4648Vectors) {
  const std::pair<const char*, const char*> kVectors[] = {{"", ""},         {"f", "Zg=="},     {"fo", "Zm8="},
                                                          {"foo", "Zm9v"},  {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
                                                          {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : kVectors) {
    EXPECT_EQ(Base64(plain), encoded);
    std::string url = encoded;
    while (!url.empty() && url.back() == '=') url.pop_back();
    EXPECT_EQ(Base64Url(plain), url);
    EXPECT_EQ(DecodeBase64(encoded), std::optional<std::string>(plain)) << encoded;
    EXPECT_EQ(DecodeBase64(url), std::optional<std::string>(plain)) << url;
  }
}

TEST(Base64Test, RandomBytesMatchOpenSslAndRoundTrip) {
  std::mt19937 rng(20261207);
  for (int i = 0; i < 500; ++i) {
    std::string bytes(rng() % 70, '\0');
    for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
    std::string expected(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(expected.data()),
                            reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
    expected.resize(static_cast<size_t>(n));
    ASSERT_EQ(Base64(bytes), expected);
    std::string url = Base64Url(bytes);
    EXPECT_EQ(url.find_first_of("+/="), std::string::npos) << url;
    EXPECT_EQ(DecodeBase64(url), std::optional<std::string>(bytes));
    EXPECT_EQ(DecodeBase64(expected), std::optional<std::string>(bytes));
  }
}

TEST(Base64Test, RefusesWhatNoEncoderProduces) {
  for (const char* bad : {"Zg=", "Z", "Zm9v=", "Zg==Zg==", "Zm9v!", "Zh==", "Zm9=", "====", "Zm 9v"})
    EXPECT_EQ(DecodeBase64(bad), std::nullopt) << bad;
}

}  // namespace
}  // namespace dw
