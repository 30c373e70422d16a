#include "desk/csrf_token.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <array>

#include "base/hex.h"
#include "desk/random_token.h"
#include "desk/request_parsing.h"

namespace dw::desk {
namespace {

// 32 random bytes drawn once per process; empty when the random number generator failed (then no
// token is made and none verifies).
const std::string& ProcessKey() {
  static const std::string key = [] {
    std::array<unsigned char, 32> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) return std::string();
    return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }();
  return key;
}

// Hex HMAC-SHA256 of nonce and binding (a newline between them: neither holds one that matters,
// the nonce is hex), or "" without a key.
std::string Mac(const std::string& nonce, const std::string& binding) {
  const std::string& key = ProcessKey();
  if (key.empty()) return "";
  const std::string message = nonce + "\n" + binding;
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(message.data()),
           message.size(), mac, &len) == nullptr)
    return "";
  return LowerHex(mac, len);
}

bool SameBytes(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

std::string NewCsrfToken(const std::string& binding) {
  const std::string nonce = RandomHexToken();
  const std::string mac = nonce.empty() ? "" : Mac(nonce, binding);
  return mac.empty() ? "" : nonce + "." + mac;
}

bool CsrfMatches(const std::string& cookie_header, const std::string& sent, const std::string& binding) {
  const std::string cookie = CookieValue(cookie_header, kCsrfCookie);
  if (cookie.empty() || !SameBytes(cookie, sent)) return false;
  const size_t dot = sent.find('.');
  if (dot == std::string::npos || dot == 0) return false;
  const std::string mac = Mac(sent.substr(0, dot), binding);
  return !mac.empty() && SameBytes(mac, sent.substr(dot + 1));
}

}  // namespace dw::desk
