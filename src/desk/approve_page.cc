// `/approve/<token>`: the page a signed approval link opens, and the form post that records the
// decision. Who decides is the link's approver, checked by actions::DecideByLink (the one identity
// check); this page only carries the link, the verdict, the reason and the CSRF token.
#include <map>

#include "actions/actions.h"
#include "desk/decision_form.h"
#include "desk/desk.h"
#include "desk/html.h"
#include "desk/incident_parts.h"
#include "desk/proposal_reading.h"
#include "desk/request_parsing.h"

namespace dw::desk {

namespace {

Page LinksOff() {
  return MessagePage(503, "Approval links are off",
                     "This server was started without DW_APPROVAL_LINK_KEY, so it cannot check approval links; "
                     "decide with dw approve or dw deny, or ask the operator to set the key.");
}

// The form's CSRF binding: the signed link it decides through.
std::string LinkBinding(const std::string& token) { return "approve:" + token; }

}  // namespace

actions::DecisionTrust DeskTrust(const workspace::Services& services, const std::string& link_key) {
  if (!services.workspace_status().ok()) return actions::DecisionTrust{{}, link_key};
  return actions::TrustOf(services.workspace(), link_key);
}

std::string RejectedDecisionsHtml(const actions::ProposalState& st) {
  std::string s;
  for (const actions::RejectedDecision& r : st.rejected)
    s += "<p class=\"banner bad\" role=\"alert\">Not counted: " + EscapeMarkup(r.reason) + ".</p>\n";
  return s;
}

std::string ProposalSummaryHtml(const actions::ProposalState& st, const config::TimeZone& zone) {
  std::string s = "<dl class=\"facts\"><dt>Proposal</dt><dd>" + EscapeMarkup(st.record.kind) + ": " +
                  EscapeMarkup(st.record.id) + " v" + std::to_string(st.record.version) + "</dd><dt>Incident</dt><dd>" +
                  (st.record.incident_id.empty() ? std::string("none")
                                                 : Link(IncidentHref(st.record.incident_id), st.record.incident_id)) +
                  "</dd><dt>Status</dt><dd><strong>" +
                  EscapeMarkup(actions::ProposalStatusName(st.status)) + "</strong>";
  if (st.decided_at)
    s += " by " + EscapeMarkup(st.decided_by) + " at " + EscapeMarkup(ShortTime(*st.decided_at, zone)) + " through " +
         EscapeMarkup(st.decision_surface);
  s += "</dd>";
  if (st.request) s += "<dt>Request expires</dt><dd>" + EscapeMarkup(ShortTime(st.request->expires_at, zone)) + "</dd>";
  if (!st.awaiting.empty()) s += "<dt>Waits for</dt><dd>" + EscapeMarkup(actions::PartiesPhrase(st.awaiting)) + "</dd>";
  s += "</dl>\n" + RejectedDecisionsHtml(st);
  const Json content = st.record.body.contains("content") ? st.record.body["content"] : Json::object();
  return s + ProposalReadingHtml(st.record.kind, content, zone);
}

std::string CsrfCookie(const std::string& csrf, const std::string& path, bool secure) {
  return std::string(kCsrfCookie) + "=" + csrf + "; Path=" + path + "; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "");
}

std::string DecisionChoiceHtml() {
  return "<fieldset><legend>Your decision (choose one)</legend>\n"
         "<label><input type=\"radio\" name=\"verdict\" value=\"approve\" required> Approve</label>\n"
         "<label><input type=\"radio\" name=\"verdict\" value=\"deny\" required> Deny</label>\n</fieldset>\n"
         "<p><label for=\"reason\">Reason (required to deny)</label><br>"
         "<textarea id=\"reason\" name=\"reason\" rows=\"3\" cols=\"40\"></textarea></p>\n";
}

std::string IdentityNote(const workspace::Services& services, const actions::ProxiedIdentity& via) {
  if (via.header_count == 0 || !services.workspace_status().ok()) return "";
  auto person = actions::TrustedProxyPerson(services.workspace(), via);
  if (person.ok()) return "<p class=\"message\">Signed in through the trusted proxy as <strong>" + EscapeMarkup(*person) + "</strong>.</p>\n";
  return "<p class=\"message\" role=\"status\">" + EscapeMarkup(person.status().message()) + ".</p>\n";
}

Page ApprovePage(workspace::Services& services, const std::string& token, const DeskOptions& options,
                 const actions::ProxiedIdentity& via) {
  const config::TimeZone zone = config::ZoneOrUtc(services.workspace().timezone);
  if (options.link_key.empty()) return LinksOff();
  auto link = actions::ReadApprovalLink(token, options.link_key);
  if (!link.ok()) return MessagePage(403, "This approval link is refused", link.status().message());
  auto store = services.state();
  if (!store.ok()) return StatusPage(store.status(), "The state store could not be opened");
  auto st = actions::GetProposalState(**store, DeskTrust(services, options.link_key), link->proposal_id, link->version,
                                      services.clock());
  if (!st.ok()) return StatusPage(st.status(), "The proposal could not be read");
  std::string html = "<h1>Decide " + EscapeMarkup(link->proposal_id) + "</h1>\n<p>This link is for <strong>" +
                     EscapeMarkup(link->approver) + "</strong> and expires " + EscapeMarkup(ShortTime(link->expires_at, zone)) +
                     ". It decides once.</p>\n" + IdentityNote(services, via) + ProposalSummaryHtml(*st, zone);
  Page page;
  if (st->status == actions::ProposalStatus::kPending && st->rejected.empty() &&
      services.clock().Now() < link->expires_at) {
    const std::string csrf = NewCsrfToken(LinkBinding(token));
    if (csrf.empty()) return MessagePage(503, "No form", "The random number generator failed; try again.");
    page.cookies.push_back(CsrfCookie(csrf, "/approve/", options.secure_cookies));
    html += "<form class=\"decide\" method=\"post\" action=\"/approve/" + EscapeMarkup(token) + "\">\n" +
            DecisionChoiceHtml() +
            "<input type=\"hidden\" name=\"csrf\" value=\"" + csrf + "\">\n"
            "<button type=\"submit\">Record my decision</button>\n</form>\n";
  } else {
    html += "<p class=\"message\">Nothing to decide through this link now.</p>\n";
  }
  page.body = Document("Decide " + link->proposal_id, html);
  return page;
}

Page DecidePage(workspace::Services& services, const std::string& token, const std::string& content_type,
                const std::string& form, const std::string& cookie_header, const DeskOptions& options,
                const actions::ProxiedIdentity& via) {
  const config::TimeZone zone = config::ZoneOrUtc(services.workspace().timezone);
  if (options.link_key.empty()) return LinksOff();
  if (content_type.rfind("application/x-www-form-urlencoded", 0) != 0)
    return MessagePage(415, "Not a form", "The decision is sent as application/x-www-form-urlencoded.");
  std::map<std::string, std::string> fields;
  if (!ParseForm(form, &fields)) return MessagePage(400, "Bad form", "The form is malformed or repeats a field.");
  for (const auto& [k, v] : fields)
    if (k != "csrf" && k != "verdict" && k != "reason")
      return MessagePage(400, "Bad form", "Unknown field '" + k.substr(0, 80) + "' (the form has verdict, reason, csrf).");
  if (!CsrfMatches(cookie_header, fields.count("csrf") ? fields["csrf"] : "", LinkBinding(token)))
    return MessagePage(403, "Refused: the form's CSRF token is missing or wrong",
                       "The form's CSRF token is missing, does not match this browser's, or was made for another "
                       "link or before the server restarted; open the link again.");
  const std::string verdict = fields.count("verdict") ? fields["verdict"] : "";
  if (verdict != "approve" && verdict != "deny")
    return MessagePage(400, "Bad form", "Choose approve or deny: nothing is decided by default.");
  if (fields["reason"].size() > 2000) return MessagePage(400, "Bad form", "The reason is longer than 2000 characters.");
  auto store = services.state();
  if (!store.ok()) return StatusPage(store.status(), "The state store could not be opened");
  actions::LinkDecision d;
  d.token = token;
  d.verdict = verdict == "approve" ? actions::Verdict::kApprove : actions::Verdict::kDeny;
  d.reason = fields["reason"];
  d.surface = "web";
  d.via = via;
  auto outcome = services.workspace_status().ok()
                     ? actions::DecideByLink(**store, services.workspace(), d, options.link_key, services.clock())
                     : actions::DecideByLink(**store, d, options.link_key, services.clock());
  if (!outcome.ok()) return StatusPage(outcome.status(), "The decision could not be recorded");
  if (!outcome->accepted) return MessagePage(403, "Refused (recorded)", outcome->reason);
  auto link = actions::ReadApprovalLink(token, options.link_key);
  std::string html = "<h1>Recorded</h1>\n<p class=\"banner good\" role=\"status\">" + EscapeMarkup(outcome->reason) +
                     ", through the desk (web), at " + EscapeMarkup(ShortTime(services.clock().Now(), zone)) + ".</p>\n";
  if (link.ok()) {
    if (auto st = actions::GetProposalState(**store, DeskTrust(services, options.link_key), link->proposal_id,
                                            link->version, services.clock());
        st.ok())
      html += ProposalSummaryHtml(*st, zone);
  }
  Page page;
  page.body = Document("Recorded", html);
  return page;
}

}  // namespace dw::desk
