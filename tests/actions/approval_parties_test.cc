// A proposal that holds, pauses or changes an asset needs its owner's approval as well as the
// cause domain's approver: the request names both, neither alone approves it, one person in both
// approves once, and either party's denial decides.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/actions/actions_test_support.h"

namespace dw::actions {
namespace {

using ::testing::HasSubstr;

constexpr char kSync[] = "sync://hightouch/tier-changes-to-braze";

class ApprovalPartiesTest : public test_support::ActionsFixture {
 protected:
  void SetUp() override {
    ActionsFixture::SetUp();
    // The sync belongs to the CRM team's crm@, who approves nothing in the loyalty domain.
    config::AssetNote sync;
    sync.id = kSync;
    sync.owner = "crm@example.com";
    ws_.assets.push_back(sync);
  }

  // A hold of the sync (drafted by the agent) sent for approval; returns the request.
  ApprovalRequestView HoldTheSync(const std::string& id = "P-hold", const std::string& kind = "hold") {
    Json content = {{"touches", {kSync}},
                    {"targets", {{{"consumer", kSync}, {"owner", ""}, {"step", "pause the sync"}}}}};
    ProposalDraft d{id, "INC-1", "loyalty", kind, "agent:dw-incidents", content};
    EXPECT_TRUE(StoreProposal(*store_, d, clock_).ok());
    auto sent = SendForApproval(*store_, ws_, id, clock_, "agent:dw-incidents");
    EXPECT_TRUE(sent.ok()) << sent.status().ToString();
    return sent.ok() ? *sent : ApprovalRequestView{};
  }
};

TEST_F(ApprovalPartiesTest, TheRequestNamesTheDomainsApproversAndTheOwnerOfWhatIsHeld) {
  ApprovalRequestView req = HoldTheSync();
  ASSERT_EQ(req.parties.size(), 2u);
  EXPECT_EQ(req.parties[0].people, (std::vector<std::string>{"ana@example.com", "bo@example.com"}));
  EXPECT_EQ(req.parties[1].people, std::vector<std::string>{"crm@example.com"});
  EXPECT_THAT(req.parties[1].role, HasSubstr(kSync));
  EXPECT_EQ(req.approvers, (std::vector<std::string>{"ana@example.com", "bo@example.com", "crm@example.com"}));
  auto st = GetProposalState(*store_, Trust(), "P-hold", 0, clock_);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->awaiting.size(), 2u);
}

TEST_F(ApprovalPartiesTest, NeitherTheCauseApproverNorTheOwnerAloneApproves) {
  HoldTheSync();
  DecisionOutcome ana = DecideAs("ana@example.com", "P-hold", 1, Verdict::kApprove);
  ASSERT_TRUE(ana.accepted) << ana.reason;
  EXPECT_THAT(ana.reason, HasSubstr("still waits for the owner of " + std::string(kSync) + " (crm@example.com)"));
  EXPECT_EQ(StatusOf("P-hold"), ProposalStatus::kPending);
  EXPECT_EQ(CountEvents("approved"), 1);
  // Ana cannot approve twice to fill the owner's place, nor can bo (same party as ana).
  EXPECT_THAT(DecideAs("ana@example.com", "P-hold", 1, Verdict::kApprove).reason, HasSubstr("already approved"));
  DecisionOutcome bo = DecideAs("bo@example.com", "P-hold", 1, Verdict::kApprove);
  EXPECT_TRUE(bo.accepted);
  EXPECT_EQ(StatusOf("P-hold"), ProposalStatus::kPending);
  DecisionOutcome crm = DecideAs("crm@example.com", "P-hold", 1, Verdict::kApprove);
  ASSERT_TRUE(crm.accepted) << crm.reason;
  auto st = GetProposalState(*store_, Trust(), "P-hold", 0, clock_);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->status, ProposalStatus::kApproved);
  EXPECT_THAT(st->decided_by, HasSubstr("crm@example.com"));
  EXPECT_THAT(st->decided_by, HasSubstr("ana@example.com"));
  EXPECT_TRUE(st->awaiting.empty());
}

TEST_F(ApprovalPartiesTest, TheOwnerAloneDoesNotApproveEither) {
  HoldTheSync();
  ASSERT_TRUE(DecideAs("crm@example.com", "P-hold", 1, Verdict::kApprove).accepted);
  EXPECT_EQ(StatusOf("P-hold"), ProposalStatus::kPending);
  ASSERT_TRUE(DecideAs("bo@example.com", "P-hold", 1, Verdict::kApprove).accepted);
  EXPECT_EQ(StatusOf("P-hold"), ProposalStatus::kApproved);
}

TEST_F(ApprovalPartiesTest, TheOwnersDenialDecides) {
  HoldTheSync();
  ASSERT_TRUE(DecideAs("ana@example.com", "P-hold", 1, Verdict::kApprove).accepted);
  ASSERT_TRUE(DecideAs("crm@example.com", "P-hold", 1, Verdict::kDeny, "the sync carries the weekly offer").accepted);
  EXPECT_EQ(StatusOf("P-hold"), ProposalStatus::kDenied);
  EXPECT_THAT(DecideAs("bo@example.com", "P-hold", 1, Verdict::kApprove).reason, HasSubstr("already denied"));
}

TEST_F(ApprovalPartiesTest, AnOwnerWhoIsAlsoTheApproverApprovesOnce) {
  ws_.assets.back().owner = "ana@example.com";
  ApprovalRequestView req = HoldTheSync();
  EXPECT_EQ(req.parties.size(), 2u);  // ana's own party: the owner must be ana, not bo
  ASSERT_TRUE(DecideAs("ana@example.com", "P-hold", 1, Verdict::kApprove).accepted);
  EXPECT_EQ(StatusOf("P-hold"), ProposalStatus::kApproved);
}

TEST_F(ApprovalPartiesTest, WhatDoesNotActOnAnAssetAsksTheDomainOnly) {
  ApprovalRequestView req = HoldTheSync("P-plan", "run_plan");
  ASSERT_EQ(req.parties.size(), 1u);
  ASSERT_TRUE(DecideAs("bo@example.com", "P-plan", 1, Verdict::kApprove).accepted);
  EXPECT_EQ(StatusOf("P-plan"), ProposalStatus::kApproved);
}

TEST_F(ApprovalPartiesTest, EscalationReplacesTheDomainsApproversAndKeepsAskingTheOwner) {
  HoldTheSync();
  ASSERT_TRUE(DecideAs("crm@example.com", "P-hold", 1, Verdict::kApprove).accepted);
  clock_.Advance(std::chrono::hours(3));
  auto said = ExpireApprovalRequests(*store_, ws_, clock_);
  ASSERT_TRUE(said.ok()) << said.status().ToString();
  ASSERT_EQ(said->size(), 1u);
  auto st = GetProposalState(*store_, Trust(), "P-hold", 0, clock_);
  ASSERT_TRUE(st.ok() && st->request);
  EXPECT_EQ(st->request->round, 2);
  ASSERT_EQ(st->request->parties.size(), 2u);
  EXPECT_EQ(st->request->parties[0].people, std::vector<std::string>{"lead@example.com"});
  // The owner's earlier approval still stands; the lead's completes it.
  ASSERT_EQ(st->awaiting.size(), 1u);
  ASSERT_TRUE(DecideAs("lead@example.com", "P-hold", 1, Verdict::kApprove).accepted);
  EXPECT_EQ(StatusOf("P-hold"), ProposalStatus::kApproved);
}

}  // namespace
}  // namespace dw::actions
