// Base64 (RFC 4648 section 4) and its URL-safe form (section 5, without padding, as JWTs and our
// approval tokens carry it): one implementation for every signature, key and token we encode.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dw {

// `bytes` in standard base64 with '=' padding.
std::string Base64(std::string_view bytes);

// `bytes` in base64url ('-' and '_'), without padding.
std::string Base64Url(std::string_view bytes);

// Decodes standard base64 (padding required) or base64url (padding optional); nullopt for any
// other character, a misplaced '=' or a length no encoder produces. Never throws: the input is
// untrusted (tokens, signatures, key files).
std::optional<std::string> DecodeBase64(std::string_view text);

}  // namespace dw
