// The single identity check: who may decide a proposal, with what proof, and when.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include <filesystem>
#include <sys/stat.h>

#include "tests/actions/actions_test_support.h"

namespace dw::actions {
namespace {

using test_support::ActionsFixture;
using ::testing::HasSubstr;

class DecideTest : public ActionsFixture {};

TEST_F(DecideTest, AnApproverApprovesWithTheirSignedStatement) {
  Propose("P-1");
  DecisionOutcome out = DecideAs("ana@example.com", "P-1", 1, Verdict::kApprove, "looks right");
  EXPECT_TRUE(out.accepted) << out.reason;
  Result<ProposalState> st = GetProposalState(*store_, Trust(), "P-1", 1, clock_);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->status, ProposalStatus::kApproved);
  EXPECT_EQ(st->decided_by, "ana@example.com");
  EXPECT_EQ(st->decision_surface, "cli");
}

TEST_F(DecideTest, NeverTwice) {
  Propose("P-1");
  ASSERT_TRUE(DecideAs("ana@example.com", "P-1", 1, Verdict::kApprove).accepted);
  DecisionOutcome second = DecideAs("bo@example.com", "P-1", 1, Verdict::kDeny, "no");
  EXPECT_FALSE(second.accepted);
  EXPECT_THAT(second.reason, HasSubstr("already approved"));
  EXPECT_EQ(StatusOf("P-1"), ProposalStatus::kApproved);
}

TEST_F(DecideTest, DenialIsFinalAndNeedsAReason) {
  Propose("P-1");
  EXPECT_THAT(DecideAs("ana@example.com", "P-1", 1, Verdict::kDeny, "").reason,
              HasSubstr("needs a reason"));
  ASSERT_TRUE(DecideAs("ana@example.com", "P-1", 1, Verdict::kDeny, "wrong savepoint").accepted);
  EXPECT_FALSE(DecideAs("bo@example.com", "P-1", 1, Verdict::kApprove).accepted);
  Result<ProposalState> st = GetProposalState(*store_, Trust(), "P-1", 1, clock_);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->status, ProposalStatus::kDenied);
  EXPECT_EQ(st->decision_reason, "wrong savepoint");
}

TEST_F(DecideTest, NeverTheAuthor) {
  Propose("P-1", "bo@example.com");
  DecisionOutcome out = DecideAs("bo@example.com", "P-1", 1, Verdict::kApprove);
  EXPECT_FALSE(out.accepted);
  EXPECT_THAT(out.reason, HasSubstr("wrote P-1 v1"));
  EXPECT_TRUE(DecideAs("ana@example.com", "P-1", 1, Verdict::kApprove).accepted);
}

TEST_F(DecideTest, NeverANonApprover) {
  Propose("P-1");
  DecisionOutcome out = DecideAs("eve@example.com", "P-1", 1, Verdict::kApprove);
  EXPECT_FALSE(out.accepted);
  EXPECT_THAT(out.reason, HasSubstr("not an approver"));
  EXPECT_EQ(StatusOf("P-1"), ProposalStatus::kPending);
}

TEST_F(DecideTest, NeverOverMcpAndNeverAnAgent) {
  Propose("P-1");
  EXPECT_THAT(DecideAs("ana@example.com", "P-1", 1, Verdict::kApprove, "", "mcp").reason,
              HasSubstr("never taken over MCP"));
  // An agent identity cannot even get a key, so it cannot sign.
  EXPECT_FALSE(IssuePersonKey(*store_, "agent:dw-incidents", clock_, "test").ok());
  DecisionStatement s = NewStatement("agent:dw-incidents", "P-1", 1, Verdict::kApprove, "", clock_);
  Result<DecisionOutcome> out = Decide(*store_, Trust(), {s, "cli", "AAAA"}, clock_);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->accepted);
  EXPECT_THAT(out->reason, HasSubstr("is an agent"));
  EXPECT_EQ(StatusOf("P-1"), ProposalStatus::kPending);
}

