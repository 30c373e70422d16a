#include "incidents/severity.h"

#include "base/rfc3339.h"
#include "config/time_zone.h"
#include "graph/blast_radius.h"

namespace dw::incidents {

namespace {

// "22:00" in the workspace's zone.
std::string LocalClock(TimePoint t, const std::string& zone) {
  auto tz = config::TimeZone::Load(zone);
  int64_t s = ToUnixMillis(t) / 1000;
  if (tz.ok()) s += tz->OffsetAt(s);
  int64_t day = ((s % 86400) + 86400) % 86400;
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02d:%02d", static_cast<int>(day / 3600), static_cast<int>(day / 60 % 60));
  return buf;
}

}  // namespace

Severity SeverityFromConsumers(const Json& consumers, TimePoint now, const DeskOptions& options) {
  Severity s;
  s.computed_at = now;
  const int64_t horizon_s = std::chrono::duration_cast<std::chrono::seconds>(options.act_horizon).count();
  const Json* first_any = nullptr;
  const Json* first_customer = nullptr;
  if (consumers.is_array()) {
    for (const Json& c : consumers) {  // soonest first
      if (!c.contains("time_left_seconds") || !c["time_left_seconds"].is_number()) continue;
      if (c["time_left_seconds"].get<int64_t>() > horizon_s) continue;
      if (!first_any) first_any = &c;
      if (!first_customer && c.value("customer_facing", false)) first_customer = &c;
    }
  }
  auto describe = [&](const Json& c, int level) {
    s.level = level;
    s.consumer = c.value("id", std::string());
    auto at = ParseRfc3339(c.value("next_run", std::string()));
    if (at.ok()) s.acts_at = *at;
    s.reason = "the " + (at.ok() ? LocalClock(*at, options.timezone) + " " : std::string()) + s.consumer +
               " acts in " + c.value("time_left", std::string("?")) +
               (level == 1 ? " and is customer-facing" : "; no customer-facing consumer acts within " +
                                                             graph::HumanDuration(options.act_horizon));
  };
  if (first_customer) {
    describe(*first_customer, 1);
  } else if (first_any) {
    describe(*first_any, 2);
  } else {
    s.level = 3;
    s.reason = "no consumer downstream acts on the damaged data within " + graph::HumanDuration(options.act_horizon);
  }
  return s;
}

Sized SizeBlastRadius(const graph::GraphIndex* index, const std::vector<std::string>& damaged, TimePoint now,
                      const DeskOptions& options, std::optional<TimePoint> impact_since) {
  Sized out;
  out.severity.computed_at = now;
  Json not_in_graph = Json::array();
  std::vector<std::string> known;
  for (const std::string& a : damaged) {
    if (index && index->Find(a) != graph::kNone)
      known.push_back(a);
    else
      not_in_graph.push_back(a);
  }
  if (known.empty()) {
    out.severity.level = 3;
    out.severity.reason = "the blast radius is unknown: no damaged asset is in the context graph";
    out.blast_radius = {{"not_in_graph", not_in_graph}, {"consumers", Json::array()}};
    return out;
  }
  graph::BlastRadiusOptions bo;
  bo.timezone = options.timezone;
  bo.walk.max_depth = std::min(options.max_depth, graph::kMaxBlastDepth);
  bo.since = impact_since;
  bo.list_per_kind = 20;
  auto report = graph::BlastRadius(*index, known, bo, now);
  if (!report.ok()) {
    out.severity.level = 3;
    out.severity.reason = "the blast radius could not be sized: " + report.status().message();
    return out;
  }
  if (impact_since && options.impact_counter) graph::FillImpactCounts(&*report, impact_since, options.impact_counter);
  out.impact_queries = report->impact_queries;
  out.blast_radius = std::move(report->body);
  out.blast_radius["not_in_graph"] = not_in_graph;
  out.severity = SeverityFromConsumers(out.blast_radius["consumers"], now, options);
  return out;
}

}  // namespace dw::incidents
