// Test helpers for notifications: a notice of the loyalty story, receivers' recordings read over
// HTTP as a test would read them from dw-sim, and a SendContext on the real clients.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "base/clock.h"
#include "base/json.h"
#include "net/http_client.h"
#include "net/mail_client.h"
#include "platforms/notify/channel.h"
#include "platforms/notify/notify.h"
#include "sim/sim_support.h"

namespace dw::testing {

inline platforms::notify::IncidentNotice LoyaltyNotice(platforms::notify::EventKind event) {
  platforms::notify::IncidentNotice n;
  n.incident_id = "inc-2026-11-24-points-balance";
  n.dedup_key = "dw:loyalty:flink://flink/points-balance:2026-11-24T15:05";
  n.event = event;
  n.severity = "SEV1";
  n.domain = "loyalty";
  n.title = "avg_active_balance at 9% of baseline";
  n.asset = "table://main/loyalty.member_balances";
  n.cause = "points-balance v4.2 restored from the 14:00 savepoint and skipped state for one operator";
  n.diagnosis = "The restore at 14:02 skipped the aggregate's state (allowNonRestoredState on).";
  n.consumer = "sync://hightouch/tier-changes-to-braze";
  n.deadline = "2026-11-24T22:00:00Z";
  n.summary = "Hold the Braze sync; redeploy v4.1 from the 14:00 savepoint";
  n.link = "https://dw.example.com/incidents/inc-2026-11-24-points-balance";
  return n;
}

// GET `path` on a receiver, as JSON.
inline Json GetJson(const std::string& url) {
  auto http = net::MakeCurlHttpClient();
  net::HttpRequest req;
  req.url = url;
  auto r = http->Send(req);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return Json();
  return Json::parse(r->body, nullptr, false);
}

inline Json Received(const sim::RunningSim& sim) { return GetJson(sim.url() + "/_sim/received")["requests"]; }
inline Json State(const sim::RunningSim& sim) { return GetJson(sim.url() + "/_sim/state"); }

inline std::unique_ptr<sim::RunningSim> StartReceiver(sim::Platform p, const Json& script = Json::object()) {
  auto s = sim::RunningSim::Start(p, script);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : nullptr;
}

// Real clients and a fixed clock for channel sends.
struct Clients {
  std::unique_ptr<net::HttpClient> http = net::MakeCurlHttpClient();
  std::unique_ptr<net::MailClient> mail = net::MakeCurlMailClient();
  SimulatedClock clock{FromUnixMillis(1'795'100'000'000)};
  platforms::notify::SendContext ctx() { return {*http, *mail, clock, std::chrono::milliseconds(3000)}; }
};

}  // namespace dw::testing
