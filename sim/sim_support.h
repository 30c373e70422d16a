// What every simulator shares: a script (a JSON timeline: "at simulated time T the platform reports
// this"), the simulated clock that decides which of its entries are visible, scripted faults
// (an HTML page from a proxy, a 500, a slow answer, malformed JSON) and the loopback server that
// runs a simulator on its own thread. Test and demo infrastructure only: production code never
// includes sim/. The simulators serve with cpp-httplib directly rather than through the product's
// HTTP server (net/http_server.h): they need none of its checks or routes, and a simulator must not
// change when the product's server does.
#pragma once

#include <httplib.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "base/json.h"
#include "base/status.h"

namespace dw::sim {

// `bytes` random bytes from `rng` as lower-case hex: the simulators' ids and tokens (opaque to
// clients, unpredictable enough for a test double, never a secret).
std::string RandomHexOf(std::mt19937_64& rng, int bytes);

// The simulated "now". Script entries whose `at` is later are not visible yet. Starts at the
// script's "now" (RFC 3339 or Unix ms); without one every entry is visible. POST /_sim/clock
// {"now": T} moves it (the demo and tests use it to replay a timeline).
class SimClock {
 public:
  explicit SimClock(std::optional<int64_t> now_ms) : now_ms_(now_ms) {}
  // True iff an entry at `at_ms` has happened by now.
  bool Visible(int64_t at_ms) const;
  std::optional<int64_t> now() const;
  void Set(int64_t now_ms);

 private:
  mutable std::mutex mu_;
  std::optional<int64_t> now_ms_;
};

// One scripted misbehaviour: requests whose method and path match are answered with `status`,
// `body` and `content_type` (after `delay_ms`) instead of the simulator's answer, `times` times
// (-1: always), and only while the simulated clock is inside [`from`, `until`) when the script
// gives those times (an outage that lasts ten minutes).
struct Fault {
  std::string method = "GET";
  std::string path;          // exact path, or a prefix when it ends with '*'
  int status = 500;
  std::string body;
  std::string content_type = "application/json";
  // Extra answer headers, e.g. {"Retry-After": "1"} on a 429 (a rate limit says when to come back).
  std::vector<std::pair<std::string, std::string>> headers;
  int delay_ms = 0;
  int times = -1;
  size_t repeat_body = 1;    // the body repeated this many times (a huge body)
  // >= 0: announce the whole body's length, send this many bytes of it, then drop the connection
  // (a reset mid-body, as a crashing server or a proxy timeout does).
  long cut_after_bytes = -1;
  // > 0: a slow-loris answer: the body goes out one byte every `drip_ms` milliseconds (chunked).
  int drip_ms = 0;
  // A body that never ends: the body (or "x" when empty) sent again and again, chunked, until the
  // client hangs up.
  bool endless = false;
  // Hits only every `every`-th matching request (5: one in five, a 20% failure rate).
  int every = 1;
  // The request is served first (the receiver records and acts on it), then the fault's answer
  // replaces the real one: a service that did the work but whose answer was lost.
  bool after = false;
  int seen = 0;  // matching requests so far (for `every`)
  std::optional<int64_t> from_ms;   // the fault begins at this simulated time (inclusive)
  std::optional<int64_t> until_ms;  // and ends at this one (exclusive)
};

// Reads a time from a script value: an RFC 3339 string or Unix ms. Throws std::invalid_argument
// naming `where` otherwise.
int64_t ScriptTime(const Json& v, const std::string& where);

// Parses the "faults" array of a script. Throws std::invalid_argument on a malformed entry.
std::vector<Fault> ParseFaults(const Json& script);

// The first fault that answers `req` (counting it towards its `every` and `times`), if any; `after`
// selects the faults applied after the receiver did the work. With `now` (the simulated time), a
// fault with a from/until window applies only inside it; without, windows are ignored.
std::optional<Fault> TakeFault(std::vector<Fault>& faults, std::mutex& mu, const httplib::Request& req,
                               bool after, std::optional<int64_t> now = std::nullopt);

// For a handler that has done its work: replaces `res` with an `after` fault's answer when one
// matches (the work done, its answer lost). Returns true iff it did.
bool ApplyLostAnswer(std::vector<Fault>& faults, std::mutex& mu, const httplib::Request& req,
                     httplib::Response& res);

// The faults of one simulator and the lock that guards them.
struct FaultList {
  std::shared_ptr<std::vector<Fault>> faults;
  std::shared_ptr<std::mutex> mu;
  bool LostAnswer(const httplib::Request& req, httplib::Response& res) const {
    return ApplyLostAnswer(*faults, *mu, req, res);
  }
};

// Installs the handlers that serve `faults` before routing (those without `after`; receivers
// apply the `after` ones with ApplyLostAnswer), the /_sim/clock endpoint and POST /_sim/faults
// {"faults": [...]} (replaces the faults at run time).
void InstallCommon(httplib::Server& server, std::shared_ptr<SimClock> clock,
                   std::shared_ptr<std::vector<Fault>> faults, std::shared_ptr<std::mutex> faults_mu);

// The simulated platforms, and the notification receivers (slack, teams, opsgenie, pagerduty;
// the SMTP receiver is a raw socket server, see smtp_receiver.h).
enum class Platform {
  kFlink, kKestra, kKafkaConnect, kSchemaRegistry, kSlack, kTeams, kOpsgenie, kPagerDuty, kBigQuery, kSnowflake
};
// "flink", "kestra", "kafka-connect", "schema-registry" (also "connect", "registry"), "slack",
// "teams", "opsgenie", "pagerduty", "bigquery", "snowflake".
std::optional<Platform> ParsePlatform(const std::string& name);

// Registers `platform`'s routes on `server` from `script`. InvalidArgument naming what is wrong in
// the script; nothing is registered then.
Status InstallSimulator(Platform platform, const Json& script, httplib::Server& server);

// A simulator served on loopback on its own thread for the life of the object (tests, benches).
class RunningSim {
 public:
  ~RunningSim();
  // Starts `platform` from `script` on 127.0.0.1:`port` (0: a free port). Returns once it accepts
  // connections, or the script/bind error.
  static Result<std::unique_ptr<RunningSim>> Start(Platform platform, const Json& script, int port = 0);
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  // Blocks until the server stops (dw-sim's main).
  void Wait();

 private:
  RunningSim() = default;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
};

// Formats Unix ms as "2026-11-24T14:02:00.000Z".
std::string IsoMillis(int64_t ms);

}  // namespace dw::sim
