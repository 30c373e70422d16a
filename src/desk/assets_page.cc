// `/assets?q=` and `/assets/<id>`: the context graph as a catalog the on-call opens next.
#include <set>

#include "desk/desk.h"
#include "desk/html.h"
#include "desk/incident_parts.h"
#include "desk/lineage_picture.h"
#include "workspace/graph_answers.h"
#include "workspace/incident_desk.h"

namespace dw::desk {
namespace {

std::string Field(const std::string& name, const std::string& label, const std::string& value) {
  return "<label>" + EscapeMarkup(label) + " <input type=\"text\" name=\"" + name + "\" value=\"" + EscapeMarkup(value) +
         "\"></label>\n";
}

std::string Text(const Json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return "";
  return j[key].is_string() ? j[key].get<std::string>() : j[key].dump();
}

}  // namespace

Page AssetsPage(workspace::Services& services, const Query& query) {
  if (!services.workspace_status().ok()) return StatusPage(services.workspace_status(), "The workspace did not load");
  auto q = ParseAssetQuery(query);
  if (!q.ok()) return StatusPage(q.status(), "Bad search");
  auto answer = workspace::AssetSearchAnswer(services, *q);
  if (!answer.ok()) return StatusPage(answer.status(), "The context graph could not be searched");
  std::string html = "<h1>Assets</h1>\n<form class=\"filters\" method=\"get\" action=\"/assets\" role=\"search\">\n" +
                     Field("q", "Name", q->text) + Field("kind", "Kind", q->kind) + Field("owner", "Owner", q->owner) +
                     Field("domain", "Domain", q->domain) + "<button type=\"submit\">Search</button>\n</form>\n";
  const Json& assets = (*answer)["assets"];
  const int64_t total = answer->value("total", int64_t{0});
  if (assets.empty()) {
    html += "<p class=\"message\">No asset matches.</p>\n";
  } else {
    html += "<p>" + std::to_string(total) + (total == 1 ? " asset" : " assets") +
            (answer->value("truncated", false) ? ", the first " + std::to_string(assets.size()) + " shown" : "") + ".</p>\n";
    html += "<div class=\"scroll\" tabindex=\"0\"><table><thead><tr><th scope=\"col\">Asset</th><th scope=\"col\">Kind</th>"
            "<th scope=\"col\">Domain</th><th scope=\"col\">Owner</th><th scope=\"col\">Customer-facing</th></tr></thead><tbody>\n";
    for (const Json& a : assets) {
      const std::string id = Text(a, "id");
      html += "<tr><td>" + Link(AssetHref(id), id) + "</td><td>" + EscapeMarkup(Text(a, "kind")) + "</td><td>" +
              EscapeMarkup(Text(a, "domain")) + "</td><td>" + EscapeMarkup(Text(a, "owner")) + "</td><td>" +
              (a.value("customer_facing", false) ? "<strong>yes</strong>" : "no") + "</td></tr>\n";
    }
    html += "</tbody></table></div>\n";
  }
  Page page;
  page.body = Document("Assets", html);
  return page;
}

Page AssetPage(workspace::Services& services, const std::string& id) {
  const config::TimeZone zone = config::ZoneOrUtc(services.workspace().timezone);
  if (id.empty() || id.size() > 500) return MessagePage(400, "Bad asset id", "An asset id has 1 to 500 characters.");
  if (!services.workspace_status().ok()) return StatusPage(services.workspace_status(), "The workspace did not load");
  auto answer = workspace::AssetAnswer(services, id);
  if (!answer.ok()) {
    if (answer.status().code() == StatusCode::kInvalidArgument)
      return MessagePage(400, "Bad asset id", "'" + id + "' is not an asset id: " + answer.status().message());
    return StatusPage(answer.status(), "The context graph could not be read");
  }
  if (!answer->value("found", false)) {
    Page p = NotFoundPage("Asset " + id);
    std::string closest;
    for (const Json& c : answer->value("closest", Json::array()))
      if (c.is_string()) closest += "<li>" + Link(AssetHref(c.get<std::string>()), c.get<std::string>()) + "</li>";
    if (!closest.empty()) {
      const std::string marker = "</main>";
      p.body.insert(p.body.find(marker), "<h2>Closest ids</h2><ul>" + closest + "</ul>\n");
    }
    return p;
  }
  const Json& asset = (*answer)["asset"];
  const std::string canonical = answer->value("id", id);
  std::string html = "<h1>" + EscapeMarkup(canonical) + "</h1>\n<dl class=\"facts\">\n";
  for (const char* key : {"kind", "domain", "owner", "schedule"}) {
    const std::string v = Text(asset, key);
    if (!v.empty()) html += "<dt>" + std::string(key) + "</dt><dd>" + EscapeMarkup(v) + "</dd>\n";
  }
  html += std::string("<dt>customer-facing</dt><dd>") + (asset.value("customer_facing", false) ? "<strong>yes</strong>" : "no") + "</dd>\n";
  if (asset.value("placeholder", false)) html += "<dt>described</dt><dd>no source describes this asset yet</dd>\n";
  if (const std::string notes = Text(asset, "notes"); !notes.empty())
    html += "<dt>notes</dt><dd>" + EscapeMarkup(notes) + "</dd>\n";
  html += "</dl>\n";

  // Lineage up and down as a picture.
  graph::LineageOptions lo;
  lo.direction = "both";
  lo.depth = 3;
  lo.max_edges = 1000;
  auto lineage = workspace::LineageAnswer(services, canonical, lo);
  html += "<section aria-labelledby=\"lineage\"><h2 id=\"lineage\">Lineage</h2>\n";
  if (lineage.ok()) {
    std::vector<PictureNode> nodes = {{canonical, 0, NodeRole::kSelf, Text(asset, "owner"), 100}};
    std::vector<PictureEdge> edges;
    for (const Json& n : lineage->value("nodes", Json::array())) {
      const std::string nid = Text(n, "id");
      if (nid == canonical) continue;
      const int depth = n.value("depth", 1);
      const bool up = Text(n, "side") == "upstream";
      PictureNode p{nid, up ? -depth : depth, NodeRole::kPlain, Text(n, "owner"), 0};
      if (n.value("customer_facing", false)) p.role = NodeRole::kCustomerFacing, p.priority = 10;
      nodes.push_back(std::move(p));
    }
    for (const Json& e : lineage->value("edges", Json::array())) edges.push_back({Text(e, "src"), Text(e, "dst")});
    html += "<div class=\"scroll picture\" tabindex=\"0\">" +
            RenderLineageSvg("Lineage of " + canonical + ": what it reads and what reads it", std::move(nodes), edges) +
            "</div>\n";
  } else {
    html += "<p class=\"message\">" + EscapeMarkup(lineage.status().message()) + "</p>\n";
  }
  html += "</section>\n";

  const config::Workspace& ws = services.workspace();
  auto store = services.state();
  if (!store.ok()) return StatusPage(store.status(), "The state store could not be opened");
  // Checks and monitors on it, with their latest results.
  std::string checks;
  for (const config::CheckConfig& c : ws.checks) {
    if (c.asset_id != canonical) continue;
    auto results = (*store)->CheckResultsFor(canonical, 50);
    if (!results.ok() || results->empty()) {
      checks += "<p>Checks are configured (workspace line " + std::to_string(c.line) + ") and have not run yet.</p>\n";
      continue;
    }
    checks += "<div class=\"scroll\" tabindex=\"0\"><table><caption>Latest run, " + EscapeMarkup(ShortTime(results->front().observed_at, zone)) +
              "</caption><thead><tr><th scope=\"col\">Check</th><th scope=\"col\">Status</th><th scope=\"col\">Observed</th>"
              "<th scope=\"col\">Message</th></tr></thead><tbody>\n";
    for (const store::CheckResultRow& r : *results) {
      if (r.run_id != results->front().run_id) break;
      checks += "<tr><td>" + EscapeMarkup(r.check_name) + "</td><td>" + EscapeMarkup(store::CheckStatusName(r.status)) +
                "</td><td>" + EscapeMarkup(r.observed.dump()) + "</td><td>" + EscapeMarkup(r.message) + "</td></tr>\n";
    }
    checks += "</tbody></table></div>\n";
  }
  for (const config::MonitorConfig& m : ws.monitors) {
    if (Text(m.spec, "asset") != canonical) continue;
    checks += "<p>Monitor <strong>" + EscapeMarkup(m.name) + "</strong> (every " + EscapeMarkup(Text(m.spec, "every")) +
              ") on warehouse " + EscapeMarkup(m.warehouse) + ".</p>\n";
  }
  html += "<section aria-labelledby=\"checks\"><h2 id=\"checks\">Checks and monitors</h2>\n" +
          (checks.empty() ? std::string("<p>None configured on this asset.</p>\n") : checks) + "</section>\n";

  // Recent change events.
  const TimePoint now = services.clock().Now();
  auto events = (*store)->ChangeEventsFor(canonical, now - std::chrono::hours(24 * 30), now + std::chrono::milliseconds(1));
  html += "<section aria-labelledby=\"changes\"><h2 id=\"changes\">Change events, last 30 days</h2>\n";
  if (!events.ok()) {
    html += "<p class=\"message\">" + EscapeMarkup(events.status().message()) + "</p>\n";
  } else if (events->empty()) {
    html += "<p>None recorded.</p>\n";
  } else {
    html += "<div class=\"scroll\" tabindex=\"0\"><table><thead><tr><th scope=\"col\">When</th><th scope=\"col\">Kind</th>"
            "<th scope=\"col\">Risk</th><th scope=\"col\">Why</th></tr></thead><tbody>\n";
    for (auto it = events->rbegin(); it != events->rend(); ++it)
      html += "<tr><td class=\"nowrap\">" + EscapeMarkup(ShortTime(it->happened_at, zone)) + "</td><td>" + EscapeMarkup(it->kind) +
              "</td><td>" + EscapeMarkup(std::to_string(it->risk).substr(0, 4)) + "</td><td>" + EscapeMarkup(it->reason) +
              "</td></tr>\n";
    html += "</tbody></table></div>\n";
  }
  html += "</section>\n";

  // Incidents on it.
  html += "<section aria-labelledby=\"incidents\"><h2 id=\"incidents\">Incidents</h2>\n";
  auto desk = workspace::OpenIncidentDesk(services);
  if (desk.ok()) {
    incidents::IncidentFilter f;
    f.asset_id = canonical;
    f.limit = 20;
    auto list = (*desk)->List(f);
    if (list.ok() && !list->empty()) {
      html += "<ul>";
      for (const incidents::Incident& inc : *list)
        html += "<li>" + Link(IncidentHref(inc.id), inc.title) + " — SEV" + std::to_string(inc.severity.level) + ", " +
                EscapeMarkup(incidents::IncidentStatusName(inc.status)) + ", opened " + EscapeMarkup(ShortTime(inc.opened_at, zone)) +
                "</li>";
      html += "</ul>\n";
    } else {
      html += list.ok() ? "<p>None.</p>\n" : "<p class=\"message\">" + EscapeMarkup(list.status().message()) + "</p>\n";
    }
  }
  html += "</section>\n";
  Page page;
  page.body = Document(canonical, html);
  return page;
}

}  // namespace dw::desk
