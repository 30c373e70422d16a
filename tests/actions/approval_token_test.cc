// The signed approval link's token (actions/approval_token.cc): what the reader refuses behind a
// valid MAC, and what the signer refuses to make. Payloads are signed here with the key, as the
// approval_link fuzz target signs them, to reach the parser the MAC guards.
#include <gtest/gtest.h>

#include <random>

#include "actions/actions.h"
#include "tests/support/approval_token_signer.h"

namespace dw::actions {
namespace {

const std::string kKey = "dw-test-approval-link-key-0123456789abcdef";

std::string Signed(const std::string& payload) { return dw::testing::SignApprovalTokenForTest(kKey, payload); }

std::string Payload(const std::string& version, const std::string& exp_ms) {
  return R"({"approver":"ana@example.com","exp_ms":)" + exp_ms + R"(,"nonce":"n1","proposal":"P-hold","version":)" +
         version + "}";
}

TEST(ApprovalTokenTest, AWellFormedSignedPayloadReadsAsItSays) {
  auto link = ReadApprovalLink(Signed(Payload("3", "1795615200000")), kKey);
  ASSERT_TRUE(link.ok()) << link.status().ToString();
  EXPECT_EQ(link->approver, "ana@example.com");
  EXPECT_EQ(link->proposal_id, "P-hold");
  EXPECT_EQ(link->version, 3);
  EXPECT_EQ(ToUnixMillis(link->expires_at), 1795615200000);
  EXPECT_EQ(link->nonce, "n1");
}

// Found by tests/fuzz/ (fuzz_approval_link; the input is
// tests/fuzz/regressions/approval_link/ubsan-expiry-past-2262): an exp_ms past what a TimePoint
// holds (the year 2262) overflowed turning milliseconds into nanoseconds, undefined behaviour.
TEST(ApprovalTokenFuzzRegression, AnExpiryPastWhatATimePointHoldsIsMalformed) {
  for (const char* exp : {"9223372036855", "-9223372036855", "9223372036854775807", "-9223372036854775808"}) {
    auto link = ReadApprovalLink(Signed(Payload("1", exp)), kKey);
    ASSERT_FALSE(link.ok()) << exp;
    EXPECT_EQ(link.status().code(), StatusCode::kInvalidArgument) << exp;
    EXPECT_NE(link.status().message().find("out of range"), std::string::npos) << link.status().message();
  }
  // The last millisecond a TimePoint holds is still a link.
  EXPECT_TRUE(ReadApprovalLink(Signed(Payload("1", "9223372036854")), kKey).ok());
}

TEST(ApprovalTokenTest, AVersionBelowOneOrBeyondInt64IsMalformed) {
  for (const char* v : {"0", "-1", "18446744073709551615", "9223372036854775808", "1.5", "\"2\""}) {
    auto link = ReadApprovalLink(Signed(Payload(v, "1795615200000")), kKey);
    ASSERT_FALSE(link.ok()) << v;
    EXPECT_EQ(link.status().code(), StatusCode::kInvalidArgument) << v;
  }
}

TEST(ApprovalTokenTest, BadJsonAndMissingFieldsBehindAGoodMacAreMalformedNotForged) {
  for (const std::string& p : {std::string("{"), std::string("[]"), std::string("null"),
                              std::string(R"({"approver":"a","proposal":"P","version":1,"exp_ms":1})")}) {
    auto link = ReadApprovalLink(Signed(p), kKey);
    ASSERT_FALSE(link.ok()) << p;
    EXPECT_EQ(link.status().code(), StatusCode::kInvalidArgument) << p;
    EXPECT_NE(link.status().message().find("malformed"), std::string::npos) << link.status().message();
  }
}

TEST(ApprovalTokenTest, TheSignerMakesNoTokenTheReaderWouldRefuse) {
  ApprovalLink link{"ana@example.com", "P-hold", 0, FromUnixMillis(1795615200000), "n1"};
  auto zero = SignApprovalLink(link, kKey);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().code(), StatusCode::kInvalidArgument);
  link.version = 1;
  link.nonce = std::string(4000, 'n');
  auto long_token = SignApprovalLink(link, kKey);
  ASSERT_FALSE(long_token.ok());
  EXPECT_NE(long_token.status().message().find("4096"), std::string::npos) << long_token.status().message();
  link.nonce = "n1";
  auto token = SignApprovalLink(link, kKey);
  ASSERT_TRUE(token.ok()) << token.status().ToString();
  auto back = ReadApprovalLink(*token, kKey);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->nonce, "n1");
  EXPECT_EQ(ReadApprovalLink(*token, kKey + "x").status().code(), StatusCode::kPermissionDenied);
}

// A guessable key forges every link: refused for signing and for reading, saying how to make one.
// Keys made as the docs say (random hex or base64, generated here from seeds) all pass.
TEST(ApprovalTokenTest, AGuessableKeyIsRefusedAndRandomKeysPass) {
  const ApprovalLink link{"ana@example.com", "P-hold", 1, FromUnixMillis(1795615200000), "n1"};
  for (const std::string& weak :
       {std::string(32, 'a'), std::string(64, 'a'), std::string("abababababababababababababababab"),
        std::string("passwordpasswordpasswordpassword"), std::string("0123456789abcdef0123456789abcdef"),
        std::string("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"), std::string("abcdefghijklmnopqrstuvwxyz012345"),
        }) {
    auto signed_with = SignApprovalLink(link, weak);
    ASSERT_FALSE(signed_with.ok()) << weak;
    EXPECT_EQ(signed_with.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(signed_with.status().message().find("openssl rand"), std::string::npos) << signed_with.status().message();
    EXPECT_EQ(signed_with.status().message().find(weak), std::string::npos) << "the key in its own error";
    EXPECT_FALSE(ReadApprovalLink(*SignApprovalLink(link, kKey), weak).ok()) << weak;
  }
  std::mt19937_64 rng(20261206);
  const std::string hex = "0123456789abcdef";
  const std::string b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (int i = 0; i < 2000; ++i) {
    std::string key;
    const bool as_hex = i % 2 == 0;
    const size_t length = as_hex ? (i % 4 == 0 ? 32 : 64) : 44;
    for (size_t j = 0; j < length; ++j) key += as_hex ? hex[rng() % 16] : b64[rng() % 64];
    EXPECT_TRUE(CheckApprovalLinkKey(key).ok()) << key << ": " << CheckApprovalLinkKey(key).ToString();
  }
}

}  // namespace
}  // namespace dw::actions
