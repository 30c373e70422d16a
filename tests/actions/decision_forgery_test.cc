// Decisions nobody can forge with the state store alone: a row inserted by hand, a swapped key, an
// edited decision, a signature moved to another version, a decision dated in the future. Each is
// refused where the decision is used (GetProposalState, which every use reads) and named with the
// row it came from; on both backends. Genuine decisions, signed or sealed by the desk, still count.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "actions/actions.h"
#include "tests/actions/actions_test_support.h"
#include "tests/store/store_test_support.h"

namespace dw::actions {
namespace {

using ::testing::HasSubstr;
using test_support::kStart;

constexpr char kDeskKey[] = "5f0c2a9e7b13d4c8a6e21f9b0d7c3e58a4b6f1d2c9e0a7b3";

class DecisionForgeryTest : public store::test_support::StoreOnEachBackend {
 protected:
  DecisionForgeryTest() : StoreOnEachBackend(kStart) {}

  void SetUp() override {
    StoreOnEachBackend::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ws_ = test_support::OneDomainWorkspace();
    Propose("P-1");
  }

  void Propose(const std::string& id, Json content = {{"step", "pause the sync"}}) {
    ProposalDraft d{id, "INC-1", "loyalty", "hold", "agent:dw-incidents", std::move(content)};
    ASSERT_TRUE(StoreProposal(*store_, d, clock_).ok());
    auto sent = SendForApproval(*store_, ws_, id, clock_, "agent:dw-incidents");
    ASSERT_TRUE(sent.ok()) << sent.status().ToString();
  }

  // Issues `email` a key, stored and declared in the workspace; returns the key.
  IssuedKey Declared(const std::string& email) {
    auto k = IssuePersonKey(*store_, email, clock_, "test");
    EXPECT_TRUE(k.ok()) << k.status().ToString();
    if (!k.ok()) return {};
    ws_.people[email].keys.push_back(KeyFingerprint(k->public_key_pem));
    return *k;
  }

  DecisionTrust Trust(const std::string& desk_key = "") const { return TrustOf(ws_, desk_key); }

  DecisionOutcome Sign(const IssuedKey& key, const std::string& id, int64_t version, Verdict v,
                       const std::string& reason = "") {
    DecisionStatement s = NewStatement(key.email, id, version, v, reason, clock_);
    auto sig = SignStatement(s, key.private_key_pem);
    EXPECT_TRUE(sig.ok());
    auto out = Decide(*store_, Trust(), {s, "cli", sig.ok() ? *sig : ""}, clock_);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? *out : DecisionOutcome{};
  }

  ProposalState State(const std::string& id, int64_t version = 0, const std::string& desk_key = "") {
    auto st = GetProposalState(*store_, Trust(desk_key), id, version, clock_);
    EXPECT_TRUE(st.ok()) << st.status().ToString();
    return st.ok() ? *st : ProposalState{};
  }

  // Appends a decision row as someone with write access to the store would.
  int64_t Insert(const std::string& kind, const std::string& id, const std::string& actor, Json body,
                 const std::string& nonce) {
    store::ActionEventRecord e;
    e.at = clock_.Now();
    e.kind = kind;
    e.subject = "proposal:" + id;
    e.actor = actor;
    e.nonce = nonce;
    e.body = std::move(body);
    auto seq = store_->AppendActionEvent(e);
    EXPECT_TRUE(seq.ok()) << seq.status().ToString();
    return seq.ok() ? *seq : 0;
  }

  // The raw connection an attacker with the store's credentials has.
  std::unique_ptr<store::SqlConnection> Raw() {
    auto c = Backend() == "sqlite" ? store::OpenSqliteConnection(scratch_->location())
                                   : store::OpenPostgresConnection(scratch_->location());
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(c).value() : nullptr;
  }

  // The body a genuine approval by `key` of `id` v`version` carries, signed.
  Json SignedBody(const IssuedKey& key, const std::string& id, int64_t version, const std::string& nonce) {
    DecisionStatement s{key.email, id, version, Verdict::kApprove, "", clock_.Now(), nonce};
    auto sig = SignStatement(s, key.private_key_pem);
    EXPECT_TRUE(sig.ok());
    return {{"version", version},        {"person", key.email},    {"decision", "approve"},
            {"surface", "cli"},          {"reason", ""},           {"round", 1},
            {"signed_at_ms", ToUnixMillis(s.at)}, {"proof", "signature"}, {"signature", sig.ok() ? *sig : ""},
            {"public_key", key.public_key_pem}};
  }

