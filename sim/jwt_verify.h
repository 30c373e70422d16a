// RS256 JWT verification as the simulated token endpoints do it (Google's OAuth endpoint in
// bigquery_sim.cc, Snowflake's key-pair login in snowflake_sim.cc): the signature against a
// registered public key, then the claims the service checks itself.
#pragma once

#include <openssl/evp.h>

#include <optional>
#include <string>

#include "base/json.h"

namespace dw::sim {

// The claims of `jwt` when it is three base64url parts, its header says RS256 and its signature
// verifies with `key`; otherwise nullopt with `why` ("malformed", "alg must be RS256",
// "signature").
std::optional<Json> VerifyRs256Jwt(const std::string& jwt, EVP_PKEY* key, std::string* why);

// An integer claim, or -1 when it is absent or not an integer.
int64_t IntClaim(const Json& claims, const char* name);

}  // namespace dw::sim
