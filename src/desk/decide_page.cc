// `/decide/<proposal id>`: deciding as the person the trusted reverse proxy names (an SSO proxy
// such as oauth2-proxy in front of the desk sends X-Forwarded-Email). Whether that header counts
// is actions::TrustedProxyPerson's answer and the decision actions::DecideAsProxiedPerson's: this
// page only carries the proxy's identity, the version shown, the verdict, the reason and the CSRF
// token.
#include "desk/decision_form.h"
#include "desk/desk.h"
#include "desk/html.h"

namespace dw::desk {
namespace {

constexpr char kDecidePath[] = "/decide/";

std::string DecideHref(const std::string& proposal_id) { return kDecidePath + UrlEncode(proposal_id); }

// The form's CSRF binding: the proposal and the person the proxy's header names (whether the
// proxy is trusted is decided after, by the actions stage).
std::string ProxyBinding(const std::string& proposal_id, const actions::ProxiedIdentity& via) {
  return "decide:" + proposal_id + "\n" + via.forwarded_email;
}

}  // namespace

Page ProxyDecidePage(workspace::Services& services, const std::string& proposal_id, const actions::ProxiedIdentity& via,
                     const DeskOptions& options) {
  const config::TimeZone zone = config::ZoneOrUtc(services.workspace().timezone);
  if (!services.workspace_status().ok()) return StatusPage(services.workspace_status(), "The workspace does not load");
  auto store = services.state();
  if (!store.ok()) return StatusPage(store.status(), "The state store could not be opened");
  auto st = actions::GetProposalState(**store, DeskTrust(services, options.link_key), proposal_id, 0, services.clock());
  if (!st.ok()) {
    if (st.status().code() == StatusCode::kNotFound) return NotFoundPage("Proposal " + proposal_id);
    return StatusPage(st.status(), "The proposal could not be read");
  }
  std::string html = "<h1>Decide " + EscapeMarkup(proposal_id) + "</h1>\n" + ProposalSummaryHtml(*st, zone);
  auto person = actions::TrustedProxyPerson(services.workspace(), via);
  Page page;
  if (!person.ok()) {
    html += "<p class=\"message\" role=\"status\">" +
            EscapeMarkup(person.status().code() == StatusCode::kNotFound
                             ? std::string("This page decides only for a person the sign-in proxy names "
                                           "(X-Forwarded-Email from desk.trusted_proxies); this request names nobody. "
                                           "Use the approval link of your notification, or dw approve.")
                             : person.status().message() + ". Use the approval link of your notification, or dw approve.") +
            "</p>\n";
  } else if (st->status != actions::ProposalStatus::kPending || !st->rejected.empty()) {
    html += "<p class=\"message\">Signed in as <strong>" + EscapeMarkup(*person) + "</strong>. Nothing to decide: " +
            EscapeMarkup(proposal_id) + " v" + std::to_string(st->record.version) + " is " +
            EscapeMarkup(actions::ProposalStatusName(st->status)) + ".</p>\n";
  } else {
    const std::string csrf = NewCsrfToken(ProxyBinding(proposal_id, via));
    if (csrf.empty()) return MessagePage(503, "No form", "The random number generator failed; try again.");
    page.cookies.push_back(CsrfCookie(csrf, kDecidePath, options.secure_cookies));
    // The checks that decide whether it counts are the actions stage's; the form only says who asks.
    html += "<p class=\"message\">Signed in through the trusted proxy as <strong>" + EscapeMarkup(*person) +
            "</strong>.</p>\n<form class=\"decide\" method=\"post\" action=\"" + EscapeMarkup(DecideHref(proposal_id)) +
            "\">\n" + DecisionChoiceHtml() +
            "<input type=\"hidden\" name=\"version\" value=\"" + std::to_string(st->record.version) + "\">\n"
            "<input type=\"hidden\" name=\"csrf\" value=\"" + csrf + "\">\n"
            "<button type=\"submit\">Record my decision</button>\n</form>\n";
  }
  page.body = Document("Decide " + proposal_id, html);
  return page;
}

Page ProxyDecisionPost(workspace::Services& services, const std::string& proposal_id, const std::string& content_type,
                       const std::string& form, const std::string& cookie_header,
                       const actions::ProxiedIdentity& via, const DeskOptions& options) {
  const config::TimeZone zone = config::ZoneOrUtc(services.workspace().timezone);
  if (!services.workspace_status().ok()) return StatusPage(services.workspace_status(), "The workspace does not load");
  if (content_type.rfind("application/x-www-form-urlencoded", 0) != 0)
    return MessagePage(415, "Not a form", "The decision is sent as application/x-www-form-urlencoded.");
  std::map<std::string, std::string> fields;
  if (!ParseForm(form, &fields)) return MessagePage(400, "Bad form", "The form is malformed or repeats a field.");
  for (const auto& [k, v] : fields)
    if (k != "csrf" && k != "verdict" && k != "reason" && k != "version")
      return MessagePage(400, "Bad form",
                         "Unknown field '" + k.substr(0, 80) + "' (the form has verdict, reason, version, csrf).");
  if (!CsrfMatches(cookie_header, fields.count("csrf") ? fields["csrf"] : "", ProxyBinding(proposal_id, via)))
    return MessagePage(403, "Refused: the form's CSRF token is missing or wrong",
                       "The form's CSRF token is missing, does not match this browser's, or was made for another "
                       "proposal or person or before the server restarted; open the page again.");
  const std::string verdict = fields["verdict"];
  if (verdict != "approve" && verdict != "deny")
    return MessagePage(400, "Bad form", "Choose approve or deny: nothing is decided by default.");
  const std::optional<int64_t> version = ParsePositiveDecimal(fields["version"], 9);
  if (!version) return MessagePage(400, "Bad form", "version must be the positive number of the version shown.");
  if (fields["reason"].size() > 2000) return MessagePage(400, "Bad form", "The reason is longer than 2000 characters.");
  auto store = services.state();
  if (!store.ok()) return StatusPage(store.status(), "The state store could not be opened");
  actions::ProxyDecision d;
  d.identity = via;
  d.proposal_id = proposal_id;
  d.version = *version;
  d.verdict = verdict == "approve" ? actions::Verdict::kApprove : actions::Verdict::kDeny;
  d.reason = fields["reason"];
  auto outcome = actions::DecideAsProxiedPerson(**store, services.workspace(), d, options.link_key, services.clock());
  if (!outcome.ok()) return StatusPage(outcome.status(), "The decision could not be recorded");
  if (!outcome->accepted) return MessagePage(403, "Refused (recorded)", outcome->reason);
  std::string html = "<h1>Recorded</h1>\n<p class=\"banner good\" role=\"status\">" + EscapeMarkup(outcome->reason) +
                     ", through the desk (web), at " + EscapeMarkup(ShortTime(services.clock().Now(), zone)) + ".</p>\n";
  if (auto st = actions::GetProposalState(**store, DeskTrust(services, options.link_key), proposal_id, d.version,
                                          services.clock());
      st.ok())
    html += ProposalSummaryHtml(*st, zone);
  Page page;
  page.body = Document("Recorded", html);
  return page;
}

}  // namespace dw::desk
