#include "sim/sim_support.h"

#include <chrono>
#include <stdexcept>

#include "base/clock.h"
#include "base/iso_time.h"

namespace dw::sim {

bool SimClock::Visible(int64_t at_ms) const {
  std::lock_guard<std::mutex> lock(mu_);
  return !now_ms_ || at_ms <= *now_ms_;
}

std::optional<int64_t> SimClock::now() const {
  std::lock_guard<std::mutex> lock(mu_);
  return now_ms_;
}

void SimClock::Set(int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  now_ms_ = now_ms;
}

int64_t ScriptTime(const Json& v, const std::string& where) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_string()) {
    if (auto ms = ParseIsoTimeMillis(v.get<std::string>())) return *ms;
  }
  throw std::invalid_argument(where + ": expected an RFC 3339 time or Unix milliseconds, got " + v.dump());
}

std::string IsoMillis(int64_t ms) { return FormatRfc3339(FromUnixMillis(ms)); }

std::vector<Fault> ParseFaults(const Json& script) {
  std::vector<Fault> out;
  if (!script.contains("faults")) return out;
  const Json& faults = script["faults"];
  if (!faults.is_array()) throw std::invalid_argument("faults: expected an array");
  for (size_t i = 0; i < faults.size(); ++i) {
    const Json& f = faults[i];
    std::string where = "faults[" + std::to_string(i) + "]";
    if (!f.is_object() || !f.contains("path") || !f["path"].is_string())
      throw std::invalid_argument(where + ": needs a string \"path\"");
    Fault x;
    x.method = f.value("method", "GET");
    x.path = f["path"].get<std::string>();
    x.status = f.value("status", 500);
    x.body = f.value("body", "");
    x.content_type = f.value("content_type", "application/json");
    if (f.contains("headers")) {
      if (!f["headers"].is_object()) throw std::invalid_argument(where + ".headers: expected an object of strings");
      for (const auto& [name, value] : f["headers"].items()) {
        if (!value.is_string()) throw std::invalid_argument(where + ".headers." + name + ": expected a string");
        x.headers.emplace_back(name, value.get<std::string>());
      }
    }
    x.delay_ms = f.value("delay_ms", 0);
    x.times = f.value("times", -1);
    x.repeat_body = f.value("repeat_body", static_cast<size_t>(1));
    x.cut_after_bytes = f.value("cut_after_bytes", -1L);
    x.drip_ms = f.value("drip_ms", 0);
    x.endless = f.value("endless", false);
    x.every = f.value("every", 1);
    if (x.every < 1) throw std::invalid_argument(where + ": \"every\" must be at least 1");
    x.after = f.value("after", false);
    if (f.contains("from")) x.from_ms = ScriptTime(f["from"], where + ".from");
    if (f.contains("until")) x.until_ms = ScriptTime(f["until"], where + ".until");
    if (x.from_ms && x.until_ms && *x.until_ms <= *x.from_ms)
      throw std::invalid_argument(where + ".until: must be later than from");
    out.push_back(std::move(x));
  }
  return out;
}

namespace {

bool PathMatches(const std::string& pattern, const std::string& path) {
  if (!pattern.empty() && pattern.back() == '*')
    return path.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0;
  return pattern == path;
}

}  // namespace

std::optional<Fault> TakeFault(std::vector<Fault>& faults, std::mutex& mu, const httplib::Request& req,
                               bool after, std::optional<int64_t> now) {
  std::lock_guard<std::mutex> lock(mu);
  for (auto& f : faults) {
    if (f.after != after || f.method != req.method || f.times == 0 || !PathMatches(f.path, req.path))
      continue;
    // A fault with a window is active while the simulated now is inside it.
    if (now && ((f.from_ms && *now < *f.from_ms) || (f.until_ms && *now >= *f.until_ms))) continue;
    if (++f.seen % f.every != 0) continue;
    if (f.times > 0) --f.times;
    return f;
  }
  return std::nullopt;
}

bool ApplyLostAnswer(std::vector<Fault>& faults, std::mutex& mu, const httplib::Request& req,
                     httplib::Response& res) {
  auto hit = TakeFault(faults, mu, req, /*after=*/true);
  if (!hit) return false;
  if (hit->delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(hit->delay_ms));
  res.status = hit->status;
  for (const auto& [name, value] : hit->headers) res.set_header(name, value);
  res.set_content(hit->body, hit->content_type);
  return true;
}

