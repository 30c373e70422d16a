#include "workspace/incident_windows.h"

#include "incidents/incidents.h"

namespace dw::workspace {

bool IncidentCoversMetric(const store::IncidentRecord& incident, const std::string& metric,
                          const std::string& asset_id) {
  if (!asset_id.empty() && incident.asset_id == asset_id) return true;
  const Json& body = incident.body;
  if (!body.is_object()) return false;
  auto one = body.find("metric");
  if (one != body.end() && one->is_string() && one->get<std::string>() == metric) return true;
  auto many = body.find("metrics");
  if (many != body.end() && many->is_array())
    for (const Json& m : *many)
      if (m.is_string() && m.get<std::string>() == metric) return true;
  return false;
}

observe::metrics::UnlearntWindows IncidentWindows(store::StateStore& store) {
  // The incidents stage owns the incident record's body and this rule with it.
  return incidents::MetricWindows(store);
}

}  // namespace dw::workspace

namespace dw::workspace {

observe::metrics::UnlearntWindowsOfMany IncidentWindowsOfMany(store::StateStore& store) {
  return incidents::MetricWindowsOfMany(store);
}

}  // namespace dw::workspace
