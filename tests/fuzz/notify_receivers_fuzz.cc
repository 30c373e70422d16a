// The notification receivers' request decoders (sim/notify_receivers.cc): the Slack webhook and
// Web API, the Teams Workflows webhook, the Opsgenie Alert API and the PagerDuty Events API, as the
// notification tests and the demo talk to them. They are HTTP handlers with no socket-free entry,
// so each input is POSTed over loopback to a receiver started once per process (restarted every
// 4,096 inputs, so its recorded state stays small): the first byte picks the receiver and route,
// the rest is the body. Properties: every request is answered (the receiver neither crashes nor
// hangs) and never with a 5xx, which would be the receiver's own failure (no faults are scripted).
#include <httplib.h>

#include <memory>

#include "sim/sim_support.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

struct Route {
  dw::sim::Platform platform;
  const char* script;
  const char* method;
  const char* path;
  const char* auth;
};

const Route kRoutes[] = {
    {dw::sim::Platform::kSlack, R"({"token":"xoxb-1","channels":["C1"]})", "POST", "/services/T1/B1/x", ""},
    {dw::sim::Platform::kSlack, R"({"token":"xoxb-1","channels":["C1"]})", "POST", "/api/chat.postMessage", "Bearer xoxb-1"},
    {dw::sim::Platform::kSlack, R"({"token":"xoxb-1","channels":["C1"]})", "POST", "/api/chat.update", "Bearer xoxb-1"},
    {dw::sim::Platform::kTeams, "{}", "POST", "/workflows/x", ""},
    {dw::sim::Platform::kOpsgenie, R"({"api_key":"k"})", "POST", "/v2/alerts", "GenieKey k"},
    {dw::sim::Platform::kOpsgenie, R"({"api_key":"k"})", "POST", "/v2/alerts/a1/close?identifierType=alias", "GenieKey k"},
    {dw::sim::Platform::kOpsgenie, R"({"api_key":"k"})", "PUT", "/v2/alerts/a1/priority?identifierType=alias", "GenieKey k"},
    {dw::sim::Platform::kPagerDuty, R"({"routing_keys":["R0123456789abcdef0123456789abcdef"]})", "POST", "/v2/enqueue", ""},
};
constexpr size_t kRouteCount = sizeof(kRoutes) / sizeof(kRoutes[0]);

struct Receiver {
  std::unique_ptr<dw::sim::RunningSim> sim;
  std::unique_ptr<httplib::Client> client;
  int uses = 0;
};

Receiver& ReceiverFor(size_t r) {
  static Receiver receivers[kRouteCount];
  Receiver& x = receivers[r];
  if (x.sim && ++x.uses < 4096) return x;
  x.client.reset();
  x.sim.reset();
  auto started = dw::sim::RunningSim::Start(kRoutes[r].platform, dw::Json::parse(kRoutes[r].script));
  if (!started.ok()) dw::fuzz::Broken("a receiver does not start");
  x.sim = std::move(started).value();
  x.client = std::make_unique<httplib::Client>("127.0.0.1", x.sim->port());
  x.client->set_keep_alive(true);
  x.client->set_read_timeout(10, 0);
  x.uses = 0;
  return x;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t r = data[0] % kRouteCount;
  const Route& route = kRoutes[r];
  Receiver& x = ReceiverFor(r);
  const std::string body(dw::fuzz::AsText(data + 1, size - 1));
  httplib::Headers headers;
  if (*route.auth) headers.emplace("Authorization", route.auth);
  auto res = std::string(route.method) == "PUT" ? x.client->Put(route.path, headers, body, "application/json")
                                                : x.client->Post(route.path, headers, body, "application/json");
  if (!res) dw::fuzz::Broken("a receiver did not answer");
  if (res->status >= 500) dw::fuzz::Broken("a receiver answered 5xx");
  return 0;
}
