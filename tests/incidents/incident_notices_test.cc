// The incident's lifecycle feeds the notification outbox: opened, severity raised (once per new
// level), verified, each written with the incident in one transaction and deduplicated, with the
// incident's dedup key; nothing without notify:. The resolution is told with its receipt.
#include <gtest/gtest.h>

#include <map>

#include "base/redaction.h"
#include "tests/incidents/incidents_test_support.h"
#include "tests/platforms/notify/notify_test_support.h"
#include "tests/support/loopback_http_server.h"

namespace dw::incidents {
namespace {

using test_support::At;

class IncidentNotices : public test_support::DeskTest {
 protected:
  void SetUp() override {
    DeskTest::SetUp();
    if (IsSkipped()) return;
    ws_.name = "shop";
    ws_.notify = Json{{"teams", {{"webhook", "https://example.invalid/workflows/x"}}}};
    options_ = DeskOptionsFor(ws_);
    ASSERT_EQ(options_.notify, &ws_);
    clock_.Set(At("2026-11-24T15:00:00Z"));  // a Tuesday; the sync acts on Friday at 22:00
    UseEdges({{"flink://flink/job", "table://main/t"}, {"table://main/t", "sync://hightouch/weekly"}},
             {{"sync://hightouch/weekly", "", "", "0 22 * * 5", true, {}, {}, {}, {}, {}}});
    EvaluationReport r = Evaluate({MetricSignal("rows_t", "table://main/t", "2026-11-24T15:00:00Z", 10, 1000)});
    ASSERT_EQ(r.opened.size(), 1u);
    id_ = r.opened[0];
  }
  std::vector<std::string> Events() {
    auto all = store_->OutboxFor(id_);
    EXPECT_TRUE(all.ok()) << all.status().ToString();
    std::vector<std::string> out;
    if (all.ok())
      for (const auto& m : *all) out.push_back(m.channel + " " + m.event);
    return out;
  }
  Json Notice(size_t i) {
    auto all = store_->OutboxFor(id_);
    if (!all.ok() || all->size() <= i) return Json();
    return (*all)[i].payload["notice"];
  }
  std::string id_;
};

TEST_P(IncidentNotices, OpeningWritesTheOpenNoticeWithTheIncidentsDedupKey) {
  EXPECT_EQ(Events(), std::vector<std::string>{"teams open"});
  Json n = Notice(0);
  EXPECT_EQ(n["incident_id"], id_);
  EXPECT_EQ(n["dedup_key"], "dw:shop:" + id_);
  EXPECT_EQ(n["severity"], "SEV3");  // Friday's sync is more than 24 h away
  EXPECT_EQ(n["asset"], "table://main/t");
  // Another pass with nothing new writes nothing more.
  Evaluate({});
  EXPECT_EQ(Events().size(), 1u);
}

TEST_P(IncidentNotices, SeverityRaisedIsToldOncePerLevel) {
  clock_.Set(At("2026-11-26T23:00:00Z"));  // the customer-facing sync now acts within 24 h
  Evaluate({});
  ASSERT_EQ(Events(), (std::vector<std::string>{"teams open", "teams severity_raised:SEV1"}));
  EXPECT_EQ(Notice(1)["severity"], "SEV1");
  EXPECT_EQ(Notice(1)["consumer"], "sync://hightouch/weekly");
  EXPECT_EQ(Notice(1)["deadline"], "2026-11-27T22:00:00.000Z");
  clock_.Set(At("2026-11-27T01:00:00Z"));
  Evaluate({});
  EXPECT_EQ(Events().size(), 2u);
}

TEST_P(IncidentNotices, VerificationAndAPersonsResolveAreTold) {
  clock_.Set(At("2026-11-24T17:00:00Z"));
  EvaluationReport r = Evaluate({MetricSignal("rows_t", "table://main/t", "2026-11-24T17:00:00Z", 990, 1000, false)});
  ASSERT_EQ(r.resolved, std::vector<std::string>{id_});
  ASSERT_EQ(Events(), (std::vector<std::string>{"teams open", "teams verified"}));
  EXPECT_NE(Notice(1)["summary"].get<std::string>().find("back to normal"), std::string::npos) << Notice(1).dump();
}

TEST_P(IncidentNotices, APersonsResolveIsToldWithItsReceiptNotBeforeIt) {
  // The resolution reaches people with the receipt that records it (actions::NotifyResolved), so
  // the desk writes nothing that would take the receipt's place.
  clock_.Set(At("2026-11-24T16:00:00Z"));
  ASSERT_TRUE(Desk().Resolve(id_, "ana@example.com", "redeployed v4.1").ok());
  EXPECT_EQ(Events(), std::vector<std::string>{"teams open"});
}

// The bad answers, each through the outbox: an HTML page, a redirect to another host, an
// enormous body, a TLS failure, a webhook that is not https outside loopback. Each is a clear error
// recorded on its message (`dw incidents show` lists it), no secret in it, and the incident is
// exactly as it was.
TEST_P(IncidentNotices, EveryBadAnswerIsRecordedOnItsMessageAndTheIncidentIsUntouched) {
  auto html = dw::testing::StartReceiver(
      sim::Platform::kTeams, {{"faults", {{{"method", "POST"}, {"path", "/*"}, {"status", 200},
                                           {"content_type", "text/html"},
                                           {"body", "<html><body>Sign in to continue</body></html>"}}}}});
  auto enormous = dw::testing::StartReceiver(
      sim::Platform::kPagerDuty, {{"faults", {{{"method", "POST"}, {"path", "/v2/enqueue"}, {"status", 202},
                                               {"body", std::string(1024, 'x')}, {"repeat_body", 1024}}}}});
  auto plain = dw::testing::StartReceiver(sim::Platform::kSlack);  // plain HTTP: a TLS handshake fails
  ASSERT_TRUE(html && enormous && plain);
  dw::testing::LoopbackHttpServer redirect;
  int redirected = 0;
  auto to_elsewhere = [&](const httplib::Request&, httplib::Response& res) {
    ++redirected;
    res.status = 307;
    res.set_header("Location", "http://evil.example.net/steal");
  };
  redirect.server().Post(".*", to_elsewhere);
  redirect.server().Put(".*", to_elsewhere);  // a raised severity updates the alert's priority
  redirect.Start();
  const std::string tls_webhook = "https://127.0.0.1:" + std::to_string(plain->port()) + "/services/T0/B0/tls-secret";
  const std::string clear_webhook = "http://hooks.slack.com/services/T0/B0/plain-secret";
  RegisterSecret(tls_webhook);
  RegisterSecret(clear_webhook);
  ws_.notify = Json{{"teams", {{"webhook", html->url() + "/workflows/x"}}},
                    {"pagerduty", {{"routing_key", "k"}, {"url", enormous->url()}}},
                    {"opsgenie", {{"api_key", "genie-secret"}, {"url", redirect.url()}}},
                    {"slack", {{"webhook", tls_webhook}}}};
  RegisterSecret("genie-secret");
  auto inc = Get(id_);
  auto before = store_->GetIncident(id_);
  ASSERT_TRUE(before.ok() && before->has_value());
  ASSERT_TRUE(EnqueueNotice(ws_, *store_, clock_, NoticeOf(ws_, inc, platforms::notify::EventKind::kSeverityRaised, "")).ok());

  auto http = net::MakeCurlHttpClient();
  auto mail = net::MakeCurlMailClient();
  platforms::notify::DeliveryOptions o;
  o.request_timeout = std::chrono::milliseconds(3000);
  auto sent = platforms::notify::DeliverDue(ws_, *store_, *http, *mail, clock_, o);
  ASSERT_TRUE(sent.ok()) << sent.status().ToString();
  // The TLS failure may pass, so it is retried; its next attempt finds the webhook in clear text.
  ws_.notify["slack"]["webhook"] = clear_webhook;
  clock_.Advance(std::chrono::minutes(1));
  sent = platforms::notify::DeliverDue(ws_, *store_, *http, *mail, clock_, o);
  ASSERT_TRUE(sent.ok()) << sent.status().ToString();

  auto shown = Desk().Notifications(id_);
  ASSERT_TRUE(shown.ok()) << shown.status().ToString();
  std::map<std::string, std::vector<std::string>> errors;  // channel -> last_error of each message
  for (const auto& n : *shown) errors[n.channel].push_back(n.state + ": " + n.last_error);
  auto last = [&](const std::string& channel) {
    return errors[channel].empty() ? std::string() : errors[channel].back();
  };
  EXPECT_NE(last("teams").find("failed: "), std::string::npos) << last("teams");
  EXPECT_NE(last("teams").find("with an HTML page instead of its API's answer"), std::string::npos) << last("teams");
  EXPECT_NE(last("opsgenie").find("HTTP 307 redirecting to host evil.example.net; not followed"), std::string::npos)
      << last("opsgenie");
  EXPECT_EQ(redirected, 1);  // no second request carrying the key
  EXPECT_NE(last("pagerduty").find("larger than 262144 bytes"), std::string::npos) << last("pagerduty");
  EXPECT_NE(last("slack").find("failed: "), std::string::npos) << last("slack");
  EXPECT_NE(last("slack").find("must be an https:// URL"), std::string::npos) << last("slack");
  auto slack = store_->OutboxFor(id_);
  ASSERT_TRUE(slack.ok());
  for (const auto& m : *slack) {
    if (m.channel != "slack") continue;
    EXPECT_EQ(m.attempts, 2);  // the TLS failure, then the refusal
    EXPECT_EQ(m.last_error.find("plain-secret"), std::string::npos) << m.last_error;
  }
  for (const auto& [channel, list] : errors)
    for (const auto& e : list) {
      EXPECT_EQ(e.find("tls-secret"), std::string::npos) << e;
      EXPECT_EQ(e.find("genie-secret"), std::string::npos) << e;
    }
  // The incident itself: not a field changed.
  auto after = store_->GetIncident(id_);
  ASSERT_TRUE(after.ok() && after->has_value());
  EXPECT_EQ((*after)->body.dump(), (*before)->body.dump());
  EXPECT_EQ((*after)->status, (*before)->status);
  EXPECT_EQ((*after)->updated_at, (*before)->updated_at);
}

TEST_P(IncidentNotices, AWorkspaceWithoutNotifyWritesNoMessage) {
  config::Workspace quiet;
  EXPECT_EQ(DeskOptionsFor(quiet).notify, nullptr);
  options_.notify = nullptr;
  desk_.reset();
  clock_.Set(At("2026-11-24T16:00:00Z"));
  EvaluationReport r = Evaluate({MetricSignal("rows_u", "table://main/u", "2026-11-24T16:00:00Z", 10, 1000)});
  ASSERT_EQ(r.opened.size(), 1u);
  auto all = store_->OutboxFor(r.opened[0]);
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->empty());
}

INSTANTIATE_TEST_SUITE_P(Store, IncidentNotices, ::testing::Values("sqlite", "postgresql"),
                         test_support::BackendName);

}  // namespace
}  // namespace dw::incidents
