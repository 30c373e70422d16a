// MetricWindows: the incident side of "judged, not learnt" for the metric detector.
#include <algorithm>

#include "incidents/incident_codec.h"
#include "incidents/incidents.h"

namespace dw::incidents {

observe::metrics::UnlearntWindows MetricWindows(store::StateStore& store) {
  return [&store](const std::string& metric, const std::string& asset_id, TimePoint from,
                  TimePoint to) -> Result<std::vector<observe::metrics::UnlearntWindow>> {
    auto rows = store.IncidentsOverlapping(from, to);
    if (!rows.ok()) return rows.status();
    std::vector<observe::metrics::UnlearntWindow> out;
    for (const store::IncidentRecord& r : *rows) {
      auto inc = FromRecord(r);
      if (!inc.ok()) {
        // A record this stage did not write (an older version's, a hand-made one): judged by its
        // columns and the metrics its body names, over opened_at .. closed_at.
        bool covers = !asset_id.empty() && r.asset_id == asset_id;
        if (r.body.is_object()) {
          if (r.body.value("metric", std::string()) == metric) covers = true;
          if (r.body.contains("metrics") && r.body["metrics"].is_array())
            for (const Json& m : r.body["metrics"])
              if (m.is_string() && m.get<std::string>() == metric) covers = true;
        }
        if (covers) out.push_back({"incident " + r.id, r.opened_at, r.closed_at});
        continue;
      }
      if (inc->close_reason != CloseReason::kNone) continue;  // a person said the points are normal
      bool covers = !asset_id.empty() &&
                    (inc->root_asset == asset_id || std::find(inc->damaged_assets.begin(), inc->damaged_assets.end(),
                                                              asset_id) != inc->damaged_assets.end());
      for (const SignalRef& s : inc->signals)
        if (s.key == "metric:" + metric) covers = true;
      if (covers) out.push_back({"incident " + inc->id, std::min(inc->first_bad_at, inc->opened_at), inc->closed_at});
    }
    return out;
  };
}

}  // namespace dw::incidents
