// The action stage feeds the notification outbox: an approval request goes to the domain's
// approvers with its owners copied (the loyalty story's Slack message), an escalation to
// escalate_to, an approval is told, and the resolution with its receipt closes the Opsgenie alert
// with the receipt's summary and hash. Delivered to the loopback receivers and read back there.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "incidents/incidents.h"
#include "tests/actions/actions_test_support.h"
#include "sim/smtp_receiver.h"
#include "tests/platforms/notify/notify_test_support.h"

namespace dw::actions {
namespace {

using ::testing::HasSubstr;
namespace notify = platforms::notify;

class ActionNoticesTest : public test_support::ActionsFixture {
 protected:
  void SetUp() override {
    ActionsFixture::SetUp();
    slack_ = testing::StartReceiver(sim::Platform::kSlack);
    opsgenie_ = testing::StartReceiver(sim::Platform::kOpsgenie, {{"api_key", "og-key"}});
    ASSERT_NE(slack_, nullptr);
    ASSERT_NE(opsgenie_, nullptr);
    ws_.domains["loyalty"].owners = {"ana@example.com", "data-owner@example.com"};
    ws_.notify = Json{{"slack", {{"webhook", slack_->url() + "/services/T0/B0/loyalty"}}},
                      {"opsgenie", {{"api_key", "og-key"}, {"url", opsgenie_->url()}}}};
    // An incident of the loyalty domain, opened by the desk (which tells Slack and Opsgenie).
    incidents::DeskOptions o = incidents::DeskOptionsFor(ws_);
    desk_ = std::make_unique<incidents::IncidentDesk>(*store_, static_cast<const graph::GraphIndex*>(nullptr),
                                                      clock_, o);
    incidents::SignalBatch b;
    incidents::Signal s;
    s.key = "metric:avg_active_balance";
    s.asset_id = "table://main/loyalty.member_balances";
    s.at = clock_.Now();
    s.value = 9;
    s.expected = 100;
    s.summary = "avg_active_balance at 9% of baseline";
    b.signals.push_back(s);
    auto r = desk_->Evaluate(b);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->opened.size(), 1u);
    incident_ = r->opened[0];
  }

  void Deliver() {
    notify::DeliveryOptions o;
    o.request_timeout = std::chrono::milliseconds(3000);
    auto r = notify::DeliverDue(ws_, *store_, *http_, *mail_, clock_, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->failed, 0) << (r->errors.empty() ? "" : r->errors[0]);
  }

  std::vector<std::string> Outbox() {
    auto all = store_->OutboxFor(incident_);
    EXPECT_TRUE(all.ok());
    std::vector<std::string> out;
    for (const auto& m : *all) out.push_back(m.channel + " " + m.event);
    return out;
  }

  void ProposeHold() {
    ProposalDraft d{"P-hold", incident_, "loyalty", "hold", "agent:dw-incidents",
                    {{"summary", "hold the Hightouch sync to Braze before 22:00"}}};
    ASSERT_TRUE(StoreProposal(*store_, d, clock_).ok());
    auto sent = SendForApproval(*store_, ws_, "P-hold", clock_, "agent:dw-incidents");
    ASSERT_TRUE(sent.ok()) << sent.status().ToString();
  }

  std::unique_ptr<sim::RunningSim> slack_, opsgenie_;
  std::unique_ptr<incidents::IncidentDesk> desk_;
  std::unique_ptr<net::HttpClient> http_ = net::MakeCurlHttpClient();
  std::unique_ptr<net::MailClient> mail_ = net::MakeCurlMailClient();
  std::string incident_;
};

TEST_F(ActionNoticesTest, TheApprovalRequestGoesToSlackToTheApproversWithTheDataOwnerCopied) {
  ProposeHold();
  EXPECT_THAT(Outbox(), ::testing::ElementsAre("opsgenie open", "slack open",
                                               "slack approval_requested:P-hold.v1"));
  Deliver();
  Json posts = testing::State(*slack_)["posts"];
  ASSERT_EQ(posts.size(), 2u);
  const std::string request = posts[1].dump();
  EXPECT_THAT(request, HasSubstr("Approval requested"));
  EXPECT_THAT(request, HasSubstr("For ana@example.com, bo@example.com; copied: data-owner@example.com"));
  EXPECT_THAT(request, HasSubstr("hold the Hightouch sync to Braze before 22:00"));
  EXPECT_THAT(request, HasSubstr("dw approve P-hold"));
  EXPECT_EQ(testing::State(*opsgenie_)["alerts"].size(), 1u);
}

TEST_F(ActionNoticesTest, AnEscalationGoesToEscalateToAndAnApprovalIsTold) {
  ProposeHold();
  clock_.Advance(std::chrono::hours(2));
  ASSERT_TRUE(ExpireApprovalRequests(*store_, ws_, clock_).ok());
  EXPECT_THAT(Outbox(), ::testing::Contains("slack escalated:P-hold.v1"));
  DecisionStatement s = NewStatement("lead@example.com", "P-hold", 1, Verdict::kApprove, "", clock_);
  auto sig = SignStatement(s, KeyOf("lead@example.com"));
  ASSERT_TRUE(sig.ok());
  auto out = Decide(*store_, ws_, {s, "cli", *sig}, clock_);
  ASSERT_TRUE(out.ok() && out->accepted) << (out.ok() ? out->reason : out.status().ToString());
  EXPECT_THAT(Outbox(), ::testing::Contains("slack approved:P-hold.v1"));
  Deliver();
  Json posts = testing::State(*slack_)["posts"];
  ASSERT_EQ(posts.size(), 4u);
  EXPECT_THAT(posts[2].dump(), HasSubstr("Escalated to lead@example.com"));
  EXPECT_THAT(posts[3].dump(), HasSubstr("approved by lead@example.com"));
}

TEST_F(ActionNoticesTest, ARefusedDecisionTellsNobody) {
  ProposeHold();
  DecisionStatement s = NewStatement("agent:dw-incidents", "P-hold", 1, Verdict::kApprove, "", clock_);
  auto out = Decide(*store_, ws_, {s, "cli", "not-a-signature"}, clock_);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->accepted);
  EXPECT_THAT(Outbox(), ::testing::Not(::testing::Contains("slack approved:P-hold.v1")));
}

