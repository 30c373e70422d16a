// Approval requests: they name the domain's approvers, expire after approval_ttl, escalate once to
// escalate_to, and are never granted by default, by timeout or by silence.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/actions/actions_test_support.h"

namespace dw::actions {
namespace {

using test_support::ActionsFixture;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class ApprovalRequestsTest : public ActionsFixture {};

TEST_F(ApprovalRequestsTest, ARequestNamesTheDomainsApproversAndExpiresAfterTheTtl) {
  ProposalDraft d{"P-1", "INC-1", "loyalty", "hold", "agent:dw-incidents", {}};
  ASSERT_TRUE(StoreProposal(*store_, d, clock_).ok());
  Result<ApprovalRequestView> req = SendForApproval(*store_, ws_, "P-1", clock_, "agent:dw-incidents");
  ASSERT_TRUE(req.ok()) << req.status().ToString();
  EXPECT_THAT(req->approvers, ElementsAre("ana@example.com", "bo@example.com"));
  EXPECT_EQ(req->expires_at, test_support::kStart + std::chrono::hours(2));
  EXPECT_EQ(req->round, 1);
}

TEST_F(ApprovalRequestsTest, AnExpiredApprovalEscalatesAndIsNeverGranted) {
  Propose("P-1");
  clock_.Advance(std::chrono::hours(2));
  // Silence until expiry grants nothing; the original approvers are now too late.
  EXPECT_EQ(StatusOf("P-1"), ProposalStatus::kExpired);
  EXPECT_THAT(DecideAs("ana@example.com", "P-1", 1, Verdict::kApprove).reason, HasSubstr("expired"));
  Result<std::vector<std::string>> said = ExpireApprovalRequests(*store_, ws_, clock_);
  ASSERT_TRUE(said.ok());
  ASSERT_EQ(said->size(), 1u);
  // The workspace has no notify: the escalation is recorded, and the line says nobody is told.
  EXPECT_THAT((*said)[0], HasSubstr("escalation to lead@example.com until "));
  EXPECT_THAT((*said)[0], HasSubstr("recorded; no notification channel routes it, so nobody is told"));
  EXPECT_THAT((*said)[0], ::testing::Not(HasSubstr("escalated to")));
  // A new request to escalate_to: ana is no longer asked, the lead is.
  EXPECT_EQ(StatusOf("P-1"), ProposalStatus::kPending);
  EXPECT_THAT(DecideAs("ana@example.com", "P-1", 1, Verdict::kApprove).reason,
              HasSubstr("not an approver"));
  // Running the expiry again changes nothing while the new request is open.
  EXPECT_TRUE(ExpireApprovalRequests(*store_, ws_, clock_)->empty());
  clock_.Advance(std::chrono::hours(2));
  said = ExpireApprovalRequests(*store_, ws_, clock_);
  ASSERT_TRUE(said.ok());
  ASSERT_EQ(said->size(), 1u);
  EXPECT_THAT((*said)[0], HasSubstr("not approved"));
  EXPECT_EQ(StatusOf("P-1"), ProposalStatus::kExpired);
  EXPECT_FALSE(DecideAs("lead@example.com", "P-1", 1, Verdict::kApprove).accepted);
  EXPECT_EQ(CountEvents("approved"), 0);
  EXPECT_TRUE(ExpireApprovalRequests(*store_, ws_, clock_)->empty());
}

// With a channel that carries escalations, the line says it escalated, and through which channel.
TEST_F(ApprovalRequestsTest, AnEscalationAChannelCarriesSaysSoAndNamesTheChannel) {
  ws_.notify = Json{{"console", Json::object()}};
  Propose("P-1");
  clock_.Advance(std::chrono::hours(2));
  Result<std::vector<std::string>> said = ExpireApprovalRequests(*store_, ws_, clock_);
  ASSERT_TRUE(said.ok()) << said.status().ToString();
  ASSERT_EQ(said->size(), 1u);
  EXPECT_THAT((*said)[0], HasSubstr("escalated to lead@example.com until "));
  EXPECT_THAT((*said)[0], HasSubstr(" via console"));
}

TEST_F(ApprovalRequestsTest, TheEscalationApproverMayDecideTheNewRequest) {
  Propose("P-1");
  clock_.Advance(std::chrono::hours(3));
  ASSERT_TRUE(ExpireApprovalRequests(*store_, ws_, clock_).ok());
  EXPECT_TRUE(DecideAs("lead@example.com", "P-1", 1, Verdict::kApprove).accepted);
}

TEST_F(ApprovalRequestsTest, ObserveOnlyDomainsSendNothing) {
  ws_ = test_support::OneDomainWorkspace("L1");
  ProposalDraft d{"P-1", "INC-1", "loyalty", "hold", "agent:dw-incidents", {}};
  ASSERT_TRUE(StoreProposal(*store_, d, clock_).ok());
  Result<ApprovalRequestView> req = SendForApproval(*store_, ws_, "P-1", clock_, "agent:dw-incidents");
  ASSERT_FALSE(req.ok());
  EXPECT_THAT(req.status().message(), HasSubstr("not sent"));
  EXPECT_EQ(CountEvents("sent"), 0);
  EXPECT_EQ(CountEvents("refused"), 1);
}

TEST_F(ApprovalRequestsTest, ADomainWithoutApproversCannotBeAsked) {
  ws_.domains["loyalty"].approvers.clear();
  ProposalDraft d{"P-1", "INC-1", "loyalty", "hold", "agent:dw-incidents", {}};
  ASSERT_TRUE(StoreProposal(*store_, d, clock_).ok());
  Result<ApprovalRequestView> req = SendForApproval(*store_, ws_, "P-1", clock_, "agent:dw-incidents");
  ASSERT_FALSE(req.ok());
  EXPECT_THAT(req.status().message(), HasSubstr("names no approvers"));
}

TEST_F(ApprovalRequestsTest, AVersionIsSentOnce) {
  Propose("P-1");
  Result<ApprovalRequestView> again = SendForApproval(*store_, ws_, "P-1", clock_, "x");
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.status().message(), HasSubstr("already pending"));
}

}  // namespace
}  // namespace dw::actions
