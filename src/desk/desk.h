// The desk's front door (dw::desk): the web pages `dw serve` shows at `/`, rendered on the server
// as plain HTML and SVG from the stages' own answers (incidents, proposals and approvals, the
// context graph, the metric plots, the receipt chain). The pages need no script: reading is links
// and GET forms. Every value shown passes through EscapeMarkup (base/markup_escape.h).
//
//   /                      incidents (filters: domain, severity, status)
//   /incidents/<id>        one incident: causes, blast radius picture, plot, checks, proposals,
//                          approval state, notifications, timeline
//   /assets?q=&kind=&owner=&domain=    the context graph searched
//   /assets/<url-encoded id>           one asset: owner, domain, lineage picture, checks,
//                                      monitors, change events, incidents
//   /receipts, /receipts/<seq>, /receipts/export.json, /receipts/export.md
//   /approve/<token>       a signed approval link (actions::IssueApprovalLink): the proposal, its
//                          diff and a form; POST records the decision through actions::DecideByLink
//   /session               off loopback: sign in once with the bearer token (or through the
//                          trusted proxy) for a reading session cookie
//   /decide/<proposal id>  the same for the person a trusted reverse proxy names (X-Forwarded-Email
//                          from desk.trusted_proxies); POST through actions::DecideAsProxiedPerson
//
// A page function never throws and never writes the store except what the stage it calls writes
// by contract (IncidentDesk::Diagnose records the top cause when it changed). Unknown ids are 404
// pages that say what was not found; bad parameters 400 pages naming the parameter; a workspace
// or store that cannot be opened 503 with the reason.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actions/actions.h"
#include "base/status.h"
#include "desk/request_parsing.h"
#include "net/http_server.h"
#include "workspace/services.h"

namespace dw::desk {

// One answer of the desk: what the route writes back.
struct Page {
  int status = 200;
  std::string content_type = "text/html; charset=utf-8";
  std::string body;
  std::string download_name;  // when set, sent as an attachment with this file name
  std::vector<std::string> cookies;  // Set-Cookie values
};

struct DeskOptions {
  // The key of signed approval links ($DW_APPROVAL_LINK_KEY); empty: /approve/ answers 503.
  std::string link_key;
  // Cookies carry Secure (the server is reached over HTTPS through a proxy, not on loopback).
  bool secure_cookies = false;
  // The server's bearer token (`dw serve --token-file`), checked by the sign-in form at /session;
  // empty when the server needs none.
  std::string bearer_token;
};

// Query (the decoded query parameters a page takes) is request_parsing.h's.

Page IncidentsPage(workspace::Services& services, const Query& query);
// Decisions on the incident's proposals are checked with the workspace's keys and `link_key`.
Page IncidentPage(workspace::Services& services, const std::string& id, const std::string& link_key);
Page AssetsPage(workspace::Services& services, const Query& query);
Page AssetPage(workspace::Services& services, const std::string& id);
Page ReceiptsPage(workspace::Services& services);
// `seq_text` is the path segment: a positive decimal number.
Page ReceiptPage(workspace::Services& services, const std::string& seq_text);
// `format` "json" or "md" (actions::ExportReceipts).
Page ReceiptsExport(workspace::Services& services, const std::string& format);
// GET /approve/<token>: what the link lets its approver decide, and the form (with a CSRF token
// set as an HttpOnly, SameSite=Strict cookie). 403 for a link that does not verify, 503 without a
// link key.
Page ApprovePage(workspace::Services& services, const std::string& token, const DeskOptions& options,
                 const actions::ProxiedIdentity& via = {});
// POST /approve/<token>: `form` the urlencoded body, `cookie_header` the request's Cookie. 403
// when the CSRF token is missing or does not match the cookie, or when actions::DecideByLink
// refuses (the reason shown); 200 with who decided, when and through which surface.
Page DecidePage(workspace::Services& services, const std::string& token, const std::string& content_type,
                const std::string& form, const std::string& cookie_header, const DeskOptions& options,
                const actions::ProxiedIdentity& via = {});

// GET /decide/<proposal id>: the newest version of the proposal and, when `via` is a person a
// trusted proxy names (actions::TrustedProxyPerson) and the version is pending, the form (CSRF
// token as on /approve/). Otherwise the page says why there is no form, including that
// X-Forwarded-Email was ignored and why. 404 for an unknown proposal.
Page ProxyDecidePage(workspace::Services& services, const std::string& proposal_id, const actions::ProxiedIdentity& via,
                     const DeskOptions& options);
// POST /decide/<proposal id>: fields verdict, reason, version, csrf. 403 without a matching CSRF
// token or when actions::DecideAsProxiedPerson refuses (the reason shown, the refusal recorded).
Page ProxyDecisionPost(workspace::Services& services, const std::string& proposal_id, const std::string& content_type,
                       const std::string& form, const std::string& cookie_header,
                       const actions::ProxiedIdentity& via, const DeskOptions& options);

// 404: "`what` was not found", with links back.
Page NotFoundPage(const std::string& what);
// The one stylesheet every page links (/desk.css).
Page Stylesheet();

// The response headers every desk answer carries: a Content-Security-Policy that allows only this
// origin's stylesheet and images (no script at all, no other origin, no framing), nosniff,
// same-origin referrers only (a signed link never leaks through a Referer to another site), no
// caching.
void AddSecurityHeaders(httplib::Response& res);

// Registers the routes above on `server` (the server's Host/Origin checks apply to each). Where the
// server requires its bearer token, a desk page is also read with a live session cookie or through
// a trusted proxy naming a person, and /approve/<token> with a link that verifies
// (HttpServer::AdmitWithoutBearer); nothing else (MCP, the lineage intake) is let through. `services` is shared with the MCP endpoints. kInvalidArgument when a path is
// already taken.
Status AddDeskRoutes(net::HttpServer& server, std::shared_ptr<workspace::Services> services,
                     DeskOptions options = {});

}  // namespace dw::desk
