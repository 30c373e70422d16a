// The incident page's action sections: proposals with their diffs and approval state, and the
// notifications the outbox holds for the incident.
#include <algorithm>
#include <map>
#include <sstream>

#include "desk/decision_form.h"
#include "desk/html.h"
#include "desk/incident_parts.h"
#include "desk/proposal_reading.h"

namespace dw::desk {
namespace {

std::string ApprovalState(const actions::ProposalState& st, const config::TimeZone& zone) {
  std::string s = "<dl class=\"facts\">";
  s += "<dt>Status</dt><dd><strong>" + EscapeMarkup(actions::ProposalStatusName(st.status)) + "</strong></dd>";
  s += "<dt>Version</dt><dd>" + std::to_string(st.record.version) + " of " + std::to_string(st.newest_version) + "</dd>";
  s += "<dt>Drafted by</dt><dd>" + EscapeMarkup(st.record.body.value("author", "")) + " at " +
       EscapeMarkup(ShortTime(st.record.created_at, zone)) + "</dd>";
  if (st.request) {
    std::string who;
    for (const std::string& a : st.request->approvers) who += (who.empty() ? "" : ", ") + a;
    s += "<dt>Approvers</dt><dd>" + EscapeMarkup(who.empty() ? "none" : who) + " (round " +
         std::to_string(st.request->round) + ", expires " + EscapeMarkup(ShortTime(st.request->expires_at, zone)) + ")</dd>";
  }
  if (!st.awaiting.empty()) {
    std::string so_far;
    for (const std::string& p : st.approved_by) so_far += (so_far.empty() ? "" : ", ") + p;
    s += "<dt>Waits for</dt><dd>" + EscapeMarkup(actions::PartiesPhrase(st.awaiting)) +
         (so_far.empty() ? "" : " (approved so far by " + EscapeMarkup(so_far) + ")") + "</dd>";
  }
  if (st.decided_at) {
    s += "<dt>Decided</dt><dd>" + EscapeMarkup(st.decided_by) + " at " + EscapeMarkup(ShortTime(*st.decided_at, zone)) +
         " through " + EscapeMarkup(st.decision_surface.empty() ? "an unnamed surface" : st.decision_surface) +
         (st.decision_reason.empty() ? "" : ": " + EscapeMarkup(st.decision_reason)) + "</dd>";
  }
  return s + "</dl>\n";
}

}  // namespace

std::string DiffBlock(const std::string& unified) {
  std::string out = "<pre class=\"diff\" tabindex=\"0\">";
  std::istringstream in(unified);
  std::string line;
  while (std::getline(in, line)) {
    const char* cls = "ctx";
    if (line.rfind("+++", 0) == 0 || line.rfind("---", 0) == 0) cls = "file";
    else if (line.rfind("@@", 0) == 0) cls = "hunk";
    else if (!line.empty() && line[0] == '+') cls = "add";
    else if (!line.empty() && line[0] == '-') cls = "del";
    out += std::string("<span class=\"") + cls + "\">" + EscapeMarkup(line) + "</span>\n";
  }
  return out + "</pre>\n";
}

std::string ProposalsSection(store::StateStore& store, const actions::DecisionTrust& trust, const Clock& clock,
                             const std::string& incident_id,
                             std::vector<TimelineEntry>* timeline, const config::TimeZone& zone) {
  std::string s = "<section aria-labelledby=\"proposals\"><h2 id=\"proposals\">Proposals</h2>\n";
  auto records = store.ProposalsOfIncident(incident_id);
  if (!records.ok()) return s + "<p class=\"message\">" + EscapeMarkup(records.status().message()) + "</p></section>\n";
  std::vector<std::string> ids;
  for (const store::ProposalRecord& r : *records)
    if (std::find(ids.begin(), ids.end(), r.id) == ids.end()) ids.push_back(r.id);
  if (ids.empty()) return s + "<p>No proposal has been drafted for this incident.</p></section>\n";
  for (const std::string& pid : ids) {
    auto st = actions::GetProposalState(store, trust, pid, 0, clock);
    if (!st.ok()) {
      s += "<p class=\"message\">" + EscapeMarkup(pid) + ": " + EscapeMarkup(st.status().message()) + "</p>\n";
      continue;
    }
    s += "<article class=\"proposal\" aria-labelledby=\"p-" + EscapeMarkup(UrlEncode(pid)) + "\"><h3 id=\"p-" +
         EscapeMarkup(UrlEncode(pid)) + "\">" + EscapeMarkup(st->record.kind) + ": " + EscapeMarkup(pid) + "</h3>\n";
    s += ApprovalState(*st, zone) + RejectedDecisionsHtml(*st);
    const Json content = st->record.body.contains("content") ? st->record.body["content"] : Json::object();
    s += ProposalReadingHtml(st->record.kind, content, zone);
    s += "</article>\n";
    if (auto events = store.ActionEvents("proposal:" + pid); events.ok()) {
      for (const store::ActionEventRecord& e : *events)
        timeline->push_back({e.at, e.actor.empty() ? "Data Workers" : e.actor,
                             "proposal " + pid + ": " + e.kind +
                                 (e.body.contains("reason") && e.body["reason"].is_string()
                                      ? " (" + e.body["reason"].get<std::string>() + ")"
                                      : "")});
    }
  }
  return s + "</section>\n";
}

std::string NotificationsSection(store::StateStore& store, const std::string& incident_id,
                                 std::vector<TimelineEntry>* timeline, const config::TimeZone& zone) {
  std::string s = "<section aria-labelledby=\"notifications\"><h2 id=\"notifications\">Notifications</h2>\n";
  auto outbox = store.OutboxFor(incident_id);
  if (!outbox.ok()) return s + "<p class=\"message\">" + EscapeMarkup(outbox.status().message()) + "</p></section>\n";
  if (outbox->empty()) return s + "<p>No notification has been written for this incident.</p></section>\n";
  s += "<div class=\"scroll\" tabindex=\"0\"><table><thead><tr><th scope=\"col\">Written</th><th scope=\"col\">Channel</th>"
       "<th scope=\"col\">Event</th><th scope=\"col\">Delivery</th><th scope=\"col\">Attempts</th>"
       "<th scope=\"col\">Last error</th></tr></thead><tbody>\n";
  for (const store::OutboxMessage& m : *outbox) {
    s += "<tr><td class=\"nowrap\">" + EscapeMarkup(ShortTime(m.created_at, zone)) + "</td><td>" + EscapeMarkup(m.channel) +
         "</td><td>" + EscapeMarkup(m.event) + "</td><td>" + EscapeMarkup(m.state) + "</td><td>" +
         std::to_string(m.attempts) + "</td><td>" + EscapeMarkup(m.last_error) + "</td></tr>\n";
    timeline->push_back({m.created_at, "notify: " + m.channel, m.event + " (" + m.state + ")"});
  }
  return s + "</tbody></table></div></section>\n";
}

}  // namespace dw::desk
