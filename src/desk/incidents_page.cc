// `/`: the incidents, newest first, with what the on-call needs to pick one: severity, the
// damaged asset, the cause ranked first, the next consumer's deadline counting down, status.
#include <set>

#include "desk/desk.h"
#include "desk/html.h"
#include "incidents/incidents.h"
#include "workspace/incident_desk.h"

namespace dw::desk {
namespace {

constexpr int kShown = 200;

std::string Select(const std::string& name, const std::string& label, const std::vector<std::string>& options,
                   const std::string& chosen) {
  std::string out = "<label>" + EscapeMarkup(label) + " <select name=\"" + name + "\"><option value=\"\">any</option>";
  for (const std::string& o : options)
    out += "<option" + std::string(o == chosen ? " selected" : "") + ">" + EscapeMarkup(o) + "</option>";
  return out + "</select></label>\n";
}

std::string DeadlineCell(const incidents::Incident& inc, TimePoint now, const config::TimeZone& zone) {
  const incidents::Severity& s = inc.severity;
  if (!s.acts_at || s.consumer.empty()) return "<td>none within 24 h</td>";
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*s.acts_at - now);
  const std::string who = s.level == 1 ? "customer-facing " : "";
  return "<td><strong>" + EscapeMarkup(Countdown(left)) + "</strong><br><span class=\"small\">" + who +
         Link(AssetHref(s.consumer), s.consumer) + " at " + EscapeMarkup(ShortTime(*s.acts_at, zone)) + "</span></td>";
}

}  // namespace

Page IncidentsPage(workspace::Services& services, const Query& query) {
  const config::TimeZone zone = config::ZoneOrUtc(services.workspace().timezone);
  if (!services.workspace_status().ok()) return StatusPage(services.workspace_status(), "The workspace did not load");
  auto params = ParseIncidentListParams(query, services.workspace());
  if (!params.ok()) return StatusPage(params.status(), "Bad filter");
  auto desk = workspace::OpenIncidentDesk(services);
  if (!desk.ok()) return StatusPage(desk.status(), "The state store could not be opened");
  incidents::IncidentFilter filter;
  filter.domain = params->domain;
  filter.status = params->status;
  // The page lists 200; a severity filter is applied to what is read, so it reads more.
  filter.limit = params->severity ? 1000 : kShown;
  auto list = (*desk)->List(filter);
  if (!list.ok()) return StatusPage(list.status(), "The incidents could not be read");
  const TimePoint now = services.clock().Now();

  std::vector<std::string> domains;
  for (const auto& [name, d] : services.workspace().domains) domains.push_back(name);
  std::string html = "<h1>Incidents</h1>\n<form class=\"filters\" method=\"get\" action=\"/\">\n";
  html += Select("domain", "Domain", domains, params->domain);
  html += Select("severity", "Severity", {"SEV1", "SEV2", "SEV3"},
                 params->severity ? "SEV" + std::to_string(params->severity) : "");
  html += Select("status", "Status", {"open", "acknowledged", "mitigated", "resolved", "closed"},
                 params->status ? incidents::IncidentStatusName(*params->status) : "");
  html += "<button type=\"submit\">Filter</button>\n</form>\n";

  std::string rows;
  int matched = 0, shown = 0;
  for (const incidents::Incident& inc : *list) {
    if (params->severity && inc.severity.level != params->severity) continue;
    ++matched;
    if (shown >= kShown) continue;
    ++shown;
    const std::string damaged = inc.damaged_assets.empty() ? inc.root_asset : inc.damaged_assets.front();
    std::string cause = "<td>not known yet</td>";
    if (!inc.cause_kind.empty())
      cause = "<td>" + EscapeMarkup(inc.cause_kind) + " on " + Link(AssetHref(inc.cause_asset), inc.cause_asset) + "</td>";
    rows += "<tr><td><span class=\"sev sev" + std::to_string(inc.severity.level) + "\">SEV" +
            std::to_string(inc.severity.level) + "</span></td><td>" + Link(IncidentHref(inc.id), inc.title) +
            "<br><span class=\"small\">" + EscapeMarkup(inc.id) + " · opened " + EscapeMarkup(ShortTime(inc.opened_at, zone)) +
            "</span></td><td>" + Link(AssetHref(damaged), damaged) + "</td>" + cause + DeadlineCell(inc, now, zone) +
            "<td>" + EscapeMarkup(incidents::IncidentStatusName(inc.status)) + "</td></tr>\n";
  }
  if (matched == 0) {
    html += "<p class=\"message\">No incident matches.</p>\n";
  } else {
    const bool capped = list->size() >= static_cast<size_t>(filter.limit);
    html += "<p>" + std::string(capped ? "The newest " + std::to_string(filter.limit) + " read: " : "") +
            std::to_string(matched) + (matched == 1 ? " incident" : " incidents") +
            (shown < matched ? ", the newest " + std::to_string(shown) + " shown" : "") + ". Now: " +
            EscapeMarkup(ShortTime(now, zone)) + ".</p>\n";
    html += "<div class=\"scroll\" tabindex=\"0\"><table class=\"incidents\">\n<thead><tr><th scope=\"col\">Severity</th>"
            "<th scope=\"col\">Incident</th><th scope=\"col\">Damaged asset</th><th scope=\"col\">Cause ranked first</th>"
            "<th scope=\"col\">Next deadline</th><th scope=\"col\">Status</th></tr></thead>\n<tbody>\n" +
            rows + "</tbody></table></div>\n";
  }
  Page page;
  page.body = Document("Incidents", html);
  return page;
}

}  // namespace dw::desk