TEST_F(DecideTest, AForgedSignatureIsRefusedAndRecorded) {
  Propose("P-1");
  KeyOf("ana@example.com");
  // Signed by eve's key but claiming to be ana.
  DecisionStatement s = NewStatement("ana@example.com", "P-1", 1, Verdict::kApprove, "", clock_);
  Result<std::string> sig = SignStatement(s, KeyOf("eve@example.com"));
  ASSERT_TRUE(sig.ok());
  int refused_before = CountEvents("refused");
  Result<DecisionOutcome> out = Decide(*store_, Trust(), {s, "cli", *sig}, clock_);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->accepted);
  EXPECT_THAT(out->reason, HasSubstr("does not verify"));
  EXPECT_EQ(CountEvents("refused"), refused_before + 1);
  // A signature over a different statement (the verdict altered after signing).
  Result<std::string> good = SignStatement(s, KeyOf("ana@example.com"));
  ASSERT_TRUE(good.ok());
  DecisionStatement altered = s;
  altered.verdict = Verdict::kDeny;
  altered.reason = "x";
  out = Decide(*store_, Trust(), {altered, "cli", *good}, clock_);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->accepted);
  EXPECT_EQ(StatusOf("P-1"), ProposalStatus::kPending);
}

TEST_F(DecideTest, AReplayedSignatureIsRefused) {
  Propose("P-1");
  DecisionStatement s = NewStatement("ana@example.com", "P-1", 1, Verdict::kApprove, "", clock_);
  Result<std::string> sig = SignStatement(s, KeyOf("ana@example.com"));
  ASSERT_TRUE(sig.ok());
  ASSERT_TRUE(Decide(*store_, Trust(), {s, "cli", *sig}, clock_)->accepted);
  // The same signed statement again, after a new version was drafted and sent.
  ProposalDraft d{"P-1", "INC-1", "loyalty", "hold", "agent:dw-incidents", {{"v", 2}}};
  ASSERT_TRUE(StoreProposal(*store_, d, clock_).ok());
  ASSERT_TRUE(SendForApproval(*store_, ws_, "P-1", clock_, "agent:dw-incidents").ok());
  Result<DecisionOutcome> again = Decide(*store_, Trust(), {s, "cli", *sig}, clock_);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->accepted);
  EXPECT_THAT(again->reason, HasSubstr("replayed"));
}

TEST_F(DecideTest, AStaleStatementIsRefused) {
  Propose("P-1");
  DecisionStatement s = NewStatement("ana@example.com", "P-1", 1, Verdict::kApprove, "", clock_);
  Result<std::string> sig = SignStatement(s, KeyOf("ana@example.com"));
  clock_.Advance(std::chrono::minutes(30));
  Result<DecisionOutcome> out = Decide(*store_, Trust(), {s, "cli", *sig}, clock_);
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(out->reason, HasSubstr("more than 10 minutes"));
}

TEST_F(DecideTest, AReissuedKeyRetiresTheOldOne) {
  Propose("P-1");
  std::string old_key = KeyOf("ana@example.com");
  ASSERT_TRUE(IssuePersonKey(*store_, "ana@example.com", clock_, "test").ok());
  DecisionStatement s = NewStatement("ana@example.com", "P-1", 1, Verdict::kApprove, "", clock_);
  Result<DecisionOutcome> out = Decide(*store_, Trust(), {s, "cli", *SignStatement(s, old_key)}, clock_);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->accepted);
}

