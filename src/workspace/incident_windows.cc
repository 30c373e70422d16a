#include "workspace/incident_windows.h"

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
  return [&store](const std::string& metric, const std::string& asset_id, TimePoint from,
                  TimePoint to) -> Result<std::vector<observe::metrics::UnlearntWindow>> {
    auto incidents = store.IncidentsOverlapping(from, to);
    if (!incidents.ok()) return incidents.status();
    std::vector<observe::metrics::UnlearntWindow> out;
    for (const auto& i : *incidents)
      if (IncidentCoversMetric(i, metric, asset_id)) out.push_back({"incident " + i.id, i.opened_at, i.closed_at});
    return out;
  };
}

}  // namespace dw::workspace
