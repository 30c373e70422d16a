// Signed approval links, the token itself: "v1.<base64url payload>.<base64url HMAC-SHA256>" over
// the canonical JSON of (approver, proposal, version, expiry, nonce) (see actions.h). Apart from
// issuing (approval_link.cc, which needs the store) so that the reader of untrusted tokens builds
// on its own (the fuzz target tests/fuzz/approval_link_fuzz.cc).
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>

#include "actions/actions.h"
#include "base/base64.h"

namespace dw::actions {
namespace {

constexpr size_t kMinKeyBytes = 32;
constexpr size_t kMaxTokenBytes = 4096;
// The milliseconds a TimePoint (nanoseconds in an int64_t) holds either side of 1970.
constexpr int64_t kMaxExpiryMillis =
    std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::duration::max()).count();

// A JSON integer that fits an int64_t (nlohmann counts an unsigned one above 2^63-1 as an integer).
bool Int64Field(const Json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number_integer()) return false;
  return !j[key].is_number_unsigned() || j[key].get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX);
}

std::string Mac(std::string_view payload, const std::string& key) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(payload.data()),
       payload.size(), mac, &len);
  return std::string(reinterpret_cast<const char*>(mac), len);
}

}  // namespace

Status CheckApprovalLinkKey(const std::string& key) {
  if (key.size() < kMinKeyBytes)
    return InvalidArgument("the approval link key must be at least 32 bytes (DW_APPROVAL_LINK_KEY)");
  // A key anyone could guess forges every link: 32 times the same letter, a word repeated, the
  // alphabet. Its bytes can only show that a key is weak, never that it is strong: the empirical
  // entropy of its bytes over the whole key, whether it repeats a shorter part of itself, and
  // whether it mostly steps by one constant (abcdef..., 0000...). A 32-character random hex key
  // measures about 117 bits and was never under 86 in 500,000 draws; the floor is 80.
  std::array<size_t, 256> counts{};
  for (unsigned char c : key) ++counts[c];
  double bits = 0;
  for (size_t n : counts)
    if (n > 0) bits -= static_cast<double>(n) * std::log2(static_cast<double>(n) / static_cast<double>(key.size()));
  bool periodic = false;
  for (size_t period = 1; period <= key.size() / 2 && !periodic; ++period) {
    if (key.size() % period != 0) continue;
    periodic = key.compare(period, std::string::npos, key, 0, key.size() - period) == 0;
  }
  size_t steps = 0;
  for (size_t i = 2; i < key.size(); ++i)
    steps += static_cast<unsigned char>(key[i]) - static_cast<unsigned char>(key[i - 1]) ==
             static_cast<unsigned char>(key[i - 1]) - static_cast<unsigned char>(key[i - 2]);
  const char* why = periodic           ? ": it repeats a shorter part of itself"
                    : 2 * steps > key.size() ? ": it is mostly a run of characters"
                    : bits < 80              ? ": its characters repeat too much"
                                             : nullptr;
  if (why != nullptr)
    return InvalidArgument(std::string("the approval link key (DW_APPROVAL_LINK_KEY) is too easy to guess") + why +
                           "; make one with: openssl rand -hex 32");
  return Status::Ok();
}

Result<std::string> SignApprovalLink(const ApprovalLink& link, const std::string& key) {
  DW_RETURN_IF_ERROR(CheckApprovalLinkKey(key));
  Json payload = {{"approver", link.approver},
                  {"proposal", link.proposal_id},
                  {"version", link.version},
                  {"exp_ms", ToUnixMillis(link.expires_at)},
                  {"nonce", link.nonce}};
  if (link.version < 1) return InvalidArgument("an approval link is for a proposal version from 1");
  auto bytes = CanonicalJson(payload);
  if (!bytes.ok()) return bytes.status();
  const std::string body = Base64Url(*bytes);
  std::string token = "v1." + body + "." + Base64Url(Mac("v1." + body, key));
  // ReadApprovalLink refuses longer tokens; one is never made that cannot be read.
  if (token.size() > kMaxTokenBytes)
    return InvalidArgument("the approval link would be longer than " + std::to_string(kMaxTokenBytes) +
                           " characters (an approver, proposal id or nonce far too long)");
  return token;
}

Result<ApprovalLink> ReadApprovalLink(const std::string& token, const std::string& key) {
  DW_RETURN_IF_ERROR(CheckApprovalLinkKey(key));
  const size_t dot = token.rfind('.');
  if (token.size() > kMaxTokenBytes || token.rfind("v1.", 0) != 0 || dot == std::string::npos || dot < 3)
    return InvalidArgument("not an approval link");
  auto mac = DecodeBase64(std::string_view(token).substr(dot + 1));
  const std::string expected = Mac(std::string_view(token).substr(0, dot), key);
  if (!mac || mac->size() != expected.size() || CRYPTO_memcmp(mac->data(), expected.data(), expected.size()) != 0)
    return PermissionDenied("the approval link does not verify (forged, altered, or made by another server)");
  auto bytes = DecodeBase64(std::string_view(token).substr(3, dot - 3));
  if (!bytes) return InvalidArgument("not an approval link");
  Json j = Json::parse(*bytes, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("approver") || !j["approver"].is_string() || !j.contains("proposal") ||
      !j["proposal"].is_string() || !Int64Field(j, "version") || !Int64Field(j, "exp_ms") || !j.contains("nonce") ||
      !j["nonce"].is_string())
    return InvalidArgument("the approval link's payload is malformed");
  // Only what SignApprovalLink makes: a version from 1 and an expiry a TimePoint holds (a larger
  // one would overflow turning milliseconds into the clock's nanoseconds; found by the
  // approval_link fuzz target).
  const int64_t version = j["version"].get<int64_t>(), exp_ms = j["exp_ms"].get<int64_t>();
  if (version < 1 || exp_ms > kMaxExpiryMillis || exp_ms < -kMaxExpiryMillis)
    return InvalidArgument("the approval link's payload is malformed (version or expiry out of range)");
  return ApprovalLink{j["approver"].get<std::string>(), j["proposal"].get<std::string>(), version,
                      FromUnixMillis(exp_ms), j["nonce"].get<std::string>()};
}

}  // namespace dw::actions
