// Each channel against its loopback receiver: the wire format the service expects, the service's
// answers (success, its error bodies, 429 with Retry-After) and the bad answers (HTML, a redirect,
// an enormous body, a TLS failure, a URL that is not https).
#include <gtest/gtest.h>

#include "base/log.h"
#include "platforms/notify/channel.h"
#include "sim/smtp_receiver.h"
#include "tests/platforms/notify/notify_test_support.h"
#include "tests/support/loopback_http_server.h"

namespace dw::platforms::notify {
namespace {
namespace notify_channels_test {

using dw::testing::Clients;
using dw::testing::LoyaltyNotice;
using dw::testing::Received;
using dw::testing::StartReceiver;
using dw::testing::State;
using Outcome = Delivery::Outcome;

std::unique_ptr<Channel> Make(const std::string& name, const Json& settings) {
  auto c = MakeChannel(name, settings);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::move(c).value() : nullptr;
}

TEST(SlackChannelTest, WebhookPostsABlockKitMessageWithTheCauseConsumerAndLink) {
  auto sim = StartReceiver(sim::Platform::kSlack);
  ASSERT_NE(sim, nullptr);
  Clients c;
  auto slack = Make("slack", {{"webhook", sim->url() + "/services/T0/B0/secret"}});
  Delivery d = slack->Send(LoyaltyNotice(EventKind::kApprovalRequested), {"ana@example.com"},
                           {"data-owner@example.com"}, Json::object(), c.ctx());
  ASSERT_EQ(d.outcome, Outcome::kDelivered) << d.detail;
  Json posts = State(*sim)["posts"];
  ASSERT_EQ(posts.size(), 1u);
  const Json& blocks = posts[0]["blocks"];
  EXPECT_EQ(blocks[0]["type"], "header");
  EXPECT_EQ(blocks[0]["text"]["text"], "[SEV1] Approval requested: avg_active_balance at 9% of baseline");
  EXPECT_NE(blocks[1]["text"]["text"].get<std::string>().find("*Cause (ranked first):* points-balance v4.2"),
            std::string::npos);
  std::string all = posts[0].dump();
  EXPECT_NE(all.find("sync://hightouch/tier-changes-to-braze acts at 2026-11-24T22:00:00Z"), std::string::npos);
  EXPECT_NE(all.find("table://main/loyalty.member_balances"), std::string::npos);
  EXPECT_NE(all.find("For ana@example.com; copied: data-owner@example.com"), std::string::npos);
  EXPECT_NE(all.find("<https://dw.example.com/incidents/inc-2026-11-24-points-balance|Open the incident page>"),
            std::string::npos);
}

TEST(SlackChannelTest, TheReceiverRefusesAMalformedBlockWithInvalidBlocks) {
  auto sim = StartReceiver(sim::Platform::kSlack);
  ASSERT_NE(sim, nullptr);
  auto http = net::MakeCurlHttpClient();
  net::HttpRequest req;
  req.method = "POST";
  req.url = sim->url() + "/services/T0/B0/x";
  req.body = R"({"text":"t","blocks":[{"type":"section","text":{"type":"markdown","text":"x"}}]})";
  auto r = http->Send(req);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(r->body, "invalid_blocks");
  req.body = "not json";
  r = http->Send(req);
  EXPECT_EQ(r->body, "invalid_payload");
  req.body = "{}";
  r = http->Send(req);
  EXPECT_EQ(r->body, "no_text");
}

TEST(SlackChannelTest, SlackErrorCodesAreRefusalsThatSayWhatToDo) {
  auto sim = StartReceiver(sim::Platform::kSlack, {{"revoked", {"/services/T0/B0/old"}},
                                                   {"archived", {"/services/T0/B0/gone"}}});
  ASSERT_NE(sim, nullptr);
  Clients c;
  Delivery d = Make("slack", {{"webhook", sim->url() + "/services/T0/B0/old"}})
                   ->Send(LoyaltyNotice(EventKind::kOpen), {}, {}, Json::object(), c.ctx());
  EXPECT_EQ(d.outcome, Outcome::kRefused);
  EXPECT_NE(d.detail.find("HTTP 404 no_service"), std::string::npos) << d.detail;
  EXPECT_NE(d.detail.find("revoked"), std::string::npos);
  d = Make("slack", {{"webhook", sim->url() + "/services/T0/B0/gone"}})
          ->Send(LoyaltyNotice(EventKind::kOpen), {}, {}, Json::object(), c.ctx());
  EXPECT_EQ(d.outcome, Outcome::kRefused);
  EXPECT_NE(d.detail.find("channel_is_archived"), std::string::npos) << d.detail;
}

TEST(SlackChannelTest, RateLimitIsRetriedAfterTheRetryAfterSlackGives) {
  auto sim = StartReceiver(sim::Platform::kSlack,
                           {{"faults", {{{"method", "POST"}, {"path", "/services/*"}, {"status", 429},
                                         {"body", "rate_limited"}, {"times", 1}}}}});
  ASSERT_NE(sim, nullptr);
  Clients c;
  auto slack = Make("slack", {{"webhook", sim->url() + "/services/T0/B0/x"}});
  Delivery d = slack->Send(LoyaltyNotice(EventKind::kOpen), {}, {}, Json::object(), c.ctx());
  EXPECT_EQ(d.outcome, Outcome::kRetry);
  // The fault has no Retry-After header; the outbox then uses its own backoff.
  EXPECT_FALSE(d.retry_after.has_value());
  EXPECT_EQ(slack->Send(LoyaltyNotice(EventKind::kOpen), {}, {}, Json::object(), c.ctx()).outcome,
            Outcome::kDelivered);
}

TEST(SlackChannelTest, RetryAfterHeaderIsRead) {
  dw::testing::LoopbackHttpServer server;
  server.server().Post("/services/x", [](const httplib::Request&, httplib::Response& res) {
    res.status = 429;
    res.set_header("Retry-After", "7");
    res.set_content("", "text/plain");
  });
  server.Start();
  Clients c;
  Delivery d = Make("slack", {{"webhook", server.url() + "/services/x"}})
                   ->Send(LoyaltyNotice(EventKind::kOpen), {}, {}, Json::object(), c.ctx());
  EXPECT_EQ(d.outcome, Outcome::kRetry);
  ASSERT_TRUE(d.retry_after.has_value());
  EXPECT_EQ(*d.retry_after, std::chrono::seconds(7));
  EXPECT_NE(d.detail.find("Retry-After 7 s"), std::string::npos);
}

TEST(SlackChannelTest, BotTokenPostsOnceThenEditsTheSameMessage) {
  auto sim = StartReceiver(sim::Platform::kSlack, {{"token", "xoxb-test-token"}, {"channels", {"C0LOYALTY"}}});
  ASSERT_NE(sim, nullptr);
  Clients c;
  auto slack = Make("slack", {{"token", "xoxb-test-token"}, {"channel", "C0LOYALTY"}, {"api_url", sim->url() + "/api"}});
  ASSERT_TRUE(slack->NeedsThread());
  Delivery open = slack->Send(LoyaltyNotice(EventKind::kOpen), {}, {}, Json::object(), c.ctx());
  ASSERT_EQ(open.outcome, Outcome::kDelivered) << open.detail;
  ASSERT_TRUE(open.answer.contains("ts"));
  Delivery resolved = slack->Send(LoyaltyNotice(EventKind::kResolved), {}, {}, open.answer, c.ctx());
  ASSERT_EQ(resolved.outcome, Outcome::kDelivered) << resolved.detail;
  EXPECT_EQ(resolved.answer["ts"], open.answer["ts"]);
  Json messages = State(*sim)["messages"];
  ASSERT_EQ(messages.size(), 1u);  // edited, not posted again
  const Json& m = messages[open.answer["ts"].get<std::string>()];
  EXPECT_EQ(m["edits"], 1);
  EXPECT_EQ(m["text"], "[SEV1] Resolved: avg_active_balance at 9% of baseline");
  Json received = Received(*sim);
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(received[0]["path"], "/api/chat.postMessage");
  EXPECT_EQ(received[1]["path"], "/api/chat.update");
  EXPECT_EQ(received[0]["authorization"], "Bearer xoxb-test-token");
}

// `dw doctor` asks Slack about a bot token with auth.test, which posts nothing; a webhook has no
// such call, so only a real send could tell.
TEST(SlackChannelTest, ABotTokenIsValidatedWithoutPostingAndAWebhookIsNot) {
  auto sim = StartReceiver(sim::Platform::kSlack, {{"token", "xoxb-right"}, {"channels", {"C0LOYALTY"}}});
  ASSERT_NE(sim, nullptr);
  Clients c;
  auto good = Make("slack", {{"token", "xoxb-right"}, {"channel", "C0LOYALTY"}, {"api_url", sim->url() + "/api"}});
  std::optional<Delivery> ok = good->Validate(c.ctx());
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->outcome, Outcome::kDelivered) << ok->detail;
  auto bad = Make("slack", {{"token", "xoxb-revoked"}, {"channel", "C0LOYALTY"}, {"api_url", sim->url() + "/api"}});
  std::optional<Delivery> refused = bad->Validate(c.ctx());
  ASSERT_TRUE(refused.has_value());
  EXPECT_NE(refused->outcome, Outcome::kDelivered);
  EXPECT_NE(refused->detail.find("invalid_auth"), std::string::npos) << refused->detail;
  EXPECT_EQ(refused->detail.find("xoxb-revoked"), std::string::npos);
  EXPECT_FALSE(Make("slack", {{"webhook", sim->url() + "/services/T0/B0/x"}})->Validate(c.ctx()).has_value());
  EXPECT_TRUE(State(*sim)["messages"].empty());
  EXPECT_TRUE(State(*sim)["posts"].empty());
}

TEST(SlackChannelTest, ApiErrorsComeBackAsSlackNamesThem) {
  auto sim = StartReceiver(sim::Platform::kSlack, {{"token", "xoxb-right"}, {"channels", {"C0LOYALTY"}}});
  ASSERT_NE(sim, nullptr);
  Clients c;
  Delivery d = Make("slack", {{"token", "xoxb-right"}, {"channel", "C0WRONG"}, {"api_url", sim->url() + "/api"}})
                   ->Send(LoyaltyNotice(EventKind::kOpen), {}, {}, Json::object(), c.ctx());
  EXPECT_EQ(d.outcome, Outcome::kRefused);
  EXPECT_NE(d.detail.find("chat.postMessage failed: channel_not_found"), std::string::npos) << d.detail;
  d = Make("slack", {{"token", "xoxb-wrong"}, {"channel", "C0LOYALTY"}, {"api_url", sim->url() + "/api"}})
          ->Send(LoyaltyNotice(EventKind::kOpen), {}, {}, Json::object(), c.ctx());
  EXPECT_NE(d.detail.find("invalid_auth"), std::string::npos) << d.detail;
  // An update of a message Slack does not know.
  d = Make("slack", {{"token", "xoxb-right"}, {"channel", "C0LOYALTY"}, {"api_url", sim->url() + "/api"}})
          ->Send(LoyaltyNotice(EventKind::kResolved), {}, {}, {{"channel", "C0LOYALTY"}, {"ts", "1.2"}}, c.ctx());
  EXPECT_NE(d.detail.find("chat.update failed: message_not_found"), std::string::npos) << d.detail;
}

TEST(TeamsChannelTest, PostsTheFindingCardAsAnAdaptiveCard) {
  auto sim = StartReceiver(sim::Platform::kTeams);
  ASSERT_NE(sim, nullptr);
  Clients c;
  Delivery d = Make("teams", {{"webhook", sim->url() + "/workflows/abc/triggers/manual/paths/invoke?sig=s3cret"}})
                   ->Send(LoyaltyNotice(EventKind::kOpen), {}, {}, Json::object(), c.ctx());
  ASSERT_EQ(d.outcome, Outcome::kDelivered) << d.detail;
  EXPECT_NE(d.detail.find("HTTP 202"), std::string::npos);
  Json cards = State(*sim)["cards"];
  ASSERT_EQ(cards.size(), 1u);
  EXPECT_EQ(cards[0]["type"], "AdaptiveCard");
  EXPECT_EQ(cards[0]["body"][0]["text"], "[SEV1] Opened: avg_active_balance at 9% of baseline");
  EXPECT_EQ(cards[0]["actions"][0]["url"], "https://dw.example.com/incidents/inc-2026-11-24-points-balance");
  bool has_cause = false;
  for (const auto& e : cards[0]["body"])
    if (e["type"] == "FactSet")
      for (const auto& f : e["facts"]) has_cause |= f["title"] == "Cause (ranked first)";
  EXPECT_TRUE(has_cause);
}

TEST(TeamsChannelTest, TheReceiverRefusesAMessageWithoutACard) {
  auto sim = StartReceiver(sim::Platform::kTeams);
  ASSERT_NE(sim, nullptr);
  auto http = net::MakeCurlHttpClient();
  net::HttpRequest req;
  req.method = "POST";
  req.url = sim->url() + "/workflows/x";
  req.body = R"({"text": "hello"})";
  auto r = http->Send(req);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body.find("InvalidRequestContent"), std::string::npos);
}

TEST(OpsgenieChannelTest, OneAlertPerAliasPriorityFromSeverityClosedWithTheReceipt) {
  auto sim = StartReceiver(sim::Platform::kOpsgenie, {{"api_key", "genie-key-1234"}});
  ASSERT_NE(sim, nullptr);
  Clients c;
  auto og = Make("opsgenie", {{"api_key", "genie-key-1234"}, {"url", sim->url()}});
  IncidentNotice n = LoyaltyNotice(EventKind::kOpen);
  n.severity = "SEV2";
  Delivery d = og->Send(n, {}, {}, Json::object(), c.ctx());
  ASSERT_EQ(d.outcome, Outcome::kDelivered) << d.detail;
  EXPECT_TRUE(d.answer.contains("requestId"));
  EXPECT_NE(d.detail.find("asynchronous"), std::string::npos);
  // A retry of the create is deduplicated by the alias: still one alert.
  ASSERT_EQ(og->Send(n, {}, {}, Json::object(), c.ctx()).outcome, Outcome::kDelivered);
  n.event = EventKind::kSeverityRaised;
  n.severity = "SEV1";
  ASSERT_EQ(og->Send(n, {}, {}, Json::object(), c.ctx()).outcome, Outcome::kDelivered);
  n.event = EventKind::kResolved;
  n.summary = "receipt 7: cause restore skipped state; approved by ana; checks passed; undo: revert the diff";
  Delivery closed = og->Send(n, {}, {}, Json::object(), c.ctx());
  ASSERT_EQ(closed.outcome, Outcome::kDelivered) << closed.detail;
  Json alerts = State(*sim)["alerts"];
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0]["alias"], n.dedup_key);
  EXPECT_EQ(alerts[0]["count"], 2);
  EXPECT_EQ(alerts[0]["priority"], "P1");
  EXPECT_EQ(alerts[0]["status"], "closed");
  EXPECT_EQ(alerts[0]["notes"][0], n.summary);
  EXPECT_NE(alerts[0]["description"].get<std::string>().find("skipped the aggregate's state"), std::string::npos);
  Json received = Received(*sim);
  ASSERT_EQ(received.size(), 4u);
  EXPECT_EQ(received[0]["authorization"], "GenieKey genie-key-1234");
  EXPECT_EQ(received[3]["query"]["identifierType"], "alias");
  // The request status endpoint reports the asynchronous outcome.
  Json status = dw::testing::GetJson(sim->url() + "/v2/alerts/requests/" + closed.answer["requestId"].get<std::string>());
  EXPECT_EQ(status["data"]["status"], "Closed alert");
}

