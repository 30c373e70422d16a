// Internal to actions/: the pieces of the identity check that Decide() combines. Surfaces never
// include this; they go through actions.h.
#pragma once

#include <string>

namespace dw::actions {

// True for a name@domain address that is not an agent identity.
bool LooksLikePersonEmail(const std::string& who);
// True for the identities agents act under ("agent:<name>", "dw-<agent>").
bool IsAgentIdentity(const std::string& who);
// 32 hex characters from the OpenSSL RNG ("" if the RNG fails).
std::string NewNonce();
// Whether `signature_b64` is a valid Ed25519 signature of `statement_bytes` by `public_key_pem`.
bool SignatureVerifies(const std::string& statement_bytes, const std::string& signature_b64,
                       const std::string& public_key_pem);

}  // namespace dw::actions
