// The outbox on both store backends: routing from notify:, deduplication by (incident, channel,
// event), delivery in order per incident and channel, retries with backoff, giving up with the
// failure recorded, and nothing lost when the process dies between the write and the send.
#include <gtest/gtest.h>

#include "platforms/notify/notify.h"
#include "sim/smtp_receiver.h"
#include "store/state_store.h"
#include "tests/platforms/notify/notify_test_support.h"
#include "tests/store/store_test_support.h"
#include "tests/support/loopback_http_server.h"

namespace dw::platforms::notify {
namespace {
namespace notify_outbox_test {

using dw::testing::LoyaltyNotice;
using dw::testing::StartReceiver;
using dw::testing::State;

config::Workspace LoyaltyWorkspace(const Json& notify) {
  config::Workspace ws;
  ws.name = "loyalty";
  config::DomainConfig d;
  d.name = "loyalty";
  d.owners = {"ana@example.com", "data-owner@example.com"};
  d.approvers = {"ana@example.com"};
  d.escalate_to = {"loyalty-lead@example.com"};
  ws.domains["loyalty"] = d;
  ws.notify = notify;
  return ws;
}

class NotifyOutboxTest : public store::test_support::StoreOnEachBackend {
 protected:
  NotifyOutboxTest() : StoreOnEachBackend(FromUnixMillis(1'795'100'000'000)) {}

  DeliveryOptions Fast() {
    DeliveryOptions o;
    o.first_backoff = std::chrono::seconds(10);
    o.max_attempts = 3;
    o.request_timeout = std::chrono::milliseconds(3000);
    return o;
  }
  std::unique_ptr<net::HttpClient> http_ = net::MakeCurlHttpClient();
  std::unique_ptr<net::MailClient> mail_ = net::MakeCurlMailClient();
};

TEST_P(NotifyOutboxTest, RoutesPickChannelsByDomainSeverityAndEventAndDeduplicate) {
  auto ws = LoyaltyWorkspace(
      {{"slack", {{"webhook", "http://127.0.0.1:9/services/x"}}},
       {"pagerduty", {{"routing_key", "k"}, {"url", "http://127.0.0.1:9"}}},
       {"email", {{"smtp", "smtp://127.0.0.1:9"}, {"from", "dw@example.com"}}},
       {"link", "https://dw.example.com/incidents/{incident}"},
       {"routes", {{{"channels", {"slack", "email"}}, {"domains", {"loyalty"}}},
                   {{"channels", {"pagerduty"}}, {"severities", {"SEV1"}}}}}});
  IncidentNotice n = LoyaltyNotice(EventKind::kOpen);
  n.link.clear();
  auto r = Enqueue(ws, *store_, clock_, n);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Email has nothing to say when an incident opens; SEV1 pages.
  EXPECT_EQ(r->queued, (std::vector<std::string>{"pagerduty", "slack"}));
  auto again = Enqueue(ws, *store_, clock_, n);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->queued.empty());
  EXPECT_EQ(again->duplicate.size(), 2u);

  n.event = EventKind::kApprovalRequested;
  n.severity = "SEV3";
  r = Enqueue(ws, *store_, clock_, n);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->queued, (std::vector<std::string>{"email", "slack"}));
  auto all = store_->OutboxFor(n.incident_id);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 4u);
  const store::OutboxMessage& email = (*all)[2];
  EXPECT_EQ(email.channel, "email");
  EXPECT_EQ(email.event, "approval_requested");
  EXPECT_EQ(email.payload["to"], Json({"ana@example.com"}));
  EXPECT_EQ(email.payload["cc"], Json({"data-owner@example.com"}));
  EXPECT_EQ(email.payload["notice"]["link"], "https://dw.example.com/incidents/inc-2026-11-24-points-balance");

  n.event = EventKind::kEscalated;
  r = Enqueue(ws, *store_, clock_, n);
  ASSERT_TRUE(r.ok());
  all = store_->OutboxFor(n.incident_id);
  EXPECT_EQ(all->back().payload["to"], Json({"loyalty-lead@example.com"}));

  n.domain = "nowhere";
  auto bad = Enqueue(ws, *store_, clock_, n);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("names domain 'nowhere'"), std::string::npos);
}

TEST_P(NotifyOutboxTest, SeverityRaisedTwiceIsTwoMessagesByRevision) {
  auto ws = LoyaltyWorkspace({{"pagerduty", {{"routing_key", "k"}, {"url", "http://127.0.0.1:9"}}}});
  IncidentNotice n = LoyaltyNotice(EventKind::kSeverityRaised);
  n.severity = "SEV2";
  n.revision = "SEV2";
  ASSERT_EQ(Enqueue(ws, *store_, clock_, n)->queued.size(), 1u);
  n.severity = n.revision = "SEV1";
  ASSERT_EQ(Enqueue(ws, *store_, clock_, n)->queued.size(), 1u);
  auto all = store_->OutboxFor(n.incident_id);
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[1].event, "severity_raised:SEV1");
}

