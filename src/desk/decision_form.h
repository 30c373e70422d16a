// Internal to desk/: what the two decision pages share (/approve/<token> and /decide/<proposal>):
// the CSRF token's cookie (the token is csrf_token.h's, the form and cookie parsing
// request_parsing.h's), the proposal's summary, and the sentence on who the trusted proxy says the
// reader is (or why its header was ignored).
#pragma once

#include <map>
#include <string>

#include "actions/actions.h"
#include "config/time_zone.h"
#include "desk/csrf_token.h"
#include "desk/request_parsing.h"
#include "workspace/services.h"

namespace dw::desk {

// The Set-Cookie value carrying `csrf` for the forms under `path` (HttpOnly, SameSite=Strict, and
// Secure when `secure`).
std::string CsrfCookie(const std::string& csrf, const std::string& path, bool secure);
// The proposal's kind, id, version, incident, status (who decided, when, through which surface),
// the request's expiry and its diffs rendered as diffs.
std::string ProposalSummaryHtml(const actions::ProposalState& st, const config::TimeZone& zone);
// The form's choice and reason: Approve and Deny as radio buttons of which neither is chosen
// (required: the browser will not send the form until the person picks one; the server refuses a
// form without a verdict too), and the reason. Nothing is pre-selected: a decision is chosen.
std::string DecisionChoiceHtml();
// What the desk checks recorded decisions against: the workspace's declared keys (none when it
// does not load) and the desk's key `link_key`.
actions::DecisionTrust DeskTrust(const workspace::Services& services, const std::string& link_key);
// The decisions recorded for `st`'s version that do not verify, one warning each ("" for none).
std::string RejectedDecisionsHtml(const actions::ProposalState& st);
// "" without an X-Forwarded-Email; else who the trusted proxy names, or why the header is ignored.
std::string IdentityNote(const workspace::Services& services, const actions::ProxiedIdentity& via);

}  // namespace dw::desk
