#include "platforms/kafka_connect/connector_survey.h"

namespace dw::platforms::kafka_connect {

Result<ConnectorSurvey> SurveyConnectors(const config::Workspace& ws, net::HttpClient& http,
                                         const std::string& connector, const std::string& only) {
  std::vector<const config::PlatformConfig*> platforms;
  std::string known;
  for (const auto& [name, p] : ws.platforms) {
    if (p.type != "kafka-connect") continue;
    known += (known.empty() ? "" : ", ") + name;
    if (only.empty() || only == name) platforms.push_back(&p);
  }
  if (platforms.empty())
    return NotFound(only.empty() ? "No kafka-connect platform is configured; add one under platforms: in dataworkers.yaml."
                                 : "No kafka-connect platform named '" + only + "'" +
                                       (known.empty() ? "; none is configured." : "; configured: " + known + "."));
  ConnectorSurvey out;
  for (const auto* p : platforms) {
    ConnectClient client(*p, http);
    if (!connector.empty()) {
      auto s = client.Status(connector);
      if (s.ok()) {
        out.connectors.emplace_back(p->name, std::move(s).value());
      } else if (s.status().code() != StatusCode::kNotFound) {
        out.errors.push_back(s.status().message());
      }
      continue;
    }
    auto all = client.Connectors();
    if (!all.ok()) {
      out.errors.push_back(all.status().message());
      continue;
    }
    for (auto& [name, s] : *all) out.connectors.emplace_back(p->name, std::move(s));
  }
  if (!connector.empty() && out.connectors.empty()) {
    if (!out.errors.empty())
      return Unavailable("Could not read connector '" + connector + "': " + out.errors[0] +
                         ". Check that Kafka Connect is up and its URL in dataworkers.yaml.");
    return NotFound("No connector named '" + connector + "' on " +
                    (only.empty() ? "platform(s) " + known : "platform " + only) +
                    "; call get_connector_status without a connector to list them.");
  }
  if (out.connectors.empty() && !out.errors.empty())
    return Unavailable("Could not read any Kafka Connect platform: " + out.errors[0] +
                       ". Check that it is up and its URL in dataworkers.yaml.");
  return out;
}

}  // namespace dw::platforms::kafka_connect