TEST_P(NotifyOutboxTest, A500IsRetriedAfterTheBackoffAndTheIncidentsOrderIsKept) {
  auto sim = StartReceiver(sim::Platform::kPagerDuty,
                           {{"faults", {{{"method", "POST"}, {"path", "/v2/enqueue"}, {"status", 500},
                                         {"body", "{\"status\":\"error\"}"}, {"times", 1}}}}});
  ASSERT_NE(sim, nullptr);
  auto ws = LoyaltyWorkspace({{"pagerduty", {{"routing_key", "k"}, {"url", sim->url()}}}});
  ASSERT_TRUE(Enqueue(ws, *store_, clock_, LoyaltyNotice(EventKind::kOpen)).ok());
  ASSERT_TRUE(Enqueue(ws, *store_, clock_, LoyaltyNotice(EventKind::kResolved)).ok());
  auto first = DeliverDue(ws, *store_, *http_, *mail_, clock_, Fast());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->sent, 0);
  EXPECT_EQ(first->retried, 1);
  // The resolve waits behind its trigger: PagerDuty saw nothing processed.
  EXPECT_TRUE(State(*sim)["incidents"].empty());
  auto status = NotificationsOf(*store_, LoyaltyNotice(EventKind::kOpen).incident_id);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ((*status)[0].state, "pending");
  EXPECT_EQ((*status)[0].attempts, 1);
  EXPECT_NE((*status)[0].last_error.find("PagerDuty trigger answered HTTP 500"), std::string::npos);
  // Not due before the backoff.
  clock_.Advance(std::chrono::seconds(5));
  EXPECT_EQ(DeliverDue(ws, *store_, *http_, *mail_, clock_, Fast())->sent, 0);
  clock_.Advance(std::chrono::seconds(6));
  auto second = DeliverDue(ws, *store_, *http_, *mail_, clock_, Fast());
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->sent, 2);
  Json inc = State(*sim)["incidents"][LoyaltyNotice(EventKind::kOpen).dedup_key];
  EXPECT_EQ(inc["status"], "resolved");
  EXPECT_EQ(inc["incidents_opened"], 1);
  status = NotificationsOf(*store_, LoyaltyNotice(EventKind::kOpen).incident_id);
  EXPECT_EQ((*status)[0].state, "sent");
  EXPECT_EQ((*status)[0].attempts, 2);
  EXPECT_EQ((*status)[0].answer["dedup_key"], LoyaltyNotice(EventKind::kOpen).dedup_key);
}

TEST_P(NotifyOutboxTest, GivenUpAfterTheBoundWithTheFailureRecorded) {
  dw::testing::LoopbackHttpServer down;
  int hits = 0;
  down.server().Post("/v2/alerts", [&](const httplib::Request&, httplib::Response& res) {
    ++hits;
    res.status = 503;
    res.set_content("{\"message\":\"down\"}", "application/json");
  });
  down.Start();
  auto ws = LoyaltyWorkspace({{"opsgenie", {{"api_key", "key-1234"}, {"url", down.url()}}}});
  ASSERT_TRUE(Enqueue(ws, *store_, clock_, LoyaltyNotice(EventKind::kOpen)).ok());
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(DeliverDue(ws, *store_, *http_, *mail_, clock_, Fast()).ok());
    clock_.Advance(std::chrono::minutes(5));
  }
  auto status = NotificationsOf(*store_, LoyaltyNotice(EventKind::kOpen).incident_id);
  ASSERT_EQ(status->size(), 1u);
  EXPECT_EQ((*status)[0].state, "failed");
  EXPECT_EQ((*status)[0].attempts, 3);
  EXPECT_NE((*status)[0].last_error.find("gave up after 3 attempts"), std::string::npos) << (*status)[0].last_error;
  EXPECT_EQ(hits, 3);
}