TEST(OpsgenieChannelTest, AWrongKeyIsRefusedWithOpsgeniesMessage) {
  auto sim = StartReceiver(sim::Platform::kOpsgenie, {{"api_key", "right-key-1234"}});
  ASSERT_NE(sim, nullptr);
  Clients c;
  Delivery d = Make("opsgenie", {{"api_key", "wrong-key-9876"}, {"url", sim->url()}})
                   ->Send(LoyaltyNotice(EventKind::kOpen), {}, {}, Json::object(), c.ctx());
  EXPECT_EQ(d.outcome, Outcome::kRefused);
  EXPECT_NE(d.detail.find("HTTP 401): Could not authenticate"), std::string::npos) << d.detail;
  EXPECT_EQ(State(*sim)["alerts"].size(), 0u);
}

TEST(PagerDutyChannelTest, TriggerAcknowledgeResolveLandOnOneIncidentByDedupKey) {
  auto sim = StartReceiver(sim::Platform::kPagerDuty, {{"routing_keys", {"R0UTINGKEY0000000000000000000000"}}});
  ASSERT_NE(sim, nullptr);
  Clients c;
  auto pd = Make("pagerduty", {{"routing_key", "R0UTINGKEY0000000000000000000000"}, {"url", sim->url()}});
  for (EventKind e : {EventKind::kOpen, EventKind::kOpen, EventKind::kApproved, EventKind::kResolved}) {
    Delivery d = pd->Send(LoyaltyNotice(e), {}, {}, Json::object(), c.ctx());
    ASSERT_EQ(d.outcome, Outcome::kDelivered) << d.detail;
  }
  Json incidents = State(*sim)["incidents"];
  ASSERT_EQ(incidents.size(), 1u);
  const Json& inc = incidents[LoyaltyNotice(EventKind::kOpen).dedup_key];
  EXPECT_EQ(inc["incidents_opened"], 1);
  EXPECT_EQ(inc["triggers"], 2);
  EXPECT_EQ(inc["status"], "resolved");
  EXPECT_EQ(inc["severity"], "critical");
  Json first = Received(*sim)[0]["body"];
  EXPECT_EQ(first["event_action"], "trigger");
  EXPECT_EQ(first["payload"]["source"], "table://main/loyalty.member_balances");
  EXPECT_EQ(first["links"][0]["href"], "https://dw.example.com/incidents/inc-2026-11-24-points-balance");
  Json last = Received(*sim)[3]["body"];
  EXPECT_EQ(last, Json({{"routing_key", "R0UTINGKEY0000000000000000000000"}, {"event_action", "resolve"},
                        {"dedup_key", LoyaltyNotice(EventKind::kOpen).dedup_key}}));
}

