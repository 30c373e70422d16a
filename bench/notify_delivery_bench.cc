// Notification delivery through the outbox, measured against the loopback receivers:
// UPDATES incident updates (default 10,000: 2,000 incidents x 5 events) written to the outbox of a
// state store (SQLite, or PostgreSQL with NOTIFY_BENCH_STORE=postgresql), then drained by
// DeliverDue against a receiver that fails 20% of requests: 5% 429 with Retry-After: 1, 5% 500,
// 5% a dropped connection (all three before doing the work) and 5% a 500 after doing it (the work
// done, the answer lost). NOTIFY_BENCH_FAULTS= (empty) runs without faults, as a baseline.
//
// Counted at the receiver, message by message: every request the service processed (GET
// /_sim/received) is matched to the update it carries, and compared with what the outbox says
// happened to that update (sent or given up). The run FAILS (exit 1, a "FAIL" line per reason)
// when an update is missing where the service deduplicates (Opsgenie alias, PagerDuty dedup_key,
// Slack chat.update), shown more than twice where it cannot (incoming webhooks, the first
// chat.postMessage), missing at the receiver although the outbox says sent, missing without the
// outbox recording it as given up, or when the service's state is not one alert / incident /
// message per incident, resolved. A webhook update given up after two attempts that may both have
// landed (their answers lost) and neither did is missing but recorded failed on its incident: the
// price of "at most one extra copy" where the service cannot deduplicate, which the issue's
// "given up after a bound with the failure recorded" allows. It is counted and printed, not failed.
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
#include "platforms/notify/notice.h"
#include "platforms/notify/notify.h"
#include "sim/sim_support.h"
#include "store/postgres_connection.h"
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
  add({{"status", 429}, {"body", "{\"message\":\"rate limited\"}"}, {"headers", {{"Retry-After", "1"}}}, {"every", 20}});
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