  config::Workspace ws_;
};

TEST_P(DecisionForgeryTest, AnApprovalRowInsertedByHandIsNotAnApproval) {
  IssuedKey ana = Declared("ana@example.com");
  // The row the attack wrote: no proof at all.
  const int64_t bare = Insert("approved", "P-1", "ana@example.com",
                              {{"version", 1}, {"person", "ana@example.com"}, {"decision", "approve"}, {"surface", "cli"}},
                              "0123456789abcdef0123456789abcdef");
  ProposalState st = State("P-1");
  EXPECT_EQ(st.status, ProposalStatus::kPending);
  ASSERT_EQ(st.rejected.size(), 1u);
  EXPECT_EQ(st.rejected[0].seq, bare);
  EXPECT_EQ(st.rejected[0].person, "ana@example.com");
  EXPECT_TRUE(st.rejected[0].checkable);
  EXPECT_THAT(st.rejected[0].reason, HasSubstr("action event " + std::to_string(bare)));
  EXPECT_THAT(st.rejected[0].reason, HasSubstr("P-1 v1"));

  // A row that names a proof and the person's real, declared key, but whose signature is made up.
  Json body = SignedBody(ana, "P-1", 1, "fedcba9876543210fedcba9876543210");
  body["signature"] = std::string(86, 'A') + "==";
  const int64_t fake = Insert("approved", "P-1", "ana@example.com", body, "fedcba9876543210fedcba9876543210");
  st = State("P-1");
  EXPECT_EQ(st.status, ProposalStatus::kPending);
  ASSERT_EQ(st.rejected.size(), 2u);
  EXPECT_EQ(st.rejected[1].seq, fake);
  EXPECT_THAT(st.rejected[1].reason, HasSubstr("signature does not verify"));

  // Nobody decides over a row that does not verify: it is looked into first.
  DecisionOutcome bo = Sign(Declared("bo@example.com"), "P-1", 1, Verdict::kApprove);
  EXPECT_FALSE(bo.accepted);
  EXPECT_THAT(bo.reason, HasSubstr("does not verify"));
  EXPECT_THAT(bo.reason, HasSubstr(std::to_string(bare)));
}

TEST_P(DecisionForgeryTest, ASwappedKeyMakesNobodyAnApprover) {
  Declared("ana@example.com");
  // The attacker replaces ana's stored public key with one of their own.
  auto theirs = NewPersonKey("ana@example.com");
  ASSERT_TRUE(theirs.ok());
  ASSERT_TRUE(store_->PutPersonKey({"ana@example.com", theirs->public_key_pem, clock_.Now()}).ok());
  DecisionOutcome out = Sign(*theirs, "P-1", 1, Verdict::kApprove);
  EXPECT_FALSE(out.accepted);
  EXPECT_THAT(out.reason, HasSubstr("is not declared under people.ana@example.com.keys"));
  EXPECT_EQ(State("P-1").status, ProposalStatus::kPending);

  // And a row signed with their key, carrying it, is not counted either.
  const int64_t seq = Insert("approved", "P-1", "ana@example.com", SignedBody(*theirs, "P-1", 1, std::string(32, 'c')),
                             std::string(32, 'c'));
  ProposalState st = State("P-1");
  EXPECT_EQ(st.status, ProposalStatus::kPending);
  ASSERT_EQ(st.rejected.size(), 1u);
  EXPECT_EQ(st.rejected[0].seq, seq);
  EXPECT_THAT(st.rejected[0].reason, HasSubstr("is not declared for ana@example.com"));
}

TEST_P(DecisionForgeryTest, AnEditedDecisionDoesNotVerify) {
  IssuedKey ana = Declared("ana@example.com");
  DecisionOutcome denied = Sign(ana, "P-1", 1, Verdict::kDeny, "the sync must run tonight");
  ASSERT_TRUE(denied.accepted) << denied.reason;
  ASSERT_EQ(State("P-1").status, ProposalStatus::kDenied);
  auto raw = Raw();
  ASSERT_NE(raw, nullptr);
  auto rows = raw->Query("SELECT body FROM action_events WHERE seq = $1", {denied.event_seq});
  ASSERT_TRUE(rows.ok() && rows->size() == 1) << rows.status().ToString();
  Json body = Json::parse(std::get<std::string>((*rows)[0][0]));
  body["decision"] = "approve";
  body["reason"] = "";
  ASSERT_TRUE(raw->Query("UPDATE action_events SET kind = 'approved', body = $1 WHERE seq = $2",
                         {body.dump(), denied.event_seq})
                  .ok());
  Reopen();
  ProposalState st = State("P-1");
  EXPECT_NE(st.status, ProposalStatus::kApproved);
  EXPECT_NE(st.status, ProposalStatus::kDenied);
  ASSERT_EQ(st.rejected.size(), 1u);
  EXPECT_EQ(st.rejected[0].seq, denied.event_seq);
  EXPECT_THAT(st.rejected[0].reason, HasSubstr("signature does not verify"));

  // Editing only the time the row says it was recorded is caught too.
  Propose("P-2");
  DecisionOutcome approved = Sign(ana, "P-2", 1, Verdict::kApprove);
  ASSERT_TRUE(approved.accepted) << approved.reason;
  ASSERT_TRUE(raw->Query("UPDATE action_events SET at = at - 86400000 WHERE seq = $1", {approved.event_seq}).ok());
  Reopen();
  st = State("P-2");
  EXPECT_EQ(st.status, ProposalStatus::kPending);
  ASSERT_EQ(st.rejected.size(), 1u);
  EXPECT_THAT(st.rejected[0].reason, HasSubstr("but recorded at"));
}

TEST_P(DecisionForgeryTest, ASignatureMovedToAnotherVersionDoesNotVerify) {
  IssuedKey ana = Declared("ana@example.com");
  ASSERT_TRUE(Sign(ana, "P-1", 1, Verdict::kApprove).accepted);
  // A second version, never approved, gets the first one's decision.
  Propose("P-1", {{"step", "pause the sync and the export"}});
  auto raw = Raw();
  ASSERT_NE(raw, nullptr);
  auto rows = raw->Query("SELECT body, nonce FROM action_events WHERE kind = 'approved'");
  ASSERT_TRUE(rows.ok() && rows->size() == 1);
  Json body = Json::parse(std::get<std::string>((*rows)[0][0]));
  body["version"] = 2;
  const int64_t moved = Insert("approved", "P-1", "ana@example.com", body, std::string(32, 'd'));
  ProposalState v2 = State("P-1", 2);
  EXPECT_EQ(v2.status, ProposalStatus::kPending);
  ASSERT_EQ(v2.rejected.size(), 1u);
  EXPECT_EQ(v2.rejected[0].seq, moved);
  // The first version's own approval still counts.
  EXPECT_EQ(State("P-1", 1).status, ProposalStatus::kApproved);
  EXPECT_TRUE(State("P-1", 1).rejected.empty());
  EXPECT_EQ(State("P-1", 1).decided_by, "ana@example.com");
}

TEST_P(DecisionForgeryTest, ADecisionDatedInTheFutureIsRefusedNamingThePersonAndProposal) {
  IssuedKey ana = Declared("ana@example.com");
  // A statement signed for tomorrow is refused when it is made...
  DecisionStatement s = NewStatement(ana.email, "P-1", 1, Verdict::kApprove, "", clock_);
  s.at = clock_.Now() + std::chrono::hours(24);
  auto sig = SignStatement(s, ana.private_key_pem);
  ASSERT_TRUE(sig.ok());
  auto out = Decide(*store_, Trust(), {s, "cli", *sig}, clock_);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->accepted);
  EXPECT_THAT(out->reason, HasSubstr("more than 10 minutes from now"));
  // ...and, written straight into the store, where it is used.
  SimulatedClock later(clock_.Now() + std::chrono::hours(24));
  Json body = SignedBody(ana, "P-1", 1, std::string(32, 'e'));
  body["signed_at_ms"] = ToUnixMillis(later.Now());
  store::ActionEventRecord e{0, later.Now(), "approved", "proposal:P-1", ana.email, std::string(32, 'e'), body};
  ASSERT_TRUE(store_->AppendActionEvent(e).ok());
  ProposalState st = State("P-1");
  EXPECT_EQ(st.status, ProposalStatus::kPending);
  ASSERT_EQ(st.rejected.size(), 1u);
  EXPECT_THAT(st.rejected[0].reason, HasSubstr("in the future"));
  EXPECT_THAT(st.rejected[0].reason, HasSubstr("ana@example.com"));
  EXPECT_THAT(st.rejected[0].reason, HasSubstr("P-1 v1"));
}

TEST_P(DecisionForgeryTest, AKeyDeclaredInTheWorkspaceButNeverIssuedDecidesNothing) {
  // The workspace names a fingerprint that matches no stored key; the stored key is another one.
  ws_.people["ana@example.com"].keys = {"sha256:" + std::string(64, 'a')};
  auto stored = IssuePersonKey(*store_, "ana@example.com", clock_, "test");
  ASSERT_TRUE(stored.ok());
  DecisionOutcome out = Sign(*stored, "P-1", 1, Verdict::kApprove);
  EXPECT_FALSE(out.accepted);
  EXPECT_THAT(out.reason, HasSubstr("ana@example.com"));
  EXPECT_THAT(out.reason, HasSubstr("not declared"));
}

TEST_P(DecisionForgeryTest, GenuineDecisionsCountAfterAReopenAndARotatedKey) {
  IssuedKey ana = Declared("ana@example.com");
  ASSERT_TRUE(Sign(ana, "P-1", 1, Verdict::kApprove).accepted);
  // Ana's key is rotated; the old one stays declared for the decisions it signed.
  Declared("ana@example.com");
  Reopen();
  ProposalState st = State("P-1");
  EXPECT_EQ(st.status, ProposalStatus::kApproved);
  EXPECT_TRUE(st.rejected.empty());
  EXPECT_EQ(st.decided_by, "ana@example.com");
  // Once the workspace stops declaring the old key, what it signed no longer counts.
  ws_.people["ana@example.com"].keys.erase(ws_.people["ana@example.com"].keys.begin());
  st = State("P-1");
  EXPECT_EQ(st.status, ProposalStatus::kPending);
  ASSERT_EQ(st.rejected.size(), 1u);
}

TEST_P(DecisionForgeryTest, ADecisionByLinkIsSealedByTheDeskAndCheckedWithItsKey) {
  auto token = IssueApprovalLink(*store_, Trust(kDeskKey), "P-1", "bo@example.com", kDeskKey, clock_);
  ASSERT_TRUE(token.ok()) << token.status().ToString();
  LinkDecision d;
  d.token = *token;
  auto out = DecideByLink(*store_, ws_, d, kDeskKey, clock_);
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(out->accepted) << out->reason;
  EXPECT_EQ(State("P-1", 0, kDeskKey).status, ProposalStatus::kApproved);
  // Without the desk's key the seal cannot be checked: not counted, and not called forged.
  ProposalState without = State("P-1");
  EXPECT_EQ(without.status, ProposalStatus::kPending);
  ASSERT_EQ(without.rejected.size(), 1u);
  EXPECT_FALSE(without.rejected[0].checkable);
  EXPECT_THAT(without.rejected[0].reason, HasSubstr("DW_APPROVAL_LINK_KEY"));
  // With another key it is forged.
  ProposalState other = State("P-1", 0, std::string(kDeskKey) + "x");
  ASSERT_EQ(other.rejected.size(), 1u);
  EXPECT_TRUE(other.rejected[0].checkable);
  EXPECT_THAT(other.rejected[0].reason, HasSubstr("seal does not verify"));
}

TEST_P(DecisionForgeryTest, TheAuditRaisesEachForgedRowOnceAsASev1Finding) {
  IssuedKey ana = Declared("ana@example.com");
  ASSERT_TRUE(Sign(ana, "P-1", 1, Verdict::kApprove).accepted);
  Propose("P-2");
  const int64_t forged = Insert("approved", "P-2", "ana@example.com",
                                {{"version", 1}, {"person", "ana@example.com"}, {"decision", "approve"}, {"surface", "cli"}},
                                std::string(32, 'f'));
  auto audit = AuditDecisions(*store_, Trust(), clock_);
  ASSERT_TRUE(audit.ok()) << audit.status().ToString();
  ASSERT_EQ(audit->size(), 1u);  // the genuine approval of P-1 verifies
  EXPECT_EQ((*audit)[0].seq, forged);
  EXPECT_EQ((*audit)[0].proposal_id, "P-2");
  auto raised = RaiseRejectedDecisions(*store_, ws_, clock_);
  ASSERT_TRUE(raised.ok()) << raised.status().ToString();
  ASSERT_EQ(raised->size(), 1u);
  EXPECT_THAT((*raised)[0], HasSubstr("SEV1 finding, decision without a valid signature"));
  EXPECT_THAT((*raised)[0], HasSubstr("P-2 v1"));
  // Once: the next pass (another process, after a reopen) raises nothing more.
  Reopen();
  auto again = RaiseRejectedDecisions(*store_, ws_, clock_);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty());
  auto findings = store_->ActionEvents("decisions");
  ASSERT_TRUE(findings.ok());
  ASSERT_EQ(findings->size(), 1u);
  EXPECT_EQ((*findings)[0].kind, "decision_rejected");
  EXPECT_EQ((*findings)[0].body.value("event", int64_t{0}), forged);
  EXPECT_EQ((*findings)[0].body.value("severity", ""), "SEV1");
}

INSTANTIATE_TEST_SUITE_P(Store, DecisionForgeryTest, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace dw::actions