TEST(PagerDutyChannelTest, AMissingRoutingKeyGetsPagerDutysErrorBody) {
  auto sim = StartReceiver(sim::Platform::kPagerDuty);
  ASSERT_NE(sim, nullptr);
  Clients c;
  Delivery d = Make("pagerduty", {{"routing_key", ""}, {"url", sim->url()}})
                   ->Send(LoyaltyNotice(EventKind::kOpen), {}, {}, Json::object(), c.ctx());
  EXPECT_EQ(d.outcome, Outcome::kRefused);
  EXPECT_NE(d.detail.find("HTTP 400): Event object is invalid; 'routing_key' is missing or blank"), std::string::npos)
      << d.detail;
}

TEST(EmailChannelTest, ApprovalRequestGoesToTheApproversWithPlainTextAndHtml) {
  auto smtp = sim::SmtpReceiver::Start({{"username", "dw"}, {"password", "smtp-pass-1234"}});
  ASSERT_TRUE(smtp.ok()) << smtp.status().ToString();
  Clients c;
  auto mail = Make("email", {{"smtp", (*smtp)->url()}, {"from", "dw@example.com"},
                             {"username", "dw"}, {"password", "smtp-pass-1234"}});
  Delivery d = mail->Send(LoyaltyNotice(EventKind::kApprovalRequested), {"pricing-owner@example.com"},
                          {"data-owner@example.com"}, Json::object(), c.ctx());
  ASSERT_EQ(d.outcome, Outcome::kDelivered) << d.detail;
  auto got = (*smtp)->received();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0]["from"], "dw@example.com");
  EXPECT_EQ(got[0]["to"], Json({"pricing-owner@example.com", "data-owner@example.com"}));
  EXPECT_EQ(got[0]["user"], "dw");
  std::string data = got[0]["data"];
  EXPECT_NE(data.find("Subject: [SEV1] Approval requested: avg_active_balance at 9% of baseline\r\n"), std::string::npos);
  EXPECT_NE(data.find("To: pricing-owner@example.com\r\n"), std::string::npos);
  EXPECT_NE(data.find("Cc: data-owner@example.com\r\n"), std::string::npos);
  EXPECT_NE(data.find("Content-Type: text/plain; charset=utf-8"), std::string::npos);
  EXPECT_NE(data.find("Content-Type: text/html; charset=utf-8"), std::string::npos);
  EXPECT_NE(data.find("<th align=\"left\">Cause (ranked first)</th>"), std::string::npos);
  EXPECT_FALSE(mail->Handles(EventKind::kOpen));
}