// A fresh place for the state store: a temporary SQLite file, or a schema of its own in
// $DW_TEST_PG_URL's database (scripts/with-postgres.sh sets it), dropped at the end.
class BenchStore {
 public:
  static std::unique_ptr<BenchStore> Create(const std::string& which) {
    auto b = std::unique_ptr<BenchStore>(new BenchStore());
    b->backend_ = std::getenv("NOTIFY_BENCH_STORE") ? std::getenv("NOTIFY_BENCH_STORE") : "sqlite";
    std::string suffix = std::to_string(::getpid()) + "_" + which;
    for (char& c : suffix)
      if (c == '-') c = '_';
    if (b->backend_ == "postgresql") {
      const char* base = std::getenv("DW_TEST_PG_URL");
      if (base == nullptr) {
        std::fprintf(stderr, "NOTIFY_BENCH_STORE=postgresql needs DW_TEST_PG_URL (run under scripts/with-postgres.sh)\n");
        return nullptr;
      }
      auto admin = dw::store::OpenPostgresConnection(base);
      if (!admin.ok()) return nullptr;
      b->schema_ = "dw_bench_" + suffix;  // digits, letters and underscores: safe to splice
      if (!(*admin)->ExecScript("CREATE SCHEMA " + b->schema_).ok()) return nullptr;
      b->admin_ = std::move(admin).value();
      std::string url = base;
      b->location_ = url + (url.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + b->schema_;
    } else {
      b->dir_ = fs::temp_directory_path() / ("dw-notify-bench-" + suffix);
      fs::remove_all(b->dir_);
      b->location_ = (b->dir_ / "state.db").string();
    }
    return b;
  }
  ~BenchStore() {
    store.reset();
    if (admin_) admin_->ExecScript("DROP SCHEMA IF EXISTS " + schema_ + " CASCADE");
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  const std::string& backend() const { return backend_; }
  const std::string& location() const { return location_; }
  std::unique_ptr<dw::store::StateStore> store;

 private:
  BenchStore() = default;
  std::string backend_, location_, schema_;
  fs::path dir_;
  std::unique_ptr<dw::store::SqlConnection> admin_;
};

struct Plan {
  dw::sim::Platform platform;
  std::string method, path;  // what the faults hit
  Json channel;              // notify.<name> settings
  std::string name;
  std::vector<notify::EventKind> events;
};

// The update a request processed by the receiver carries, as the key Expected() gives it.
std::string KeyOfRequest(const std::string& which, const Json& r) {
  const Json& b = r["body"];
  if (!b.is_object()) return "";
  if (which == "pagerduty") {
    std::string action = b.value("event_action", "");
    return b.value("dedup_key", "") + "|" + (action == "trigger" ? b["payload"].value("summary", "") : action);
  }
  if (which == "opsgenie") {
    std::string path = r.value("path", "");
    if (path == "/v2/alerts") return b.value("alias", "") + "|create";
    const std::string prefix = "/v2/alerts/";
    size_t slash = path.rfind('/');
    if (path.rfind(prefix, 0) != 0 || slash <= prefix.size()) return "";
    std::string alias = path.substr(prefix.size(), slash - prefix.size());
    std::string what = path.substr(slash + 1);
    return alias + "|" + (what == "priority" ? "priority " + b.value("priority", "") : what);
  }
  if (which == "teams") return b["attachments"][0]["content"]["body"][0].value("text", "");
  return b.value("text", "");  // Slack: the headline
}

std::string Expected(const std::string& which, const notify::IncidentNotice& n) {
  using E = notify::EventKind;
  if (which == "pagerduty") {
    if (n.event == E::kResolved) return n.dedup_key + "|resolve";
    if (n.event == E::kApproved) return n.dedup_key + "|acknowledge";
    return n.dedup_key + "|" + notify::Headline(n);
  }
  if (which == "opsgenie") {
    if (n.event == E::kOpen) return n.dedup_key + "|create";
    if (n.event == E::kResolved) return n.dedup_key + "|close";
    return n.dedup_key + "|priority " + notify::OpsgeniePriority(n.severity);
  }
  return notify::Headline(n);
}

// True iff the service deduplicates a repeat of this update. `earlier_sent`: an earlier update of
// the incident was sent, so a Slack bot edits that message (chat.update) instead of posting.
bool Deduplicated(const std::string& which, bool earlier_sent) {
  if (which == "opsgenie" || which == "pagerduty") return true;
  return which == "slack-bot" && earlier_sent;
}

struct Update {
  notify::IncidentNotice notice;
  std::string key;
  int copies = 0;      // requests carrying it that the receiver processed
  std::string state;   // the outbox's: sent | failed | pending
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

  auto place = BenchStore::Create(which);
  if (!place) return 1;
  auto opened = dw::store::OpenStateStore(place->location());
  if (!opened.ok()) {
    std::fprintf(stderr, "%s\n", opened.status().ToString().c_str());
    return 1;
  }
  place->store = std::move(opened).value();
  dw::store::StateStore& store = *place->store;
  const int per_incident = static_cast<int>(p.events.size());
  const int incidents = updates / per_incident;
  const char* sev[] = {"SEV4", "SEV3", "SEV2", "SEV1"};
  std::vector<Update> all;
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
      auto r = notify::Enqueue(ws, store, dw::RealClock(), n);
      if (!r.ok() || r->queued.size() != 1) {
        std::fprintf(stderr, "enqueue failed: %s\n", r.ok() ? "not routed" : r.status().ToString().c_str());
        return 1;
      }
      all.push_back({n, Expected(which, n)});
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
  int sent = 0, failed = 0, retried = 0, passes = 0;
  auto t1 = Steady::now();
  while (sent + failed < total) {
    auto r = notify::DeliverDue(ws, store, *http, *mail, dw::RealClock(), o);
    if (!r.ok()) {
      std::fprintf(stderr, "deliver: %s\n", r.status().ToString().c_str());
      return 1;
    }
    ++passes;
    if (std::getenv("NOTIFY_BENCH_VERBOSE") && (r->sent || r->failed || r->retried))
      std::fprintf(stderr, "pass at %.2f s: sent %d retried %d failed %d\n",
                   std::chrono::duration<double>(Steady::now() - t1).count(), r->sent, r->retried, r->failed);
    sent += r->sent;
    failed += r->failed;
    retried += r->retried;
    if (sent + failed < total) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (Steady::now() - t1 > std::chrono::minutes(2)) break;
  }
  double drain_s = std::chrono::duration<double>(Steady::now() - t1).count();

  // At the receiver, update by update.
  Json received = Get(*http, (*sim)->url() + "/_sim/received")["requests"];
  Json state = Get(*http, (*sim)->url() + "/_sim/state");
  std::map<std::string, int> processed;
  for (const auto& r : received) {
    int status = r.value("status", 0);
    if (status >= 200 && status < 300) ++processed[KeyOfRequest(which, r)];
  }
  std::map<std::string, std::map<std::string, std::string>> outbox;  // incident -> event -> state
  for (int i = 0; i < incidents; ++i) {
    auto rows = store.OutboxFor("inc-" + std::to_string(i));
    if (!rows.ok()) {
      std::fprintf(stderr, "outbox: %s\n", rows.status().ToString().c_str());
      return 1;
    }
    for (const auto& m : *rows) outbox[m.incident_id][m.event] = m.state;
  }
  std::vector<std::string> fails;
  int twice = 0, twice_deduplicated = 0, missing = 0, missing_given_up = 0, lied = 0, tripled = 0;
  int lost_dedup = 0, pending = 0;
  std::set<std::string> with_a_sent_update;  // incidents, as `all` is walked in update order
  for (Update& u : all) {
    u.copies = processed.count(u.key) ? processed[u.key] : 0;
    u.state = outbox[u.notice.incident_id][notify::EventKey(u.notice)];
    bool dedup = Deduplicated(which, with_a_sent_update.count(u.notice.incident_id) > 0);
    if (u.state == "sent") with_a_sent_update.insert(u.notice.incident_id);
    if (u.state == "pending") ++pending;
    if (u.copies >= 2) (dedup ? twice_deduplicated : twice) += 1;
    if (u.copies >= 3 && !dedup) ++tripled;
    if (u.copies == 0) {
      ++missing;
      if (u.state == "failed") ++missing_given_up;
      if (u.state == "sent") ++lied;
    }
    if (dedup && (u.copies == 0 || u.state != "sent")) ++lost_dedup;
  }
  auto fail_if = [&](bool bad, const std::string& why) {
    if (bad) fails.push_back(why);
  };
  fail_if(pending > 0, std::to_string(pending) + " updates still pending after the drain");
  fail_if(lied > 0, std::to_string(lied) + " updates the outbox calls sent never reached the receiver");
  fail_if(lost_dedup > 0, std::to_string(lost_dedup) + " updates missing or given up where the service deduplicates");
  fail_if(tripled > 0, std::to_string(tripled) + " updates shown three times or more where the service cannot deduplicate");
  fail_if(missing - missing_given_up > 0,
          std::to_string(missing - missing_given_up) + " updates never arrived and are not recorded as given up");

  // What the service ended up with.
  std::string service;
  if (which == "opsgenie") {
    int closed_once = 0, p1 = 0;
    for (const auto& a : state["alerts"]) {
      closed_once += a["status"] == "closed" && a["notes"].size() == 1;
      p1 += a["priority"] == "P1";
    }
    service = "alerts " + std::to_string(state["alerts"].size()) + ", closed with exactly one receipt note " +
              std::to_string(closed_once) + ", at P1 " + std::to_string(p1);
    fail_if(state["alerts"].size() != static_cast<size_t>(incidents) || closed_once != incidents || p1 != incidents,
            "Opsgenie does not hold one alert per incident, closed once, at P1");
  } else if (which == "pagerduty") {
    int once = 0, resolved = 0;
    for (const auto& [k, v] : state["incidents"].items()) {
      once += v["incidents_opened"] == 1;
      resolved += v["status"] == "resolved";
    }
    service = "PagerDuty incidents " + std::to_string(state["incidents"].size()) + ", opened exactly once " +
              std::to_string(once) + ", resolved " + std::to_string(resolved);
    fail_if(state["incidents"].size() != static_cast<size_t>(incidents) || once != incidents || resolved != incidents,
            "PagerDuty does not hold one incident per dedup_key, opened once, resolved");
  } else if (which == "slack-bot") {
    int final_edited = 0, orphans = 0;
    for (const auto& [ts, m] : state["messages"].items()) {
      if (m["text"].get<std::string>().find("Resolved") != std::string::npos) ++final_edited;
      else if (m["edits"].get<int>() == 0) ++orphans;
    }
    service = "Slack messages " + std::to_string(state["messages"].size()) + ", edited through to resolved " +
              std::to_string(final_edited) + ", extra first posts whose answer was lost " + std::to_string(orphans);
    fail_if(final_edited != incidents, "not every incident's Slack message was edited through to resolved");
  } else {
    service = std::string(which == "teams" ? "cards " + std::to_string(state["cards"].size())
                                           : "posts " + std::to_string(state["posts"].size()));
  }
  std::printf("%-13s %-10s faults %-3s updates %d (%d incidents)  enqueue %.2f s  drain %.2f s (%d passes)  "
              "sent %d  given up %d  retried attempts %d  requests that reached the service %zu\n",
              which.c_str(), place->backend().c_str(), std::getenv("NOTIFY_BENCH_FAULTS") ? "0%" : "20%", total,
              incidents, enqueue_s, drain_s, passes, sent, failed, retried, received.size());
  std::printf("  at the receiver: arrived %d of %d; twice, deduplicated by the service %d; twice, shown twice %d; "
              "three times or more %d; missing %d (%d of them given up and recorded failed)\n",
              total - missing, total, twice_deduplicated, twice, tripled, missing, missing_given_up);
  std::printf("  the service: %s\n", service.c_str());
  std::printf("  drain under 10 s: %s\n", drain_s < 10 ? "yes" : "NO");
  for (const auto& f : fails) std::printf("  FAIL: %s\n", f.c_str());
  return fails.empty() ? 0 : 1;
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
