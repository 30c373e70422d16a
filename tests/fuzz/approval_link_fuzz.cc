// The signed approval link (actions::ReadApprovalLink), the token in the URL of the desk's approve
// page. The reader checks the token's HMAC before it reads the payload, so random bytes never get
// past the MAC; the first byte of the input chooses what the rest is:
//   0: the whole token as it arrives (random, truncated, bad base64, wrong MAC): refused with
//      kInvalidArgument or kPermissionDenied and a message, never accepted unless it was signed
//      with the key (a seed signed by make_seeds.py, or a mutation that kept it intact);
//   1: a payload, which this target signs with the fixed test key (its own base64url and HMAC,
//      through OpenSSL, not the product's) before handing the token over, so the JSON behind the
//      MAC is what gets fuzzed (bad JSON, wrong types, huge numbers, far expiries, unknown fields):
//      never refused as forged; accepted exactly when the payload has the five fields, well typed
//      and in range, and then read as the payload says;
//   2: the fields of a link (FuzzedDataProvider), signed by SignApprovalLink and read back: what
//      is signed reads back unchanged, or signing refuses it.
// The key is a fixed test key, not a secret; no message may contain it.
#include <fuzzer/FuzzedDataProvider.h>

#include <chrono>
#include <limits>
#include <string>

#include "actions/actions.h"
#include "tests/support/approval_token_signer.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using dw::StatusCode;
using dw::fuzz::Broken;

const std::string kKey = "dw-fuzz-approval-link-test-key-0123456789";  // 41 bytes, as make_seeds.py signs

std::string SignedToken(const std::string& payload) { return dw::testing::SignApprovalTokenForTest(kKey, payload); }

// What a TimePoint (nanoseconds in an int64_t) can hold, in milliseconds.
constexpr int64_t kMillisLimit =
    std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::duration::max()).count();

void CheckRefusal(const dw::Status& st) {
  if (st.ok()) Broken("a refusal without an error");
  if (st.code() != StatusCode::kInvalidArgument && st.code() != StatusCode::kPermissionDenied)
    Broken("a token refused with a code other than invalid argument or permission denied");
  if (st.message().empty()) Broken("a token refused without a message");
  if (st.message().find(kKey) != std::string::npos) Broken("the link key in an error message");
}

bool Same(const dw::actions::ApprovalLink& a, const dw::actions::ApprovalLink& b) {
  return a.approver == b.approver && a.proposal_id == b.proposal_id && a.version == b.version &&
         a.expires_at == b.expires_at && a.nonce == b.nonce;
}

// A link that was accepted signs again and reads back as itself.
void CheckResigns(const dw::actions::ApprovalLink& link) {
  auto again = dw::actions::SignApprovalLink(link, kKey);
  if (!again.ok()) Broken("an accepted link does not sign again");
  auto back = dw::actions::ReadApprovalLink(*again, kKey);
  if (!back.ok() || !Same(*back, link)) Broken("an accepted link, signed again, does not read back");
}

void WholeToken(const std::string& token) {
  auto link = dw::actions::ReadApprovalLink(token, kKey);
  if (!link.ok()) return CheckRefusal(link.status());
  CheckResigns(*link);
}

// The payload's five fields, when each has its type and a value a link can carry.
bool WellFormed(const dw::Json& j) {
  if (!j.is_object()) return false;
  for (const char* k : {"approver", "proposal", "nonce"})
    if (!j.contains(k) || !j[k].is_string()) return false;
  for (const char* k : {"version", "exp_ms"})
    if (!j.contains(k) || !j[k].is_number_integer() ||
        (j[k].is_number_unsigned() && j[k].get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())))
      return false;
  const int64_t exp_ms = j["exp_ms"].get<int64_t>();
  return j["version"].get<int64_t>() >= 1 && exp_ms <= kMillisLimit && exp_ms >= -kMillisLimit;
}

void SignedPayload(const std::string& payload) {
  const std::string token = SignedToken(payload);
  auto link = dw::actions::ReadApprovalLink(token, kKey);
  if (!link.ok()) {
    CheckRefusal(link.status());
    if (link.status().code() == StatusCode::kPermissionDenied) Broken("a token signed with the key refused as forged");
  }
  if (token.size() > 4096) {
    if (link.ok()) Broken("a token over 4096 bytes accepted");
    return;
  }
  const dw::Json j = dw::Json::parse(payload, nullptr, /*allow_exceptions=*/false);
  const bool well_formed = WellFormed(j);
  if (link.ok() != well_formed)
    Broken(link.ok() ? "a malformed payload accepted" : "a well-formed payload refused");
  if (!link.ok()) return;
  if (link->approver != j["approver"].get<std::string>() || link->proposal_id != j["proposal"].get<std::string>() ||
      link->nonce != j["nonce"].get<std::string>() || link->version != j["version"].get<int64_t>() ||
      dw::ToUnixMillis(link->expires_at) != j["exp_ms"].get<int64_t>())
    Broken("a link read differently from its payload");
  CheckResigns(*link);
}

void SignedFields(FuzzedDataProvider& in) {
  dw::actions::ApprovalLink link;
  link.approver = in.ConsumeRandomLengthString(2000);
  link.proposal_id = in.ConsumeRandomLengthString(2000);
  link.nonce = in.ConsumeRandomLengthString(2000);
  link.version = in.ConsumeIntegral<int64_t>();
  link.expires_at = dw::FromUnixMillis(in.ConsumeIntegralInRange<int64_t>(-kMillisLimit, kMillisLimit));
  auto token = dw::actions::SignApprovalLink(link, kKey);
  if (!token.ok()) {
    if (token.status().code() != StatusCode::kInvalidArgument || token.status().message().empty())
      Broken("signing refused without an invalid-argument error and a message");
    return;
  }
  auto back = dw::actions::ReadApprovalLink(*token, kKey);
  if (!back.ok()) Broken("a link that signed does not read back");
  if (!Same(*back, link)) Broken("a link read back differently from what was signed");
  // Any other key refuses it as forged.
  auto other = dw::actions::ReadApprovalLink(*token, kKey + "x");
  if (other.ok() || other.status().code() != StatusCode::kPermissionDenied)
    Broken("a link read with another key is not refused as forged");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: WholeToken(rest); break;
    case 1: SignedPayload(rest); break;
    default: {
      FuzzedDataProvider in(data + 1, size - 1);
      SignedFields(in);
    }
  }
  return 0;
}