TEST(EmailChannelTest, AWrongPasswordIsRefusedAndATemporaryRefusalRetried) {
  auto smtp = sim::SmtpReceiver::Start({{"username", "dw"}, {"password", "right-pass-1234"},
                                        {"fail", {{{"at", "data"}, {"code", 451}, {"times", 1}}}}});
  ASSERT_TRUE(smtp.ok());
  Clients c;
  Delivery d = Make("email", {{"smtp", (*smtp)->url()}, {"from", "dw@example.com"}, {"username", "dw"},
                              {"password", "wrong-pass-9876"}})
                   ->Send(LoyaltyNotice(EventKind::kApprovalRequested), {"a@example.com"}, {}, Json::object(), c.ctx());
  EXPECT_EQ(d.outcome, Outcome::kRefused);
  EXPECT_NE(d.detail.find("refused the login"), std::string::npos) << d.detail;
  auto right = Make("email", {{"smtp", (*smtp)->url()}, {"from", "dw@example.com"}, {"username", "dw"},
                              {"password", "right-pass-1234"}});
  d = right->Send(LoyaltyNotice(EventKind::kApprovalRequested), {"a@example.com"}, {}, Json::object(), c.ctx());
  EXPECT_EQ(d.outcome, Outcome::kRetry) << d.detail;  // 451: try again later
  d = right->Send(LoyaltyNotice(EventKind::kApprovalRequested), {"a@example.com"}, {}, Json::object(), c.ctx());
  EXPECT_EQ(d.outcome, Outcome::kDelivered) << d.detail;
  EXPECT_EQ((*smtp)->received().size(), 1u);
}

