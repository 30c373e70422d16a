// History: incidents from the store, filtered, newest first, with how often each cause kind came
// back on each asset.
#include <algorithm>
#include <map>

#include "incidents/incident_codec.h"
#include "incidents/incidents.h"

namespace dw::incidents {

namespace {

bool Matches(const Incident& i, const IncidentFilter& f) {
  if (!f.asset_id.empty() && i.root_asset != f.asset_id &&
      std::find(i.damaged_assets.begin(), i.damaged_assets.end(), f.asset_id) == i.damaged_assets.end())
    return false;
  if (!f.domain.empty() && i.domain != f.domain) return false;
  if (f.status && i.status != *f.status) return false;
  if (f.from && i.opened_at < *f.from) return false;
  if (f.to && i.opened_at >= *f.to) return false;
  return true;
}

}  // namespace

Result<History> IncidentDesk::GetHistory(const IncidentFilter& filter) {
  if (filter.limit < 1 || filter.limit > 1000)
    return InvalidArgument("limit must be from 1 to 1000, not " + std::to_string(filter.limit));
  if (filter.from && filter.to && *filter.from >= *filter.to) return InvalidArgument("from must be before to");
  auto rows = store_.Incidents(filter.status ? IncidentStatusName(*filter.status) : "", 100000);
  if (!rows.ok()) return rows.status();
  History h;
  std::map<std::pair<std::string, std::string>, RecurrenceCount> counts;
  for (const store::IncidentRecord& r : *rows) {  // newest first
    auto inc = FromRecord(r);
    if (!inc.ok()) return inc.status();
    if (!Matches(*inc, filter)) continue;
    ++h.total;
    if (!inc->cause_kind.empty()) {
      RecurrenceCount& c = counts[{inc->cause_kind, inc->cause_asset}];
      c.cause_kind = inc->cause_kind;
      c.asset_id = inc->cause_asset;
      ++c.incidents;
      c.incident_ids.push_back(inc->id);
    }
    if (h.incidents.size() < static_cast<size_t>(filter.limit)) h.incidents.push_back(std::move(*inc));
  }
  for (auto& [key, c] : counts) h.recurrences.push_back(std::move(c));
  std::stable_sort(h.recurrences.begin(), h.recurrences.end(),
                   [](const RecurrenceCount& a, const RecurrenceCount& b) { return a.incidents > b.incidents; });
  return h;
}

Result<std::vector<Incident>> IncidentDesk::List(const IncidentFilter& filter) {
  if (filter.limit < 1 || filter.limit > 1000)
    return InvalidArgument("limit must be from 1 to 1000, not " + std::to_string(filter.limit));
  if (filter.from && filter.to && *filter.from >= *filter.to) return InvalidArgument("from must be before to");
  // Unlike GetHistory (totals and recurrences over every match), a list stops at its limit; with
  // nothing to filter on but the status, the store reads no more rows than that (the desk's page
  // over 10,000 incidents).
  const bool by_status_only = filter.asset_id.empty() && filter.domain.empty() && !filter.from && !filter.to;
  auto rows = store_.Incidents(filter.status ? IncidentStatusName(*filter.status) : "",
                               by_status_only ? filter.limit : 100000);
  if (!rows.ok()) return rows.status();
  std::vector<Incident> out;
  for (const store::IncidentRecord& r : *rows) {  // newest first
    auto inc = FromRecord(r);
    if (!inc.ok()) return inc.status();
    if (!Matches(*inc, filter)) continue;
    out.push_back(std::move(*inc));
    if (out.size() == static_cast<size_t>(filter.limit)) break;
  }
  return out;
}

Json HistoryToJson(const History& h) {
  Json incidents = Json::array(), recurrences = Json::array();
  for (const Incident& i : h.incidents) incidents.push_back(IncidentToJson(i));
  for (const RecurrenceCount& c : h.recurrences)
    recurrences.push_back({{"cause_kind", c.cause_kind}, {"asset", c.asset_id}, {"incidents", c.incidents},
                           {"incident_ids", c.incident_ids}});
  return {{"incidents", incidents}, {"recurrences", recurrences}, {"total", h.total},
          {"truncated", h.total > h.incidents.size()}};
}

Json EvaluationToJson(const EvaluationReport& r) {
  Json gaps = Json::array();
  for (const ObservationGap& g : r.gaps)
    gaps.push_back({{"kind", "observation_gap"}, {"source", g.source}, {"asset", g.asset_id},
                    {"at", FormatRfc3339(g.at)}, {"message", g.message}});
  return {{"opened", r.opened},         {"updated", r.updated},           {"resolved", r.resolved},
          {"signals_seen", r.signals_seen}, {"signals_bad", r.signals_bad}, {"signals_ignored", r.signals_ignored},
          {"observation_gaps", gaps},   {"notes", r.notes}};
}

}  // namespace dw::incidents
