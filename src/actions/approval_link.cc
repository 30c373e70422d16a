// Signed approval links: HMAC-SHA256 tokens binding an approver, a proposal version, an expiry and
// a single-use nonce (see actions.h).
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cstdlib>

#include "actions/actions.h"
#include "actions/approval_log.h"
#include "actions/identity.h"
#include "base/redaction.h"

namespace dw::actions {
namespace {

constexpr size_t kMinKeyBytes = 32;

std::string Base64Url(std::string_view in) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int k = 18; k >= 0; k -= 6) out.push_back(kAlphabet[(v >> k) & 63]);
  }
  if (i + 1 == in.size()) {
    const uint32_t v = uint8_t(in[i]) << 16;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
  } else if (i + 2 == in.size()) {
    const uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    for (int k = 18; k >= 6; k -= 6) out.push_back(kAlphabet[(v >> k) & 63]);
  }
  return out;
}

std::optional<std::string> Unbase64Url(std::string_view in) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-') return 62;
    if (c == '_') return 63;
    return -1;
  };
  if (in.size() % 4 == 1) return std::nullopt;
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    const int v = val(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

std::string Mac(std::string_view payload, const std::string& key) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(payload.data()),
       payload.size(), mac, &len);
  return std::string(reinterpret_cast<const char*>(mac), len);
}

}  // namespace

Result<std::string> SignApprovalLink(const ApprovalLink& link, const std::string& key) {
  if (key.size() < kMinKeyBytes)
    return InvalidArgument("the approval link key must be at least 32 bytes (DW_APPROVAL_LINK_KEY)");
  Json payload = {{"approver", link.approver},
                  {"proposal", link.proposal_id},
                  {"version", link.version},
                  {"exp_ms", ToUnixMillis(link.expires_at)},
                  {"nonce", link.nonce}};
  auto bytes = CanonicalJson(payload);
  if (!bytes.ok()) return bytes.status();
  const std::string body = Base64Url(*bytes);
  return "v1." + body + "." + Base64Url(Mac("v1." + body, key));
}

Result<ApprovalLink> ReadApprovalLink(const std::string& token, const std::string& key) {
  if (key.size() < kMinKeyBytes)
    return InvalidArgument("the approval link key must be at least 32 bytes (DW_APPROVAL_LINK_KEY)");
  const size_t dot = token.rfind('.');
  if (token.size() > 4096 || token.rfind("v1.", 0) != 0 || dot == std::string::npos || dot < 3)
    return InvalidArgument("not an approval link");
  auto mac = Unbase64Url(std::string_view(token).substr(dot + 1));
  const std::string expected = Mac(std::string_view(token).substr(0, dot), key);
  if (!mac || mac->size() != expected.size() || CRYPTO_memcmp(mac->data(), expected.data(), expected.size()) != 0)
    return PermissionDenied("the approval link does not verify (forged, altered, or made by another server)");
  auto bytes = Unbase64Url(std::string_view(token).substr(3, dot - 3));
  if (!bytes) return InvalidArgument("not an approval link");
  Json j = Json::parse(*bytes, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("approver") || !j["approver"].is_string() || !j.contains("proposal") ||
      !j["proposal"].is_string() || !j.contains("version") || !j["version"].is_number_integer() ||
      !j.contains("exp_ms") || !j["exp_ms"].is_number_integer() || !j.contains("nonce") || !j["nonce"].is_string())
    return InvalidArgument("the approval link's payload is malformed");
  return ApprovalLink{j["approver"].get<std::string>(), j["proposal"].get<std::string>(), j["version"].get<int64_t>(),
                      FromUnixMillis(j["exp_ms"].get<int64_t>()), j["nonce"].get<std::string>()};
}

Result<std::string> IssueApprovalLink(store::StateStore& store, const std::string& proposal_id,
                                      const std::string& approver, const std::string& key, const Clock& clock) {
  auto st = GetProposalState(store, proposal_id, 0, clock);
  if (!st.ok()) return st.status();
  const std::string pv = proposal_id + " v" + std::to_string(st->record.version);
  if (st->status != ProposalStatus::kPending || !st->request)
    return FailedPrecondition(pv + " is " + ProposalStatusName(st->status) + ", not waiting for a decision");
  const auto& approvers = st->request->approvers;
  if (std::find(approvers.begin(), approvers.end(), approver) == approvers.end())
    return FailedPrecondition(approver + " is not an approver of " + pv);
  if (st->record.body.value("author", "") == approver)
    return FailedPrecondition(approver + " wrote " + pv + " and cannot decide it");
  ApprovalLink link{approver, proposal_id, st->record.version, st->request->expires_at, NewNonce()};
  if (link.nonce.empty()) return Internal("the random number generator failed");
  auto token = SignApprovalLink(link, key);
  if (!token.ok()) return token.status();
  Json body = {{"version", link.version}, {"approver", approver}, {"expires_at", FormatRfc3339(link.expires_at)}};
  auto seq = Record(store, clock, "link_issued", ProposalSubject(proposal_id), approver, body);
  if (!seq.ok()) return seq.status();
  return token;
}

}  // namespace dw::actions

namespace dw::actions {

std::string ApprovalLinkKeyFromEnvironment() {
  const char* k = std::getenv("DW_APPROVAL_LINK_KEY");
  if (k == nullptr || *k == '\0') return "";
  RegisterSecret(k);
  return k;
}

platforms::notify::ApprovalLinkSigner ApprovalLinkSignerFor(const std::string& key) {
  if (key.empty()) return {};
  return [key](const platforms::notify::ApprovalLinkSpec& l) -> Result<std::string> {
    return SignApprovalLink({l.approver, l.proposal_id, l.version, FromUnixMillis(l.expires_at_ms), l.nonce}, key);
  };
}

}  // namespace dw::actions