TEST(EmailChannelTest, StartTlsIsRequiredOutsideLoopback) {
  auto c = MakeChannel("email", {{"smtp", "http://mail.example.com"}, {"from", "dw@example.com"}});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("smtp:// (STARTTLS) or smtps://"), std::string::npos);
}

// ---- bad answers ----

TEST(NotifyBadInputTest, AnHtmlPageIsCalledWhatItIs) {
  auto sim = StartReceiver(sim::Platform::kTeams,
                           {{"faults", {{{"method", "POST"}, {"path", "/*"}, {"status", 200},
                                         {"content_type", "text/html"},
                                         {"body", "<html><body>Sign in to continue</body></html>"}}}}});
  ASSERT_NE(sim, nullptr);
  Clients c;
  Delivery d = Make("teams", {{"webhook", sim->url() + "/workflows/x"}})
                   ->Send(LoyaltyNotice(EventKind::kOpen), {}, {}, Json::object(), c.ctx());
  EXPECT_EQ(d.outcome, Outcome::kRefused);
  EXPECT_NE(d.detail.find("with an HTML page instead of its API's answer"), std::string::npos) << d.detail;
}

TEST(NotifyBadInputTest, ARedirectToAnotherHostIsNotFollowed) {
  dw::testing::LoopbackHttpServer server;
  int hits = 0;
  const std::string target = "http://evil.example.net/steal";
  server.server().Post("/v2/alerts", [&](const httplib::Request&, httplib::Response& res) {
    ++hits;
    res.status = 307;
    res.set_header("Location", target);
  });
  server.Start();
  Clients c;
  Delivery d = Make("opsgenie", {{"api_key", "genie-key-1234"}, {"url", server.url()}})
                   ->Send(LoyaltyNotice(EventKind::kOpen), {}, {}, Json::object(), c.ctx());
  EXPECT_EQ(d.outcome, Outcome::kRefused);
  EXPECT_NE(d.detail.find("HTTP 307 redirecting to host evil.example.net; not followed"), std::string::npos) << d.detail;
  EXPECT_EQ(hits, 1);  // one request, and no second one with the key to wherever it pointed
}