TEST_P(NotifyOutboxTest, AWebhookThatLosesItsAnswersShowsTheMessageAtMostTwice) {
  // Every answer is lost after the card was taken: a third attempt would show it a third time.
  auto sim = StartReceiver(sim::Platform::kTeams,
                           {{"faults", {{{"method", "POST"}, {"path", "/workflows/*"}, {"status", 502},
                                         {"body", "{}"}, {"after", true}}}}});
  ASSERT_NE(sim, nullptr);
  auto ws = LoyaltyWorkspace({{"teams", {{"webhook", sim->url() + "/workflows/x"}}}});
  ASSERT_TRUE(Enqueue(ws, *store_, clock_, LoyaltyNotice(EventKind::kOpen)).ok());
  DeliveryOptions o = Fast();
  o.max_attempts = 8;
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(DeliverDue(ws, *store_, *http_, *mail_, clock_, o).ok());
    clock_.Advance(std::chrono::minutes(10));
  }
  EXPECT_EQ(State(*sim)["cards"].size(), 2u);
  auto status = NotificationsOf(*store_, LoyaltyNotice(EventKind::kOpen).incident_id);
  ASSERT_EQ(status->size(), 1u);
  EXPECT_EQ((*status)[0].state, "failed");
  EXPECT_EQ((*status)[0].attempts, 2);
  EXPECT_NE((*status)[0].last_error.find("may have reached the service"), std::string::npos) << (*status)[0].last_error;
}

TEST_P(NotifyOutboxTest, RateLimitsNeverCountAsLandedAndAreRetriedToTheBound) {
  // A 429 says the request was not taken: no copy can have arrived, so the bound is max_attempts.
  auto sim = StartReceiver(sim::Platform::kTeams,
                           {{"faults", {{{"method", "POST"}, {"path", "/workflows/*"}, {"status", 429},
                                         {"body", "{}"}, {"times", 4}}}}});
  ASSERT_NE(sim, nullptr);
  auto ws = LoyaltyWorkspace({{"teams", {{"webhook", sim->url() + "/workflows/x"}}}});
  ASSERT_TRUE(Enqueue(ws, *store_, clock_, LoyaltyNotice(EventKind::kOpen)).ok());
  DeliveryOptions o = Fast();
  o.max_attempts = 8;
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(DeliverDue(ws, *store_, *http_, *mail_, clock_, o).ok());
    clock_.Advance(std::chrono::minutes(10));
  }
  EXPECT_EQ(State(*sim)["cards"].size(), 1u);
  auto status = NotificationsOf(*store_, LoyaltyNotice(EventKind::kOpen).incident_id);
  EXPECT_EQ((*status)[0].state, "sent");
  EXPECT_EQ((*status)[0].attempts, 5);
}

TEST_P(NotifyOutboxTest, ARetryAfterHoldsItsOwnIncidentsMessagesOnlyWhileTheOthersGo) {
  // The first request is rate limited with Retry-After: 90 (the outbox's own backoff is 10 s).
  auto sim = StartReceiver(sim::Platform::kTeams,
                           {{"faults", {{{"method", "POST"}, {"path", "/workflows/*"}, {"status", 429},
                                         {"headers", {{"Retry-After", "90"}}}, {"body", "{}"}, {"times", 1}}}}});
  ASSERT_NE(sim, nullptr);
  auto ws = LoyaltyWorkspace({{"teams", {{"webhook", sim->url() + "/workflows/x"}}}});
  IncidentNotice first = LoyaltyNotice(EventKind::kOpen);
  IncidentNotice behind = LoyaltyNotice(EventKind::kResolved);
  IncidentNotice other = LoyaltyNotice(EventKind::kOpen);
  other.incident_id = "inc-other";
  other.title = "another incident";
  for (const auto& n : {first, behind, other}) ASSERT_TRUE(Enqueue(ws, *store_, clock_, n).ok());
  DeliveryOptions o = Fast();
  o.parallel = 1;  // the rate-limited request is the first one sent
  auto r = DeliverDue(ws, *store_, *http_, *mail_, clock_, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->sent, 1);  // the other incident's message went at once
  EXPECT_EQ(r->retried, 1);
  auto mine = store_->OutboxFor(first.incident_id);
  ASSERT_TRUE(mine.ok());
  ASSERT_EQ(mine->size(), 2u);
  EXPECT_EQ((*mine)[0].state, "pending");
  EXPECT_EQ((*mine)[0].next_attempt_at, clock_.Now() + std::chrono::seconds(90));  // Retry-After, not 10 s
  EXPECT_NE((*mine)[0].last_error.find("Retry-After 90 s"), std::string::npos) << (*mine)[0].last_error;
  EXPECT_EQ((*mine)[1].state, "pending");  // the resolve waits behind its open
  clock_.Advance(std::chrono::seconds(60));
  r = DeliverDue(ws, *store_, *http_, *mail_, clock_, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->sent + r->retried + r->failed, 0);  // not before the service said
  clock_.Advance(std::chrono::seconds(30));
  r = DeliverDue(ws, *store_, *http_, *mail_, clock_, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->sent, 2);  // the open, then the resolve, in order
  Json cards = State(*sim)["cards"];
  ASSERT_EQ(cards.size(), 3u);
  EXPECT_NE(cards[1].dump().find("Opened"), std::string::npos);
  EXPECT_NE(cards[2].dump().find("Resolved"), std::string::npos);
}

