// JSON Web Tokens signed RS256 (RFC 7515/7519) with an RSA private key in PEM form, as the two
// warehouses reached over REST authenticate: Google's service-account grant (bigquery_auth.h) and
// Snowflake's key-pair JWT (snowflake_auth.h). OpenSSL's own error text is never passed on: it can
// quote the PEM it failed on.
#pragma once

#include <string>

#include "base/json.h"
#include "base/status.h"

namespace dw::warehouse {

// base64url(header).base64url(claims).base64url(signature) with header {"alg":"RS256","typ":"JWT"}.
// kInvalidArgument when `private_key_pem` is not an RSA private key in PEM form.
Result<std::string> SignRs256Jwt(const std::string& private_key_pem, const Json& claims);

// "SHA256:" + base64 of the SHA-256 of the DER SubjectPublicKeyInfo of the key's public half:
// what Snowflake shows as RSA_PUBLIC_KEY_FP and expects in a key-pair JWT's issuer.
// kInvalidArgument when the PEM is not an RSA private key.
Result<std::string> RsaPublicKeyFingerprint(const std::string& private_key_pem);

}  // namespace dw::warehouse