TEST(NotifyBadInputTest, AnEnormousAnswerIsRefused) {
  auto sim = StartReceiver(sim::Platform::kPagerDuty,
                           {{"faults", {{{"method", "POST"}, {"path", "/v2/enqueue"}, {"status", 202},
                                         {"body", std::string(1024, 'x')}, {"repeat_body", 1024}}}}});
  ASSERT_NE(sim, nullptr);
  Clients c;
  Delivery d = Make("pagerduty", {{"routing_key", "k"}, {"url", sim->url()}})
                   ->Send(LoyaltyNotice(EventKind::kOpen), {}, {}, Json::object(), c.ctx());
  EXPECT_EQ(d.outcome, Outcome::kRefused);
  EXPECT_NE(d.detail.find("larger than 262144 bytes"), std::string::npos) << d.detail;
}

TEST(NotifyBadInputTest, ATlsFailureIsRetriedWithTheReason) {
  auto sim = StartReceiver(sim::Platform::kSlack);  // plain HTTP: a TLS handshake fails
  ASSERT_NE(sim, nullptr);
  Clients c;
  std::string webhook = "https://127.0.0.1:" + std::to_string(sim->port()) + "/services/T0/B0/tls-secret";
  RegisterSecret(webhook);
  Delivery d = Make("slack", {{"webhook", webhook}})->Send(LoyaltyNotice(EventKind::kOpen), {}, {}, Json::object(), c.ctx());
  EXPECT_EQ(d.outcome, Outcome::kRetry);
  EXPECT_NE(d.detail.find("unreachable (connection, DNS or TLS failure)"), std::string::npos) << d.detail;
  EXPECT_EQ(d.detail.find("tls-secret"), std::string::npos) << d.detail;
}

