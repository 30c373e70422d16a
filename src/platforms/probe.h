// Reachability probe of a configured platform (Flink, Kestra, Kafka Connect, Schema Registry):
// one read-only GET of an endpoint every such server answers, with the configured credentials.
#pragma once

#include <chrono>
#include <string>

#include "config/workspace.h"
#include "net/http_client.h"

namespace dw::platforms {

struct PlatformProbe {
  bool reachable = false;  // an HTTP answer came back
  bool healthy = false;    // ... and it was 2xx
  long http_status = 0;
  std::string endpoint;    // the URL probed (credentials never included)
  std::chrono::milliseconds latency{0};
  std::string detail;
};

// GETs the type's probe endpoint (Flink /overview, Kafka Connect /, Schema Registry /config,
// Kestra /api/v1/{tenant}/flows/search?size=1). Never throws.
PlatformProbe ProbePlatform(const config::PlatformConfig& platform, net::HttpClient& http,
                            std::chrono::milliseconds timeout);

}  // namespace dw::platforms