TEST_F(ActionNoticesTest, TheReceiptClosesTheOpsgenieAlertWithItsSummaryAndHash) {
  Deliver();  // the alert is open
  auto receipt = WriteReceipt(*store_, {{"incident", incident_}, {"summary", "balances restored from the 14:00 savepoint"}},
                              clock_);
  ASSERT_TRUE(receipt.ok()) << receipt.status().ToString();
  ASSERT_TRUE(NotifyResolved(*store_, ws_, clock_, incident_, *receipt).ok());
  // Told once: a second call for the same resolution writes nothing.
  ASSERT_TRUE(NotifyResolved(*store_, ws_, clock_, incident_, *receipt).ok());
  EXPECT_THAT(Outbox(), ::testing::ElementsAre("opsgenie open", "slack open", "opsgenie resolved", "slack resolved"));
  Deliver();
  Json alerts = testing::State(*opsgenie_)["alerts"];
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0]["status"], "closed");
  ASSERT_EQ(alerts[0]["notes"].size(), 1u);
  const std::string note = alerts[0]["notes"][0];
  EXPECT_THAT(note, HasSubstr("balances restored from the 14:00 savepoint"));
  EXPECT_THAT(note, HasSubstr(receipt->hash));
  EXPECT_EQ(NotifyResolved(*store_, ws_, clock_, "inc-unknown", *receipt).code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace dw::actions

namespace dw::actions {
namespace {

// Mail reaches one person: with desk.url, each approver's message carries only their own signed
// link; the owner copied gets a copy without links; the links are made at send time.
TEST_F(ActionNoticesTest, EachApproverIsMailedTheirOwnLinkAndTheCopyCarriesNone) {
  auto smtp = sim::SmtpReceiver::Start(Json::object());
  ASSERT_TRUE(smtp.ok()) << smtp.status().ToString();
  ws_.notify["email"] = {{"smtp", (*smtp)->url()}, {"from", "dw@example.com"}};
  ws_.desk.url = "https://dw.example.com";
  ProposeHold();
  EXPECT_THAT(Outbox(), ::testing::IsSupersetOf({"email approval_requested:P-hold.v1:ana@example.com",
                                                 "email approval_requested:P-hold.v1:bo@example.com",
                                                 "email approval_requested:P-hold.v1"}));
  notify::DeliveryOptions o;
  o.request_timeout = std::chrono::milliseconds(3000);
  const std::string key = "b81e4c97a2f05d63e9c1a47f0b2d86e5-mail";
  o.approval_link = ApprovalLinkSignerFor(key);
  auto r = notify::DeliverDue(ws_, *store_, *http_, *mail_, clock_, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->failed, 0) << (r->errors.empty() ? "" : r->errors[0]);
  EXPECT_EQ(r->retried, 0) << (r->errors.empty() ? "" : r->errors[0]);
  std::map<std::string, std::string> mail_to;
  for (const Json& m : (*smtp)->received()) mail_to[m["to"].dump()] = m["data"].get<std::string>();
  ASSERT_EQ(mail_to.size(), 3u);
  for (const std::string who : {"ana@example.com", "bo@example.com"}) {
    const std::string& data = mail_to[Json::array({who}).dump()];
    const std::string other = who == "ana@example.com" ? "bo@example.com" : "ana@example.com";
    EXPECT_THAT(data, HasSubstr("Approve or deny as " + who));
    EXPECT_THAT(data, ::testing::Not(HasSubstr("Approve or deny as " + other)));
    const auto at = data.find("https://dw.example.com/approve/v1.");
    ASSERT_NE(at, std::string::npos) << data;
    const std::string token = data.substr(at + 31, data.find_first_of("\r\n\"", at) - at - 31);
    auto link = ReadApprovalLink(token, key);
    ASSERT_TRUE(link.ok()) << link.status().ToString() << " " << token;
    EXPECT_EQ(link->approver, who);
  }
  const std::string& copy = mail_to[Json::array({"data-owner@example.com"}).dump()];
  EXPECT_THAT(copy, HasSubstr("Each approver received their own approval link."));
  EXPECT_THAT(copy, ::testing::Not(HasSubstr("/approve/")));
}

}  // namespace
}  // namespace dw::actions
