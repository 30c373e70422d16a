// Internal to desk/: the unguessable tokens the desk hands out (CSRF tokens, reader session ids).
#pragma once

#include <string>

namespace dw::desk {

// 48 hex characters (24 bytes) from the OpenSSL RNG; "" when it fails.
std::string RandomHexToken();

}  // namespace dw::desk
