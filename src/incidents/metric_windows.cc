// MetricWindows: the incident side of "judged, not learnt" for the metric detector.
#include <algorithm>
#include <optional>

#include "incidents/incident_codec.h"
#include "incidents/incidents.h"

namespace dw::incidents {
namespace {

// A stored incident, decoded once for every metric it is checked against.
struct StoredIncident {
  const store::IncidentRecord* record;
  std::optional<Incident> decoded;  // unset: a record this stage did not write
};

std::vector<StoredIncident> Decode(const std::vector<store::IncidentRecord>& rows) {
  std::vector<StoredIncident> out;
  for (const store::IncidentRecord& r : rows) {
    auto inc = FromRecord(r);
    out.push_back({&r, inc.ok() ? std::optional<Incident>(std::move(inc).value()) : std::nullopt});
  }
  return out;
}

// The window `s` keeps out of `metric`'s training, if it covers the metric.
std::optional<observe::metrics::UnlearntWindow> WindowOf(const StoredIncident& s, const std::string& metric,
                                                         const std::string& asset_id) {
  const store::IncidentRecord& r = *s.record;
  if (!s.decoded) {
    // A record this stage did not write (an older version's, a hand-made one): judged by its
    // columns and the metrics its body names, over opened_at .. closed_at.
    bool covers = !asset_id.empty() && r.asset_id == asset_id;
    if (r.body.is_object()) {
      if (r.body.value("metric", std::string()) == metric) covers = true;
      if (r.body.contains("metrics") && r.body["metrics"].is_array())
        for (const Json& m : r.body["metrics"])
          if (m.is_string() && m.get<std::string>() == metric) covers = true;
    }
    if (!covers) return std::nullopt;
    return observe::metrics::UnlearntWindow{"incident " + r.id, r.opened_at, r.closed_at};
  }
  const Incident& inc = *s.decoded;
  if (inc.close_reason != CloseReason::kNone) return std::nullopt;  // a person said the points are normal
  bool covers = !asset_id.empty() &&
                (inc.root_asset == asset_id ||
                 std::find(inc.damaged_assets.begin(), inc.damaged_assets.end(), asset_id) != inc.damaged_assets.end());
  for (const SignalRef& sig : inc.signals)
    if (sig.key == "metric:" + metric) covers = true;
  if (!covers) return std::nullopt;
  return observe::metrics::UnlearntWindow{"incident " + inc.id, std::min(inc.first_bad_at, inc.opened_at),
                                          inc.closed_at};
}

}  // namespace

observe::metrics::UnlearntWindows MetricWindows(store::StateStore& store) {
  return [&store](const std::string& metric, const std::string& asset_id, TimePoint from,
                  TimePoint to) -> Result<std::vector<observe::metrics::UnlearntWindow>> {
    auto rows = store.IncidentsOverlapping(from, to);
    if (!rows.ok()) return rows.status();
    std::vector<observe::metrics::UnlearntWindow> out;
    for (const StoredIncident& s : Decode(*rows))
      if (auto w = WindowOf(s, metric, asset_id)) out.push_back(std::move(*w));
    return out;
  };
}

observe::metrics::UnlearntWindowsOfMany MetricWindowsOfMany(store::StateStore& store) {
  return [&store](const std::vector<observe::metrics::UnlearntWindowsRequest>& requests) {
    std::vector<Result<std::vector<observe::metrics::UnlearntWindow>>> out;
    if (requests.empty()) return out;
    TimePoint from = requests.front().from, to = requests.front().to;
    for (const auto& r : requests) {
      from = std::min(from, r.from);
      to = std::max(to, r.to);
    }
    // One read over the union of the requests, then each request gets what IncidentsOverlapping
    // over its own range would have returned (its condition: opened before `to`, open or closed
    // after `from`), in the same order.
    auto rows = store.IncidentsOverlapping(from, to);
    if (!rows.ok()) {
      for (size_t i = 0; i < requests.size(); ++i) out.push_back(rows.status());
      return out;
    }
    std::vector<StoredIncident> stored = Decode(*rows);
    for (const auto& req : requests) {
      std::vector<observe::metrics::UnlearntWindow> windows;
      for (const StoredIncident& s : stored) {
        const store::IncidentRecord& r = *s.record;
        if (!(r.opened_at < req.to && (!r.closed_at || *r.closed_at > req.from))) continue;
        if (auto w = WindowOf(s, req.metric, req.asset_id)) windows.push_back(std::move(*w));
      }
      out.push_back(std::move(windows));
    }
    return out;
  };
}

}  // namespace dw::incidents