TEST_P(NotifyOutboxTest, NothingIsLostWhenTheProcessDiesBetweenWriteAndSend) {
  auto sim = StartReceiver(sim::Platform::kTeams);
  ASSERT_NE(sim, nullptr);
  auto ws = LoyaltyWorkspace({{"teams", {{"webhook", sim->url() + "/workflows/x"}}}});
  ASSERT_TRUE(Enqueue(ws, *store_, clock_, LoyaltyNotice(EventKind::kOpen)).ok());
  store_.reset();  // the process is gone: nothing of it but what it committed
  store_ = Open();
  ASSERT_NE(store_, nullptr);
  auto r = DeliverDue(ws, *store_, *http_, *mail_, clock_, Fast());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->sent, 1);
  EXPECT_EQ(State(*sim)["cards"].size(), 1u);
  // And a second pass sends nothing again.
  EXPECT_EQ(DeliverDue(ws, *store_, *http_, *mail_, clock_, Fast())->sent, 0);
  EXPECT_EQ(State(*sim)["cards"].size(), 1u);
}

TEST_P(NotifyOutboxTest, SlackBotMessageIsEditedThroughTheIncidentsLifecycle) {
  auto sim = StartReceiver(sim::Platform::kSlack, {{"token", "xoxb-1234"}});
  ASSERT_NE(sim, nullptr);
  auto ws = LoyaltyWorkspace({{"slack", {{"token", "xoxb-1234"}, {"channel", "C0LOYALTY"}, {"api_url", sim->url() + "/api"}}}});
  for (EventKind e : {EventKind::kOpen, EventKind::kApprovalRequested, EventKind::kApproved,
                      EventKind::kVerified, EventKind::kResolved}) {
    ASSERT_TRUE(Enqueue(ws, *store_, clock_, LoyaltyNotice(e)).ok());
    ASSERT_EQ(DeliverDue(ws, *store_, *http_, *mail_, clock_, Fast())->sent, 1);
  }
  Json messages = State(*sim)["messages"];
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages.begin().value()["edits"], 4);
  EXPECT_EQ(messages.begin().value()["text"], "[SEV1] Resolved: avg_active_balance at 9% of baseline");
}

TEST_P(NotifyOutboxTest, AMisconfiguredChannelIsRecordedNotLost) {
  auto ws = LoyaltyWorkspace({{"slack", {{"webhook", "http://hooks.example.com/services/plain"}}}});
  ASSERT_EQ(Enqueue(ws, *store_, clock_, LoyaltyNotice(EventKind::kOpen))->queued.size(), 1u);
  auto r = DeliverDue(ws, *store_, *http_, *mail_, clock_, Fast());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->failed, 1);
  auto status = NotificationsOf(*store_, LoyaltyNotice(EventKind::kOpen).incident_id);
  EXPECT_EQ((*status)[0].state, "failed");
  EXPECT_NE((*status)[0].last_error.find("notify.slack.webhook must be an https:// URL"), std::string::npos);
}

TEST_P(NotifyOutboxTest, EmailApprovalRequestReachesTheApprovers) {
  auto smtp = sim::SmtpReceiver::Start(Json::object());
  ASSERT_TRUE(smtp.ok());
  auto ws = LoyaltyWorkspace({{"email", {{"smtp", (*smtp)->url()}, {"from", "dw@example.com"}}}});
  ASSERT_EQ(Enqueue(ws, *store_, clock_, LoyaltyNotice(EventKind::kApprovalRequested))->queued.size(), 1u);
  ASSERT_EQ(DeliverDue(ws, *store_, *http_, *mail_, clock_, Fast())->sent, 1);
  auto got = (*smtp)->received();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0]["to"], Json({"ana@example.com", "data-owner@example.com"}));
}

TEST_P(NotifyOutboxTest, StoreRefusesMalformedMessagesAndUnknownIds) {
  store::OutboxMessage m;
  m.incident_id = "i";
  m.channel = "slack";
  EXPECT_EQ(store_->EnqueueOutbox(m).status().code(), StatusCode::kInvalidArgument);
  m.event = "open";
  m.state = "lost";
  EXPECT_EQ(store_->EnqueueOutbox(m).status().code(), StatusCode::kInvalidArgument);
  m.state = "pending";
  ASSERT_TRUE(*store_->EnqueueOutbox(m));
  EXPECT_FALSE(*store_->EnqueueOutbox(m));
  m.id = 999999;
  EXPECT_EQ(store_->UpdateOutbox(m).code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->DueOutbox(clock_.Now(), 0).status().code(), StatusCode::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Store, NotifyOutboxTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace notify_outbox_test
}  // namespace
}  // namespace dw::platforms::notify
