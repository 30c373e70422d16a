// Notification delivery through the outbox, measured against the loopback receivers:
// UPDATES incident updates (default 10,000: 2,000 incidents x 5 events) written to the outbox of a
// SQLite state store, then drained by DeliverDue against a receiver that fails 20% of requests
// (5% 429, 5% 500, 5% a dropped connection, all before doing the work, and 5% a 500 after doing
// it: the answer lost, the work done). For each channel: the drain time (target < 10 s), the
// requests the receiver saw, and what the service ended up with: one Opsgenie alert per alias,
// one PagerDuty incident per dedup_key and one Slack message edited per incident (exactly once),
// and for incoming webhooks (Slack webhook, Teams) how many messages arrived more than once (at
// most twice: a second attempt whose answer was lost gives a message up, counted as failed, and
// the bench says how many of those never arrived).
// The receivers run in this process (their CPU is counted with ours).
// usage: notify_delivery_bench [UPDATES] [CHANNEL...]   (channels: opsgenie pagerduty slack-bot
//        slack-webhook teams; default all)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "net/http_client.h"
#include "net/mail_client.h"
#include "platforms/notify/notify.h"
#include "sim/sim_support.h"
#include "store/state_store.h"

namespace {

namespace fs = std::filesystem;
namespace notify = dw::platforms::notify;
using dw::Json;
using Steady = std::chrono::steady_clock;

// The four faults, each hitting about 5% of all requests: each counts only the requests the
// faults before it let through.
Json AllFaults(const std::string& method, const std::string& path) {
  Json faults = Json::array();
  auto add = [&](Json f) {
    f["method"] = method;
    f["path"] = path;
    faults.push_back(f);
  };
  add({{"status", 429}, {"body", "{\"message\":\"rate limited\"}"}, {"every", 20}});
  add({{"status", 500}, {"body", "{\"message\":\"internal\"}"}, {"every", 19}});
  add({{"status", 200}, {"body", std::string(100, 'x')}, {"cut_after_bytes", 0}, {"every", 18}});
  add({{"status", 500}, {"body", "{\"message\":\"lost answer\"}"}, {"every", 17}, {"after", true}});
  return faults;
}

// NOTIFY_BENCH_FAULTS picks some of them by index ("" none: the baseline; "03": 429s and lost answers).
Json FailingScript(const std::string& method, const std::string& path) {
  Json all = AllFaults(method, path);
  const char* only = std::getenv("NOTIFY_BENCH_FAULTS");
  if (only == nullptr) return Json{{"faults", all}};
  Json some = Json::array();
  for (char c : std::string(only))
    if (c >= '0' && c <= '3') some.push_back(all[c - '0']);
  return Json{{"faults", some}};
}

Json Get(dw::net::HttpClient& http, const std::string& url) {
  dw::net::HttpRequest req;
  req.url = url;
  req.max_response_bytes = 1u << 30;
  auto r = http.Send(req);
  return r.ok() ? Json::parse(r->body, nullptr, false) : Json();
}

struct Plan {
  dw::sim::Platform platform;
  std::string method, path;  // what the faults hit
  Json channel;              // notify.<name> settings; "URL" replaced by the receiver's
  std::string name;
  std::vector<notify::EventKind> events;
};

int Run(const std::string& which, int updates) {
  using E = notify::EventKind;
  std::map<std::string, Plan> plans = {
      {"opsgenie", {dw::sim::Platform::kOpsgenie, "POST", "/v2/alerts*", {{"api_key", "bench-key"}}, "opsgenie",
                    {E::kOpen, E::kSeverityRaised, E::kSeverityRaised, E::kSeverityRaised, E::kResolved}}},
      {"pagerduty", {dw::sim::Platform::kPagerDuty, "POST", "/v2/enqueue", {{"routing_key", "bench-key"}}, "pagerduty",
                     {E::kOpen, E::kSeverityRaised, E::kEscalated, E::kApproved, E::kResolved}}},
      {"slack-bot", {dw::sim::Platform::kSlack, "POST", "/api/*", {{"token", "xoxb-bench"}, {"channel", "C0BENCH"}}, "slack",
                     {E::kOpen, E::kSeverityRaised, E::kApprovalRequested, E::kApproved, E::kResolved}}},
      {"slack-webhook", {dw::sim::Platform::kSlack, "POST", "/services/*", Json::object(), "slack",
                         {E::kOpen, E::kSeverityRaised, E::kApprovalRequested, E::kApproved, E::kResolved}}},
      {"teams", {dw::sim::Platform::kTeams, "POST", "/workflows/*", Json::object(), "teams",
                 {E::kOpen, E::kSeverityRaised, E::kApprovalRequested, E::kApproved, E::kResolved}}},
  };
  auto it = plans.find(which);
  if (it == plans.end()) {
    std::fprintf(stderr, "unknown channel %s\n", which.c_str());
    return 2;
  }
  Plan& p = it->second;
  auto sim = dw::sim::RunningSim::Start(p.platform, FailingScript(p.method, p.path));
  if (!sim.ok()) return 1;
  Json settings = p.channel;
  if (which == "opsgenie" || which == "pagerduty") settings["url"] = (*sim)->url();
  if (which == "slack-bot") settings["api_url"] = (*sim)->url() + "/api";
  if (which == "slack-webhook") settings["webhook"] = (*sim)->url() + "/services/T0/B0/bench";
  if (which == "teams") settings["webhook"] = (*sim)->url() + "/workflows/bench";
  dw::config::Workspace ws;
  ws.notify = Json{{p.name, settings}};

  fs::path dir = fs::temp_directory_path() / ("dw-notify-bench-" + std::to_string(::getpid()) + "-" + which);
  fs::remove_all(dir);
  auto store = dw::store::OpenStateStore((dir / "state.db").string());
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    return 1;
  }
  const int per_incident = static_cast<int>(p.events.size());
  const int incidents = updates / per_incident;
  const char* sev[] = {"SEV4", "SEV3", "SEV2", "SEV1"};
  auto t0 = Steady::now();
  for (int i = 0; i < incidents; ++i) {
    int raises = 0;
    for (E e : p.events) {
      notify::IncidentNotice n;
      n.incident_id = "inc-" + std::to_string(i);
      n.dedup_key = "dw:bench:" + std::to_string(i);
      n.event = e;
      n.severity = "SEV4";
      if (e == E::kSeverityRaised) {
        n.severity = sev[std::min(3, ++raises)];
        n.revision = n.severity;
      } else if (raises > 0) {
        n.severity = sev[std::min(3, raises)];
      }
      n.title = "bench incident " + std::to_string(i);
      n.asset = "table://main/bench.t" + std::to_string(i % 50);
      n.cause = "a restore that skipped state";
      n.summary = "receipt of incident " + std::to_string(i);
      auto r = notify::Enqueue(ws, **store, dw::RealClock(), n);
      if (!r.ok() || r->queued.size() != 1) {
        std::fprintf(stderr, "enqueue failed: %s\n", r.ok() ? "not routed" : r.status().ToString().c_str());
        return 1;
      }
    }
  }
  double enqueue_s = std::chrono::duration<double>(Steady::now() - t0).count();

