// The incident page's reading sections: causes, blast radius, metric plots, check results.
#include <cstdio>
#include <map>
#include <set>

#include "base/identifiers.h"
#include "desk/html.h"
#include "desk/incident_parts.h"
#include "desk/lineage_picture.h"
#include "observe/metrics/metric_service.h"
#include "workspace/graph_answers.h"
#include "workspace/incident_windows.h"

namespace dw::desk {
namespace {

std::string Score(double v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string List(const std::vector<std::string>& items, const char* cls) {
  if (items.empty()) return "";
  std::string s = std::string("<ul class=\"") + cls + "\">";
  for (const std::string& i : items) s += "<li><code>" + EscapeMarkup(i) + "</code></li>";
  return s + "</ul>";
}

}  // namespace

std::string SystemOf(const std::string& asset_id) {
  auto id = ParseAssetId(asset_id);
  if (!id.ok()) return "unknown system";
  static const std::map<std::string, std::string> kNames = {
      {"flink", "Flink"}, {"kestra", "Kestra"}, {"kafka", "Kafka"}, {"connect", "Kafka Connect"},
      {"table", "warehouse"}, {"dbt", "dbt"}};
  auto it = kNames.find(id->kind);
  return it != kNames.end() ? it->second : id->instance;
}

std::string CausesSection(const incidents::Diagnosis& d, const config::TimeZone& zone) {
  std::string s = "<section aria-labelledby=\"causes\"><h2 id=\"causes\">Causes, ranked</h2>\n<p>" +
                  EscapeMarkup(d.summary) + "</p>\n";
  if (d.ranked.empty()) return s + "</section>\n";
  s += "<ol class=\"causes\">\n";
  for (const incidents::Candidate& c : d.ranked) {
    s += "<li><p><strong>" + EscapeMarkup(c.cause_kind) + "</strong> on " + Link(AssetHref(c.asset_id), c.asset_id) +
         " at " + EscapeMarkup(ShortTime(c.happened_at, zone)) + " — score " + Score(c.score.total) + " (time " +
         Score(c.score.time_proximity) + ", lineage " + Score(c.score.lineage_distance) + ", risk " +
         Score(c.score.risk) + ", shape " + Score(c.score.shape_fit) + ")</p>\n<p>" + EscapeMarkup(c.explanation) + "</p>\n";
    if (!c.evidence.empty()) s += "<p class=\"label\">Evidence</p>" + List(c.evidence, "evidence");
    if (!c.counter_evidence.empty()) s += "<p class=\"label\">Counter-evidence</p>" + List(c.counter_evidence, "counter");
    if (!c.path.empty()) {
      std::string path;
      for (const std::string& p : c.path) path += (path.empty() ? "" : " → ") + p;
      s += "<p class=\"small\">Path: " + EscapeMarkup(path) + "</p>";
    }
    s += "</li>\n";
  }
  s += "</ol>\n";
  if (!d.ruled_out.empty()) s += "<p class=\"label\">Ruled out</p>" + List(d.ruled_out, "ruled-out");
  return s + "</section>\n";
}

std::string BlastRadiusSection(workspace::Services& services, const incidents::Incident& inc, const Json& br) {
  const config::TimeZone zone = config::ZoneOrUtc(services.workspace().timezone);
  std::string s = "<section aria-labelledby=\"blast\"><h2 id=\"blast\">Blast radius</h2>\n";
  // Consumers that act, with their deadlines, by id.
  std::map<std::string, const Json*> consumers;
  std::set<std::string> customer_facing;
  if (br.is_object()) {
    if (br.contains("consumers") && br["consumers"].is_array())
      for (const Json& c : br["consumers"]) consumers[c.value("id", "")] = &c;
    if (br.contains("customer_facing") && br["customer_facing"].is_array())
      for (const Json& c : br["customer_facing"])
        if (c.is_string()) customer_facing.insert(c.get<std::string>());
    s += "<p>" + std::to_string(br.value("total", 0)) + " assets downstream of the damage" +
         (br.value("truncated", false) ? " (the walk stopped at its limit)" : "") + "; " +
         std::to_string(consumers.size()) + " act on a schedule, " + std::to_string(customer_facing.size()) +
         " customer-facing.</p>\n";
  }
  // The picture: downstream from the cause (or the root) through the damage.
  const std::string start = !inc.cause_asset.empty() ? inc.cause_asset : inc.root_asset;
  graph::LineageOptions lo;
  lo.direction = "downstream";
  lo.depth = 8;
  lo.include_stale = false;
  lo.max_edges = 2000;
  auto lineage = workspace::LineageAnswer(services, start, lo);
  const std::set<std::string> damaged(inc.damaged_assets.begin(), inc.damaged_assets.end());
  if (lineage.ok()) {
    std::vector<PictureNode> nodes;
    std::vector<PictureEdge> edges;
    std::map<std::string, std::vector<std::string>> reads_from;  // dst -> srcs
    for (const Json& e : (*lineage).value("edges", Json::array())) {
      edges.push_back({e.value("src", ""), e.value("dst", "")});
      reads_from[edges.back().dst].push_back(edges.back().src);
    }
    // What lies on a path to a consumer is shown first.
    std::set<std::string> on_path;
    std::vector<std::string> todo;
    for (const auto& [id, c] : consumers) todo.push_back(id);
    while (!todo.empty()) {
      std::string at = todo.back();
      todo.pop_back();
      if (!on_path.insert(at).second) continue;
      for (const std::string& src : reads_from[at]) todo.push_back(src);
    }
    nodes.push_back({start, 0, inc.cause_asset.empty() ? NodeRole::kDamaged : NodeRole::kCause,
                     inc.cause_kind.empty() ? SystemOf(start) : inc.cause_kind, 100});
    for (const Json& n : (*lineage).value("nodes", Json::array())) {
      PictureNode p;
      p.id = n.value("id", "");
      if (p.id == start) continue;
      p.column = n.value("depth", 1);
      p.detail = n.value("owner", "");
      if (damaged.count(p.id)) p.role = NodeRole::kDamaged, p.priority = 50;
      if (on_path.count(p.id)) p.priority += 10;
      auto c = consumers.find(p.id);
      if (c != consumers.end()) {
        const Json& cj = *c->second;
        const bool cf = cj.value("customer_facing", false) || customer_facing.count(p.id);
        p.role = cf ? NodeRole::kCustomerFacing : NodeRole::kConsumer;
        p.priority += cf ? 40 : 30;
        p.detail = "acts " + ShortTime(cj.value("next_run", ""), zone) + " · in " + cj.value("time_left", "?");
      } else if (customer_facing.count(p.id)) {
        p.role = NodeRole::kCustomerFacing;
        p.priority += 35;
      }
      nodes.push_back(std::move(p));
    }
    s += "<div class=\"scroll picture\" tabindex=\"0\">" +
         RenderLineageSvg("Lineage from " + start + " to the consumers that act on the damage", std::move(nodes), edges) +
         "</div>\n";
  } else {
    s += "<p class=\"message\">No lineage picture: " + EscapeMarkup(lineage.status().message()) + "</p>\n";
  }
  if (!consumers.empty()) {
    s += "<div class=\"scroll\" tabindex=\"0\"><table><caption>Consumers that act, most urgent first</caption><thead><tr>"
         "<th scope=\"col\">Consumer</th><th scope=\"col\">Next run</th><th scope=\"col\">Time left</th>"
         "<th scope=\"col\">Customer-facing</th><th scope=\"col\">Owner</th></tr></thead><tbody>\n";
    for (const Json& c : br["consumers"]) {
      const std::string id = c.value("id", "");
      const bool cf = c.value("customer_facing", false);
      s += std::string("<tr") + (cf ? " class=\"cf\"" : "") + "><td>" + Link(AssetHref(id), id) + "</td><td>" +
           EscapeMarkup(ShortTime(c.value("next_run", ""), zone)) + "</td><td><strong>" + EscapeMarkup(c.value("time_left", "")) +
           "</strong></td><td>" + (cf ? "<strong>yes</strong>" : "no") + "</td><td>" + EscapeMarkup(c.value("owner", "")) +
           "</td></tr>\n";
    }
    s += "</tbody></table></div>\n";
  }
  if (br.is_object() && br.contains("impact") && br["impact"].is_array()) {
    for (const Json& i : br["impact"])
      if (i.contains("count"))
        s += "<p>" + EscapeMarkup(i.value("asset", "")) + ": <strong>" + EscapeMarkup(i["count"].dump()) +
             "</strong> in reach since " + EscapeMarkup(ShortTime(i.value("since", ""), zone)) + ".</p>\n";
  }
  return s + "</section>\n";
}

std::string MetricPlotsSection(workspace::Services& services, store::StateStore& store, const incidents::Incident& inc) {
  std::set<std::string> metrics;
  for (const incidents::SignalRef& s : inc.signals)
    if (s.kind == incidents::SignalKind::kMetric && s.key.rfind("metric:", 0) == 0) metrics.insert(s.key.substr(7));
  if (metrics.empty()) return "";
  std::string s = "<section aria-labelledby=\"plots\"><h2 id=\"plots\">Metrics</h2>\n";
  for (const std::string& m : metrics) {
    auto settings = observe::metrics::SettingsForMetric(services.workspace(), m);
    if (!settings.ok()) {
      s += "<p class=\"message\">" + EscapeMarkup(m) + ": " + EscapeMarkup(settings.status().message()) + "</p>\n";
      continue;
    }
    auto svg = observe::metrics::PlotMetric(store, m, *settings, services.clock(), workspace::IncidentWindows(store));
    if (!svg.ok()) {
      s += "<p class=\"message\">" + EscapeMarkup(m) + ": " + EscapeMarkup(svg.status().message()) + "</p>\n";
      continue;
    }
    s += "<figure class=\"scroll picture\" tabindex=\"0\" role=\"group\" aria-label=\"" + EscapeMarkup("metric " + m) + "\">" + *svg +
         "<figcaption>" + EscapeMarkup(m) + ": the values, the expected band and the anomalies</figcaption></figure>\n";
  }
  return s + "</section>\n";
}

std::string ChecksSection(store::StateStore& store, const incidents::Incident& inc, const config::TimeZone& zone) {
  std::string rows;
  for (const incidents::SignalRef& s : inc.signals) {
    if (s.kind != incidents::SignalKind::kCheck) continue;
    rows += "<tr><td>" + EscapeMarkup(s.key) + "</td><td>" + (s.bad_now ? "<strong>failing</strong>" : "passing again") +
            "</td><td>" + std::to_string(s.count) + "</td><td>" + EscapeMarkup(ShortTime(s.first_at, zone)) + "</td><td>" +
            EscapeMarkup(s.summary) + "</td></tr>\n";
  }
  std::string latest;
  for (const std::string& table : inc.damaged_assets) {
    auto results = store.CheckResultsFor(table, 50);
    if (!results.ok() || results->empty()) continue;
    const std::string run = results->front().run_id;
    for (const store::CheckResultRow& r : *results) {
      if (r.run_id != run) break;
      latest += "<tr><td>" + EscapeMarkup(r.table_ref) + "</td><td>" + EscapeMarkup(r.check_name) + "</td><td>" +
                EscapeMarkup(store::CheckStatusName(r.status)) + "</td><td>" + EscapeMarkup(r.observed.dump()) + "</td><td>" +
                EscapeMarkup(ShortTime(r.observed_at, zone)) + "</td></tr>\n";
    }
  }
  if (rows.empty() && latest.empty()) return "";
  std::string s = "<section aria-labelledby=\"checks\"><h2 id=\"checks\">Check results</h2>\n";
  if (!rows.empty())
    s += "<div class=\"scroll\" tabindex=\"0\"><table><caption>Checks the incident holds</caption><thead><tr><th scope=\"col\">Check</th>"
         "<th scope=\"col\">Now</th><th scope=\"col\">Bad points</th><th scope=\"col\">First bad</th>"
         "<th scope=\"col\">What it saw</th></tr></thead><tbody>\n" + rows + "</tbody></table></div>\n";
  if (!latest.empty())
    s += "<div class=\"scroll\" tabindex=\"0\"><table><caption>Latest run on the damaged tables</caption><thead><tr><th scope=\"col\">Table</th>"
         "<th scope=\"col\">Check</th><th scope=\"col\">Status</th><th scope=\"col\">Observed</th>"
         "<th scope=\"col\">At</th></tr></thead><tbody>\n" + latest + "</tbody></table></div>\n";
  return s + "</section>\n";
}

}  // namespace dw::desk