TEST_F(DecideTest, UnknownUnsentAndSupersededProposalsAreRefusedWithTheReason) {
  EXPECT_THAT(DecideAs("ana@example.com", "P-404", 1, Verdict::kApprove).reason,
              HasSubstr("no proposal P-404"));
  ProposalDraft d{"P-2", "INC-1", "loyalty", "hold", "agent:dw-incidents", {}};
  ASSERT_TRUE(StoreProposal(*store_, d, clock_).ok());
  EXPECT_THAT(DecideAs("ana@example.com", "P-2", 1, Verdict::kApprove).reason,
              HasSubstr("never sent"));
  ASSERT_TRUE(SendForApproval(*store_, ws_, "P-2", clock_, "agent:dw-incidents").ok());
  ASSERT_TRUE(StoreProposal(*store_, d, clock_).ok());  // version 2 supersedes version 1
  EXPECT_THAT(DecideAs("ana@example.com", "P-2", 1, Verdict::kApprove).reason,
              HasSubstr("superseded by version 2"));
  EXPECT_THAT(DecideAs("ana@example.com", "P-2", 3, Verdict::kApprove).reason,
              HasSubstr("no version 3"));
}

TEST_F(DecideTest, StoredVersionsNeverChange) {
  ProposalDraft d{"P-3", "INC-1", "loyalty", "hold", "agent:dw-incidents", {{"a", 1}}};
  Result<store::ProposalRecord> v1 = StoreProposal(*store_, d, clock_);
  ASSERT_TRUE(v1.ok());
  store::ProposalRecord again = *v1;
  again.body = {{"a", 2}};
  EXPECT_EQ(store_->AddProposal(again).code(), StatusCode::kAlreadyExists);
  auto versions = store_->ProposalVersions("P-3");
  ASSERT_TRUE(versions.ok());
  ASSERT_EQ(versions->size(), 1u);
  EXPECT_EQ((*versions)[0].body["content"]["a"], 1);
}

TEST_F(DecideTest, KeyFilesAreTheOwnersOnlyAndNeverOverwritten) {
  Result<IssuedKey> k = IssuePersonKey(*store_, "ana@example.com", clock_, "test");
  ASSERT_TRUE(k.ok());
  std::string path = (std::filesystem::temp_directory_path() /
                      ("dw-key-" + std::to_string(::getpid()) + ".pem")).string();
  std::filesystem::remove(path);
  ASSERT_TRUE(WritePrivateKeyFile(path, k->private_key_pem).ok());
  struct stat st{};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  EXPECT_EQ(WritePrivateKeyFile(path, "x").code(), StatusCode::kAlreadyExists);
  Result<std::string> read = ReadPrivateKeyFile(path);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, k->private_key_pem);
  // Only the public key is stored.
  auto stored = store_->GetPersonKey("ana@example.com");
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->public_key_pem, k->public_key_pem);
  EXPECT_EQ((*stored)->public_key_pem.find("PRIVATE"), std::string::npos);
  std::filesystem::remove(path);
}

// A key file appears whole or not at all: it is written under PATH.partial and linked into place,
// so a kill mid-write leaves no empty or cut file at PATH to refuse the next `dw keys issue`; the
// `.partial` such a kill leaves is replaced by the next write. Found by the `dw keys issue` crash
// writer (tests/crash/crash_decision_writers_test.cc).
TEST_F(DecideTest, AKeyFileAppearsWholeAndALeftoverPartialIsReplaced) {
  Result<IssuedKey> k = IssuePersonKey(*store_, "ana@example.com", clock_, "test");
  ASSERT_TRUE(k.ok());
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("dw-key-partial-" + std::to_string(::getpid()) + ".pem")).string();
  std::filesystem::remove(path);
  std::ofstream(path + ".partial") << "-----BEGIN PRIVATE KEY-----\nMC4CAQAw";  // a killed write's leftover
  ASSERT_TRUE(WritePrivateKeyFile(path, k->private_key_pem).ok());
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
  Result<std::string> read = ReadPrivateKeyFile(path);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, k->private_key_pem);
  struct stat st{};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  EXPECT_EQ(WritePrivateKeyFile(path, "x").code(), StatusCode::kAlreadyExists);
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace dw::actions
