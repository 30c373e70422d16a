#include "platforms/probe.h"

#include <string_view>

#include "base/url_redaction.h"

namespace dw::platforms {
namespace {

std::string FlinkProbe(const config::PlatformConfig& p) { return net::JoinUrl(p.url, {"overview"}); }

std::string SchemaRegistryProbe(const config::PlatformConfig& p) { return net::JoinUrl(p.url, {"config"}); }

std::string KestraProbe(const config::PlatformConfig& p) {
  std::string tenant = p.tenant.empty() ? "main" : p.tenant;
  return net::JoinUrl(p.url, {"api", "v1", tenant, "flows", "search"}) + "?size=1";
}

// Kafka Connect answers its version on /; so does anything else that serves HTTP at its URL.
std::string RootProbe(const config::PlatformConfig& p) { return net::JoinUrl(p.url, {}); }

// The cheapest read-only endpoint of each platform type, by its `type:` name (one registry: a new
// platform's probe is one entry).
std::string ProbeUrl(const config::PlatformConfig& p) {
  struct Entry {
    std::string_view type;
    std::string (*url)(const config::PlatformConfig&);
  };
  static constexpr Entry kProbes[] = {
      {"flink", FlinkProbe},
      {"schema-registry", SchemaRegistryProbe},
      {"kestra", KestraProbe},
      {"kafka-connect", RootProbe},
  };
  for (const Entry& e : kProbes)
    if (e.type == p.type) return e.url(p);
  return RootProbe(p);
}

}  // namespace

PlatformProbe ProbePlatform(const config::PlatformConfig& platform, net::HttpClient& http,
                            std::chrono::milliseconds timeout) {
  PlatformProbe probe;
  net::HttpRequest req;
  req.url = ProbeUrl(platform);
  probe.endpoint = RedactUrl(req.url);
  req.timeout = timeout;
  req.connect_timeout = std::min(timeout, std::chrono::milliseconds(2000));
  req.max_response_bytes = 1024 * 1024;
  req.headers.push_back({"Accept", "application/json"});
  if (!platform.token.empty()) {
    req.bearer_token = platform.token;
  } else if (!platform.username.empty()) {
    req.basic_user = platform.username;
    req.basic_password = platform.password;
  }
  auto resp = http.Send(req);
  if (!resp.ok()) {
    probe.detail = resp.status().message();
    return probe;
  }
  probe.reachable = true;
  probe.http_status = resp->status;
  probe.latency = resp->elapsed;
  probe.healthy = resp->status >= 200 && resp->status < 300;
  if (probe.healthy) {
    probe.detail = "HTTP " + std::to_string(resp->status);
  } else if (resp->status == 401 || resp->status == 403) {
    probe.detail = "HTTP " + std::to_string(resp->status) + ": credentials missing or rejected";
  } else {
    probe.detail = "HTTP " + std::to_string(resp->status) + " from GET " + probe.endpoint;
  }
  return probe;
}

}  // namespace dw::platforms