TEST(NotifyBadInputTest, AWebhookThatIsNotHttpsOutsideLoopbackIsRefusedWithoutNamingIt) {
  for (const auto& [name, settings] : std::vector<std::pair<std::string, Json>>{
           {"slack", {{"webhook", "http://hooks.slack.com/services/T0/B0/plain-secret"}}},
           {"teams", {{"webhook", "http://prod.westus.logic.azure.com/workflows/plain-secret"}}},
           {"opsgenie", {{"api_key", "k"}, {"url", "http://api.opsgenie.com"}}},
           {"pagerduty", {{"routing_key", "k"}, {"url", "http://events.pagerduty.com"}}}}) {
    auto c = MakeChannel(name, settings);
    ASSERT_FALSE(c.ok()) << name;
    EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(c.status().message().find("must be an https:// URL"), std::string::npos) << c.status().message();
    EXPECT_EQ(c.status().message().find("plain-secret"), std::string::npos);
  }
  EXPECT_TRUE(MakeChannel("slack", {{"webhook", "http://localhost:9/services/x"}}).ok());
  EXPECT_FALSE(MakeChannel("fax", Json::object()).ok());
}

TEST(NotifyBadInputTest, AConnectionDroppedMidAnswerIsRetried) {
  auto sim = StartReceiver(sim::Platform::kPagerDuty,
                           {{"faults", {{{"method", "POST"}, {"path", "/v2/enqueue"}, {"status", 202},
                                         {"body", std::string(200, 'x')}, {"cut_after_bytes", 10}}}}});
  ASSERT_NE(sim, nullptr);
  Clients c;
  Delivery d = Make("pagerduty", {{"routing_key", "k"}, {"url", sim->url()}})
                   ->Send(LoyaltyNotice(EventKind::kOpen), {}, {}, Json::object(), c.ctx());
  EXPECT_EQ(d.outcome, Outcome::kRetry) << d.detail;
}

// The console prints the notice's lines on standard error, never a signed approval link (a console
// ends up in logs): the approver is told how to decide instead.
TEST(ConsoleChannelTest, PrintsTheNoticeOnStandardErrorWithoutApprovalLinks) {
  Clients c;
  auto console = Make("console", Json::object());
  ASSERT_NE(console, nullptr);
  EXPECT_EQ(console->type(), "console");
  IncidentNotice n = LoyaltyNotice(EventKind::kApprovalRequested);
  n.approve_urls = {{"ana@example.com", "https://dw.example.com/approve/SIGNED-TOKEN-abc"}};
  n.decide_hint = "dw approve P1 --version 1 --as ana@example.com";
  ::testing::internal::CaptureStderr();
  Delivery d = console->Send(n, {"ana@example.com"}, {"data-owner@example.com"}, Json::object(), c.ctx());
  const std::string printed = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(d.outcome, Outcome::kDelivered) << d.detail;
  EXPECT_EQ(d.answer["via"], "console");
  EXPECT_NE(printed.find("notify: [SEV1] Approval requested: avg_active_balance at 9% of baseline"), std::string::npos) << printed;
  EXPECT_NE(printed.find("sync://hightouch/tier-changes-to-braze"), std::string::npos) << printed;
  EXPECT_NE(printed.find("How to decide: dw approve P1 --version 1 --as ana@example.com"), std::string::npos) << printed;
  EXPECT_NE(printed.find("For: ana@example.com"), std::string::npos) << printed;
  EXPECT_NE(printed.find("Copied: data-owner@example.com"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("SIGNED-TOKEN"), std::string::npos) << printed;
  // The key takes no settings; an unknown one is refused by the workspace schema, and a name that
  // is no channel is refused here with the list that includes it.
  auto unknown = MakeChannel("konsole", Json::object());
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("console"), std::string::npos);
}

}  // namespace notify_channels_test
}  // namespace
}  // namespace dw::platforms::notify