void InstallCommon(httplib::Server& server, std::shared_ptr<SimClock> clock,
                   std::shared_ptr<std::vector<Fault>> faults, std::shared_ptr<std::mutex> faults_mu) {
  server.Post("/_sim/faults", [faults, faults_mu](const httplib::Request& req, httplib::Response& res) {
    Json j = Json::parse(req.body, nullptr, false);
    try {
      if (j.is_discarded() || !j.is_object()) throw std::invalid_argument("body must be {\"faults\": [...]}");
      auto parsed = ParseFaults(j);
      std::lock_guard<std::mutex> lock(*faults_mu);
      *faults = std::move(parsed);
      res.set_content(Json{{"faults", faults->size()}}.dump(), "application/json");
    } catch (const std::exception& e) {
      res.status = 400;
      res.set_content(Json{{"message", e.what()}}.dump(), "application/json");
    }
  });
  server.set_pre_routing_handler([faults, faults_mu, clock](const httplib::Request& req, httplib::Response& res) {
    if (req.path.rfind("/_sim/", 0) == 0) return httplib::Server::HandlerResponse::Unhandled;
    auto taken = TakeFault(*faults, *faults_mu, req, /*after=*/false, clock->now());
    if (!taken) return httplib::Server::HandlerResponse::Unhandled;
    Fault hit = *taken;
    if (hit.delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(hit.delay_ms));
    std::string body;
    body.reserve(hit.body.size() * hit.repeat_body);
    for (size_t i = 0; i < hit.repeat_body; ++i) body += hit.body;
    res.status = hit.status;
    for (const auto& [name, value] : hit.headers) res.set_header(name, value);
    if (hit.drip_ms > 0 || hit.endless) {
      auto shared = std::make_shared<std::string>(body.empty() ? std::string("x") : std::move(body));
      const int drip_ms = hit.drip_ms;
      const bool endless = hit.endless;
      res.set_chunked_content_provider(hit.content_type, [shared, drip_ms, endless](size_t offset, httplib::DataSink& sink) {
        if (drip_ms > 0) {
          std::this_thread::sleep_for(std::chrono::milliseconds(drip_ms));
          if (!endless && offset >= shared->size()) {
            sink.done();
            return true;
          }
          return sink.write(shared->data() + offset % shared->size(), 1);
        }
        return sink.write(shared->data(), shared->size());  // endless, at full speed
      });
      return httplib::Server::HandlerResponse::Handled;
    }
    if (hit.cut_after_bytes >= 0) {
      auto shared = std::make_shared<std::string>(std::move(body));
      size_t cut = std::min(shared->size(), static_cast<size_t>(hit.cut_after_bytes));
      res.set_content_provider(shared->size(), hit.content_type,
                               [shared, cut](size_t offset, size_t, httplib::DataSink& sink) {
                                 if (offset < cut) return sink.write(shared->data() + offset, cut - offset);
                                 return false;  // drop the connection before the rest
                               });
      return httplib::Server::HandlerResponse::Handled;
    }
    res.set_content(body, hit.content_type);
    return httplib::Server::HandlerResponse::Handled;
  });
  server.Post("/_sim/clock", [clock](const httplib::Request& req, httplib::Response& res) {
    Json j = Json::parse(req.body, nullptr, false);
    try {
      if (j.is_discarded() || !j.is_object() || !j.contains("now"))
        throw std::invalid_argument("body must be {\"now\": T}");
      clock->Set(ScriptTime(j["now"], "now"));
      res.set_content(Json{{"now", IsoMillis(*clock->now())}}.dump(), "application/json");
    } catch (const std::exception& e) {
      res.status = 400;
      res.set_content(Json{{"message", e.what()}}.dump(), "application/json");
    }
  });
}

std::string RandomHexOf(std::mt19937_64& rng, int bytes) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < bytes; ++i) {
    const unsigned v = rng() & 0xff;
    out += kHex[v >> 4];
    out += kHex[v & 15];
  }
  return out;
}

std::optional<Platform> ParsePlatform(const std::string& name) {
  if (name == "flink") return Platform::kFlink;
  if (name == "kestra") return Platform::kKestra;
  if (name == "kafka-connect" || name == "connect") return Platform::kKafkaConnect;
  if (name == "schema-registry" || name == "registry") return Platform::kSchemaRegistry;
  if (name == "slack") return Platform::kSlack;
  if (name == "teams") return Platform::kTeams;
  if (name == "opsgenie") return Platform::kOpsgenie;
  if (name == "pagerduty") return Platform::kPagerDuty;
  if (name == "bigquery") return Platform::kBigQuery;
  if (name == "snowflake") return Platform::kSnowflake;
  return std::nullopt;
}

RunningSim::~RunningSim() {
  server_.stop();
  if (thread_.joinable()) thread_.join();
}

Result<std::unique_ptr<RunningSim>> RunningSim::Start(Platform platform, const Json& script, int port) {
  std::unique_ptr<RunningSim> sim(new RunningSim());
  DW_RETURN_IF_ERROR(InstallSimulator(platform, script, sim->server_));
  sim->server_.set_keep_alive_max_count(1000);
  // As the real services answer: a small JSON reply on a kept-alive connection must not wait
  // for Nagle and the client's delayed ACK (40 ms a request).
  sim->server_.set_tcp_nodelay(true);
  if (port == 0) {
    sim->port_ = sim->server_.bind_to_any_port("127.0.0.1");
  } else {
    sim->port_ = sim->server_.bind_to_port("127.0.0.1", port) ? port : -1;
  }
  if (sim->port_ <= 0) return Unavailable("cannot bind 127.0.0.1:" + std::to_string(port));
  RunningSim* raw = sim.get();
  sim->thread_ = std::thread([raw] { raw->server_.listen_after_bind(); });
  while (!sim->server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return sim;
}

void RunningSim::Wait() {
  if (thread_.joinable()) thread_.join();
}

}  // namespace dw::sim
