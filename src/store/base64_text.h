// Bytes as base64 text and back: how the store keeps opaque binary state (a detector snapshot) in
// a TEXT column that both SQLite and PostgreSQL hold as is (PostgreSQL text cannot hold a NUL).
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace dw::store {

// Standard base64 (RFC 4648, with padding).
std::string Base64Encode(std::string_view bytes);
// The bytes of `text`; DataLoss naming the offset of the first character that is not base64 or
// when the length is not a multiple of 4.
Result<std::string> Base64Decode(std::string_view text);

}  // namespace dw::store
