// Approval-link tokens signed by the tests themselves: base64url and HMAC-SHA256 straight from
// OpenSSL, independent of the product's encoder, so that a test (or the approval_link fuzz target)
// can put any payload behind a valid MAC and reach the parser the MAC guards.
#pragma once

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <string>

namespace dw::testing {

// base64url without padding.
inline std::string Base64UrlForTest(const std::string& in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  out.resize(static_cast<size_t>(n));
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return out;
}

// A version-1 token over `payload` ("v1.<payload>.<mac>") whose MAC verifies under `key`.
inline std::string SignApprovalTokenForTest(const std::string& key, const std::string& payload) {
  const std::string body = "v1." + Base64UrlForTest(payload);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(body.data()),
       body.size(), mac, &len);
  return body + "." + Base64UrlForTest(std::string(reinterpret_cast<const char*>(mac), len));
}

}  // namespace dw::testing
