#include "platforms/probe.h"

#include "base/url_redaction.h"

namespace dw::platforms {
namespace {

std::string ProbeUrl(const config::PlatformConfig& p) {
  if (p.type == "flink") return net::JoinUrl(p.url, {"overview"});
  if (p.type == "schema-registry") return net::JoinUrl(p.url, {"config"});
  if (p.type == "kestra") {
    std::string tenant = p.tenant.empty() ? "main" : p.tenant;
    return net::JoinUrl(p.url, {"api", "v1", tenant, "flows", "search"}) + "?size=1";
  }
  return net::JoinUrl(p.url, {});  // kafka-connect answers its version on /
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
