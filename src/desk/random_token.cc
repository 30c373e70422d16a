#include "desk/random_token.h"

#include <openssl/rand.h>

#include "base/hex.h"

namespace dw::desk {

std::string RandomHexToken() {
  unsigned char bytes[24];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return "";
  return LowerHex(bytes, sizeof bytes);
}

}  // namespace dw::desk
