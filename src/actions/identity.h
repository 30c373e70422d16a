// Internal to actions/: the pieces of the identity check that Decide() combines. Surfaces never
// include this; they go through actions.h.
#pragma once

#include <chrono>
#include <string>

#include "actions/actions.h"
#include "base/person_identity.h"

namespace dw::actions {

// LooksLikePersonEmail and IsAgentIdentity are base/person_identity.h's.
// 32 hex characters from the OpenSSL RNG ("" if the RNG fails).
std::string NewNonce();
// Whether `signature_b64` is a valid Ed25519 signature of `statement_bytes` by `public_key_pem`.
bool SignatureVerifies(const std::string& statement_bytes, const std::string& signature_b64,
                       const std::string& public_key_pem);

// A signed statement older or newer than this is refused even when its nonce is fresh: a
// statement is made for now, not saved up. A recorded decision's row time must be this close to
// its statement's.
inline constexpr std::chrono::minutes kStatementSkew{10};

// The desk's seal on a decision it took without the person's signature (`proof` "signed_link" or
// "trusted_proxy"): lower-case hex HMAC-SHA256 with `desk_key` over the proof and
// StatementBytes(s). "" for an empty key.
std::string DecisionSeal(const std::string& desk_key, const std::string& proof, const DecisionStatement& s);

// Whether `trust` declares `fingerprint` (KeyFingerprint) for `person`.
bool KeyDeclaredFor(const DecisionTrust& trust, const std::string& person, const std::string& fingerprint);

}  // namespace dw::actions
