// `/incidents/<id>`: what happened, why, who acts next and when, and what is proposed.
#include <algorithm>

#include "desk/desk.h"
#include "desk/html.h"
#include "desk/incident_parts.h"
#include "workspace/incident_desk.h"

namespace dw::desk {
namespace {

std::string Header(const incidents::Incident& inc, TimePoint now, const config::TimeZone& zone) {
  std::string h = "<h1>" + EscapeMarkup(inc.title) + "</h1>\n<p class=\"meta\"><span class=\"sev sev" +
                  std::to_string(inc.severity.level) + "\">SEV" + std::to_string(inc.severity.level) +
                  "</span> " + EscapeMarkup(incidents::IncidentStatusName(inc.status)) + " · " +
                  EscapeMarkup(inc.id) + "</p>\n<dl class=\"facts\">\n";
  auto fact = [&h](const std::string& k, const std::string& v_html) {
    h += "<dt>" + EscapeMarkup(k) + "</dt><dd>" + v_html + "</dd>\n";
  };
  fact("Severity", EscapeMarkup(inc.severity.reason));
  if (inc.severity.acts_at && !inc.severity.consumer.empty()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*inc.severity.acts_at - now);
    fact("Acts next", "<strong class=\"deadline\">" + EscapeMarkup(Countdown(left)) + "</strong> — " +
                          Link(AssetHref(inc.severity.consumer), inc.severity.consumer) + " at " +
                          EscapeMarkup(ShortTime(*inc.severity.acts_at, zone)) +
                          (inc.severity.level == 1 ? " (customer-facing)" : ""));
  }
  fact("Root", Link(AssetHref(inc.root_asset), inc.root_asset));
  std::string damaged;
  for (const std::string& a : inc.damaged_assets) damaged += (damaged.empty() ? "" : ", ") + Link(AssetHref(a), a);
  fact("Damaged", damaged.empty() ? "none named" : damaged);
  fact("Domain", EscapeMarkup(inc.domain.empty() ? "none" : inc.domain));
  fact("Owner", EscapeMarkup(inc.owner.empty() ? "none" : inc.owner));
  fact("First bad point", EscapeMarkup(ShortTime(inc.first_bad_at, zone)));
  fact("Opened", EscapeMarkup(ShortTime(inc.opened_at, zone)));
  if (inc.recurrence_of) fact("Recurrence of", Link(IncidentHref(*inc.recurrence_of), *inc.recurrence_of));
  h += "</dl>\n";
  return h;
}

std::string TimelineSection(std::vector<TimelineEntry> entries, const config::TimeZone& zone) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const TimelineEntry& a, const TimelineEntry& b) { return a.at < b.at; });
  std::string s = "<section aria-labelledby=\"timeline\"><h2 id=\"timeline\">Timeline</h2>\n"
                  "<div class=\"scroll\" tabindex=\"0\"><table><thead><tr><th scope=\"col\">Time</th><th scope=\"col\">System</th>"
                  "<th scope=\"col\">What happened</th></tr></thead><tbody>\n";
  for (const TimelineEntry& e : entries)
    s += "<tr><td class=\"nowrap\">" + EscapeMarkup(ShortTime(e.at, zone)) + "</td><td>" + EscapeMarkup(e.system) + "</td><td>" +
         EscapeMarkup(e.what) + "</td></tr>\n";
  return s + "</tbody></table></div></section>\n";
}

}  // namespace

Page IncidentPage(workspace::Services& services, const std::string& id, const std::string& link_key) {
  const config::TimeZone zone = config::ZoneOrUtc(services.workspace().timezone);
  if (id.empty() || id.size() > 200) return MessagePage(400, "Bad incident id", "An incident id has 1 to 200 characters.");
  if (!services.workspace_status().ok()) return StatusPage(services.workspace_status(), "The workspace did not load");
  auto store = services.state();
  if (!store.ok()) return StatusPage(store.status(), "The state store could not be opened");
  auto desk = workspace::OpenIncidentDesk(services);
  if (!desk.ok()) return StatusPage(desk.status(), "The state store could not be opened");
  auto got = (*desk)->Get(id);
  if (!got.ok()) {
    if (got.status().code() == StatusCode::kNotFound) return NotFoundPage("Incident " + id);
    return StatusPage(got.status(), "The incident could not be read");
  }
  auto diagnosis = (*desk)->Diagnose(id);
  // Diagnose may have recorded a new top cause: show the incident as it is now.
  incidents::Incident inc = *got;
  if (auto again = (*desk)->Get(id); again.ok()) inc = *again;
  const TimePoint now = services.clock().Now();

  std::vector<TimelineEntry> timeline;
  for (const incidents::Transition& t : inc.transitions)
    timeline.push_back({t.at, t.actor == "dw" ? "Data Workers" : t.actor,
                        (t.from.empty() ? "incident opened" : t.from + " → " + t.to) +
                            (t.reason.empty() ? "" : ": " + t.reason)});
  for (const incidents::SignalRef& s : inc.signals)
    timeline.push_back({s.first_at, s.kind == incidents::SignalKind::kChange ? SystemOf(s.asset_id) : "Data Workers",
                        s.summary});

  std::string html = Header(inc, now, zone);
  if (diagnosis.ok()) {
    html += CausesSection(*diagnosis, zone);
    int shown = 0;
    for (const incidents::Candidate& c : diagnosis->ranked) {
      if (shown++ == 5) break;
      timeline.push_back({c.happened_at, SystemOf(c.asset_id), c.kind + " on " + c.asset_id + ": " + c.explanation});
    }
    html += BlastRadiusSection(services, inc, diagnosis->blast_radius);
  } else {
    html += "<section><h2>Causes</h2><p class=\"message\">The diagnosis could not be made: " +
            EscapeMarkup(diagnosis.status().message()) + "</p></section>\n";
    html += BlastRadiusSection(services, inc, Json::object());
  }
  html += MetricPlotsSection(services, **store, inc);
  html += ChecksSection(**store, inc, zone);
  html += ProposalsSection(**store, actions::TrustOf(services.workspace(), link_key), services.clock(), inc.id, &timeline, zone);
  html += NotificationsSection(**store, inc.id, &timeline, zone);
  html += TimelineSection(std::move(timeline), zone);
  if (!inc.notes.empty()) {
    html += "<section><h2>Notes</h2><ul>";
    for (const std::string& n : inc.notes) html += "<li>" + EscapeMarkup(n) + "</li>";
    html += "</ul></section>\n";
  }
  Page page;
  page.body = Document(inc.title, html);
  return page;
}

}  // namespace dw::desk
