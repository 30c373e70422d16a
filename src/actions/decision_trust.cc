// Checking a recorded decision where it is used: the trust it is checked against (the workspace's
// declared keys, the desk's key), the seal the desk puts on decisions it takes without a person's
// signature, and VerifyRecordedDecision.
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <chrono>

#include "actions/actions.h"
#include "actions/identity.h"
#include "base/hex.h"

namespace dw::actions {

std::string KeyFingerprint(const std::string& public_key_pem) { return "sha256:" + Sha256Hex(public_key_pem); }

DecisionTrust TrustOf(const config::Workspace& workspace, const std::string& desk_key) {
  DecisionTrust t;
  for (const auto& [email, person] : workspace.people) t.declared_keys[email] = person.keys;
  t.desk_key = desk_key;
  return t;
}

DecisionTrust TrustOf(const config::Workspace& workspace) {
  return TrustOf(workspace, ApprovalLinkKeyFromEnvironment());
}

std::string DecisionSeal(const std::string& desk_key, const std::string& proof, const DecisionStatement& s) {
  // The proof's name is inside the MAC: a link's seal cannot be relabelled as the proxy's.
  const std::string payload = "data-workers decision seal v1\n" + proof + "\n" + StatementBytes(s);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (desk_key.empty() ||
      HMAC(EVP_sha256(), desk_key.data(), static_cast<int>(desk_key.size()),
           reinterpret_cast<const unsigned char*>(payload.data()), payload.size(), mac, &len) == nullptr)
    return "";
  return LowerHex(mac, len);
}

bool KeyDeclaredFor(const DecisionTrust& trust, const std::string& person, const std::string& fingerprint) {
  auto it = trust.declared_keys.find(person);
  return it != trust.declared_keys.end() &&
         std::find(it->second.begin(), it->second.end(), fingerprint) != it->second.end();
}

Status VerifyRecordedDecision(const store::ActionEventRecord& e, const std::string& proposal_id,
                              const DecisionTrust& trust, TimePoint now) {
  const Json& b = e.body;
  const bool object = b.is_object();
  const int64_t version = object ? b.value("version", int64_t{0}) : 0;
  const std::string person = object ? b.value("person", "") : "";
  const std::string who = person.empty() ? e.actor : person;
  auto refuse = [&](const std::string& why) {
    return PermissionDenied("the decision '" + e.kind + "' on " + proposal_id + " v" + std::to_string(version) +
                            " by " + who.substr(0, 120) + " (action event " + std::to_string(e.seq) +
                            ") does not verify: " + why);
  };
  if (e.kind != "approved" && e.kind != "denied") return refuse("it is not a decision");
  if (!object) return refuse("its body is not an object");
  if (person != e.actor) return refuse("the row's actor '" + e.actor.substr(0, 120) + "' is not the person it names");
  if (IsAgentIdentity(person) || !LooksLikePersonEmail(person)) return refuse("it does not name a person");
  const std::string verdict = b.value("decision", "");
  if ((e.kind == "approved") != (verdict == "approve") || (verdict != "approve" && verdict != "deny"))
    return refuse("the row says '" + e.kind + "' but the statement says '" + verdict.substr(0, 20) + "'");
  const std::string surface = b.value("surface", "");
  if (surface != "cli" && surface != "scenario" && surface != "web")
    return refuse("it came through '" + surface.substr(0, 20) + "', where no decision is taken");
  if (e.nonce.size() < 16) return refuse("its nonce is missing");
  if (!b.contains("signed_at_ms") || !b["signed_at_ms"].is_number_integer()) return refuse("it carries no signing time");
  DecisionStatement s{person,  proposal_id, version, verdict == "approve" ? Verdict::kApprove : Verdict::kDeny,
                      b.value("reason", ""), FromUnixMillis(b["signed_at_ms"].get<int64_t>()), e.nonce};
  if (s.at > now + kStatementSkew) return refuse("it is dated " + FormatRfc3339(s.at) + ", in the future");
  if (e.at > s.at + kStatementSkew || e.at < s.at - kStatementSkew)
    return refuse("it was signed at " + FormatRfc3339(s.at) + " but recorded at " + FormatRfc3339(e.at));
  const std::string proof = b.value("proof", "");
  if (proof == "signature") {
    const std::string pem = b.value("public_key", "");
    if (pem.empty()) return refuse("it carries no public key");
    const std::string fingerprint = KeyFingerprint(pem);
    if (!KeyDeclaredFor(trust, person, fingerprint))
      return refuse("its key " + fingerprint.substr(0, 23) + "... is not declared for " + person + " under people." +
                    person + ".keys in the workspace");
    if (!SignatureVerifies(StatementBytes(s), b.value("signature", ""), pem))
      return refuse("the signature does not verify with the key it names (forged or altered)");
    return Status::Ok();
  }
  if (proof == "signed_link" || proof == "trusted_proxy") {
    if (trust.desk_key.empty())
      return FailedPrecondition("the decision '" + e.kind + "' on " + proposal_id + " v" + std::to_string(version) +
                                " by " + person + " (action event " + std::to_string(e.seq) +
                                ") was taken on the desk and cannot be checked here: DW_APPROVAL_LINK_KEY is not set");
    const std::string expected = DecisionSeal(trust.desk_key, proof, s);
    const std::string got = b.value("seal", "");
    if (expected.empty() || got.size() != expected.size() ||
        CRYPTO_memcmp(got.data(), expected.data(), expected.size()) != 0)
      return refuse("the desk's seal does not verify (forged or altered)");
    return Status::Ok();
  }
  return refuse("its proof '" + proof.substr(0, 20) + "' is none Data Workers records");
}

}  // namespace dw::actions