  auto http = dw::net::MakeCurlHttpClient();
  auto mail = dw::net::MakeCurlMailClient();
  notify::DeliveryOptions o;
  o.first_backoff = std::chrono::milliseconds(50);
  o.max_backoff = std::chrono::milliseconds(800);
  o.max_attempts = 10;
  o.parallel = std::getenv("NOTIFY_BENCH_PARALLEL") ? std::atoi(std::getenv("NOTIFY_BENCH_PARALLEL")) : 4;
  o.batch = 500;
  o.request_timeout = std::chrono::milliseconds(5000);
  const int total = incidents * per_incident;
  int sent = 0, failed = 0, retried = 0;
  auto t1 = Steady::now();
  while (sent + failed < total) {
    auto r = notify::DeliverDue(ws, **store, *http, *mail, dw::RealClock(), o);
    if (!r.ok()) {
      std::fprintf(stderr, "deliver: %s\n", r.status().ToString().c_str());
      return 1;
    }
    if (std::getenv("NOTIFY_BENCH_VERBOSE"))
      std::fprintf(stderr, "pass at %.2f s: sent %d retried %d failed %d\n",
                   std::chrono::duration<double>(Steady::now() - t1).count(), r->sent, r->retried, r->failed);
    sent += r->sent;
    failed += r->failed;
    retried += r->retried;
    if (sent + failed < total) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (Steady::now() - t1 > std::chrono::minutes(2)) break;
  }
  double drain_s = std::chrono::duration<double>(Steady::now() - t1).count();
  Json received = Get(*http, (*sim)->url() + "/_sim/received")["requests"];
  Json state = Get(*http, (*sim)->url() + "/_sim/state");
  std::printf("%-13s updates %d (%d incidents)  enqueue %.2f s  drain %.2f s  sent %d  failed %d  "
              "retried attempts %d  requests seen %zu\n",
              which.c_str(), total, incidents, enqueue_s, drain_s, sent, failed, retried, received.size());
  // What the service ended up with.
  if (which == "opsgenie") {
    int closed_once = 0, p1 = 0;
    for (const auto& a : state["alerts"]) {
      closed_once += a["status"] == "closed" && a["notes"].size() == 1;
      p1 += a["priority"] == "P1";
    }
    std::printf("  alerts %zu (want %d), closed with exactly one receipt note %d, at P1 %d\n",
                state["alerts"].size(), incidents, closed_once, p1);
  } else if (which == "pagerduty") {
    int once = 0, resolved = 0;
    for (const auto& [k, v] : state["incidents"].items()) {
      once += v["incidents_opened"] == 1;
      resolved += v["status"] == "resolved";
    }
    std::printf("  PagerDuty incidents %zu (want %d), opened exactly once %d, resolved %d\n",
                state["incidents"].size(), incidents, once, resolved);
  } else if (which == "slack-bot") {
    int final_edited = 0, orphans = 0, repeated_edits = 0;
    for (const auto& [ts, m] : state["messages"].items()) {
      int edits = m["edits"].get<int>();
      if (edits >= per_incident - 1 && m["text"].get<std::string>().find("Resolved") != std::string::npos) {
        ++final_edited;
        repeated_edits += edits - (per_incident - 1);  // an update applied again: same content
      } else if (edits == 0) {
        ++orphans;
      }
    }
    std::printf("  Slack messages %zu: edited through to resolved %d (want %d); extra posts whose answer "
                "was lost %d; updates applied twice (idempotent) %d\n",
                state["messages"].size(), final_edited, incidents, orphans, repeated_edits);
  } else {
    std::map<std::string, int> copies;
    for (const auto& post : which == "teams" ? state["cards"] : state["posts"]) {
      // One post per (incident, event): the headline names both.
      std::string key = which == "teams" ? post["body"][0]["text"].get<std::string>() : post["text"].get<std::string>();
      ++copies[key];
    }
    int twice = 0, worst = 0;
    for (const auto& [k, n] : copies) {
      twice += n > 1;
      worst = std::max(worst, n);
    }
    std::printf("  distinct messages %zu (want %d), arrived more than once %d, most copies of one %d; "
                "given up after two attempts that may have landed %d, of which never arrived %d\n",
                copies.size(), total, twice, worst, failed, total - static_cast<int>(copies.size()));
  }
  fs::remove_all(dir);
  // Where the service deduplicates nothing may be given up; where it cannot, the give-ups are the
  // price of "at most one extra copy", reported above.
  bool dedups = which == "opsgenie" || which == "pagerduty";
  return failed == 0 || !dedups ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::err);  // every failed attempt is logged as a warning
  int updates = argc > 1 ? std::atoi(argv[1]) : 10000;
  std::vector<std::string> channels;
  for (int i = 2; i < argc; ++i) channels.push_back(argv[i]);
  if (channels.empty()) channels = {"opsgenie", "pagerduty", "slack-bot", "slack-webhook", "teams"};
  int rc = 0;
  for (const auto& c : channels) rc |= Run(c, updates);
  return rc;
}
