#include "platforms/kafka_connect/connect_client.h"

#include "platforms/java_trace.h"

namespace dw::platforms::kafka_connect {

ConnectorStatus ParseConnectorStatus(const Json& j) {
  RequireObject(j, "a connector status");
  ConnectorStatus s;
  s.name = StringField(j, "name");
  s.type = OptStringField(j, "type");
  const Json& c = ObjectField(j, "connector");
  s.state = StringField(c, "state");
  s.worker_id = OptStringField(c, "worker_id");
  s.trace = OptStringField(c, "trace");
  for (const auto& t : ArrayField(j, "tasks")) {
    RequireObject(t, "a task status");
    s.tasks.push_back({IntField(t, "id"), StringField(t, "state"), OptStringField(t, "worker_id"),
                       OptStringField(t, "trace")});
  }
  return s;
}

std::string Verdict(const ConnectorStatus& s) {
  if (s.state == "FAILED") return "unhealthy";
  for (const auto& t : s.tasks)
    if (t.state == "FAILED") return "unhealthy";
  if (s.state == "PAUSED" || s.state == "STOPPED") return "paused";
  if (s.state != "RUNNING" || s.tasks.empty()) return "degraded";
  for (const auto& t : s.tasks)
    if (t.state != "RUNNING") return t.state == "PAUSED" ? "paused" : "degraded";
  return "healthy";
}

std::string TraceHead(const std::string& trace, int n) { return TraceEvidence(trace, n); }

ConnectClient::ConnectClient(const config::PlatformConfig& platform, net::HttpClient& http)
    : call_(platform, http) {}

Result<std::map<std::string, ConnectorStatus>> ConnectClient::Connectors() const {
  auto j = call_.GetJson({"connectors"}, "expand=status");
  if (!j.ok()) return j.status();
  return call_.Parse<std::map<std::string, ConnectorStatus>>("GET /connectors?expand=status", [&] {
    RequireObject(*j, "the connector map");
    std::map<std::string, ConnectorStatus> out;
    for (const auto& [name, entry] : j->items())
      out[name] = ParseConnectorStatus(ObjectField(entry, "status"));
    return out;
  });
}

Result<ConnectorStatus> ConnectClient::Status(const std::string& name) const {
  auto j = call_.GetJson({"connectors", name, "status"});
  if (!j.ok()) return j.status();
  return call_.Parse<ConnectorStatus>("GET /connectors/" + name + "/status",
                                      [&] { return ParseConnectorStatus(*j); });
}

}  // namespace dw::platforms::kafka_connect
