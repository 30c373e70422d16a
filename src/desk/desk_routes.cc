// The desk's HTTP routes: each translates the request (path segment, query) and calls one page
// function; the answer leaves with the security headers.
#include "desk/desk.h"
#include "desk/decision_form.h"
#include "desk/html.h"
#include "desk/reader_sessions.h"

namespace dw::desk {
namespace {

using PageOf = std::function<Page(const httplib::Request&)>;

void Send(httplib::Response& res, const Page& page) {
  AddSecurityHeaders(res);
  res.status = page.status;
  for (const std::string& c : page.cookies) res.set_header("Set-Cookie", c);
  if (!page.download_name.empty())
    res.set_header("Content-Disposition", "attachment; filename=\"" + page.download_name + "\"");
  res.set_content(page.body, page.content_type.c_str());
}

Query QueryOf(const httplib::Request& req) {
  Query q;
  for (const auto& [k, v] : req.params) q.emplace(k, v);
  return q;
}

// The path after `prefix` (httplib has decoded it).
std::string Rest(const httplib::Request& req, const std::string& prefix) {
  return req.path.size() > prefix.size() ? req.path.substr(prefix.size()) : "";
}

net::HttpHandler Handle(PageOf page_of) {
  return [page_of = std::move(page_of)](const httplib::Request& req, httplib::Response& res) {
    Send(res, page_of(req));
  };
}

// Who the request comes from: the socket's peer and the proxy's X-Forwarded-Email, as given;
// whether they count is actions::TrustedProxyPerson's call.
actions::ProxiedIdentity ViaOf(const httplib::Request& req) {
  actions::ProxiedIdentity via;
  via.peer_address = req.remote_addr;
  via.header_count = static_cast<int>(req.get_header_value_count("X-Forwarded-Email"));
  if (via.header_count > 0) via.forwarded_email = req.get_header_value("X-Forwarded-Email");
  return via;
}

bool Starts(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// The paths the desk owns (and may admit without the bearer token).
bool DeskPath(const std::string& p) {
  return p == "/" || p == "/incidents" || Starts(p, "/incidents/") || p == "/assets" || Starts(p, "/assets/") ||
         p == "/receipts" || Starts(p, "/receipts/") || p == "/desk.css" || Starts(p, "/approve/") ||
         Starts(p, "/decide/") || p == "/session";
}

// A page that takes no parameter refuses any.
Page NoParameters(const httplib::Request& req, const std::function<Page()>& page) {
  if (!req.params.empty())
    return MessagePage(400, "Bad request", "This page takes no parameter; '" + req.params.begin()->first.substr(0, 80) +
                                               "' was given.");
  return page();
}

}  // namespace

void AddSecurityHeaders(httplib::Response& res) {
  res.set_header("Content-Security-Policy",
                 "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
                 "frame-ancestors 'none'; base-uri 'none'");
  res.set_header("X-Content-Type-Options", "nosniff");
  // same-origin, not no-referrer: with no-referrer browsers post forms with `Origin: null`, which the
  // server refuses; a signed link still never leaves in a Referer to another origin.
  res.set_header("Referrer-Policy", "same-origin");
  res.set_header("X-Frame-Options", "DENY");
  res.set_header("Cache-Control", "no-store");
}

Status AddDeskRoutes(net::HttpServer& server, std::shared_ptr<workspace::Services> services, DeskOptions options) {
  workspace::Services* s = services.get();
  auto sessions = std::make_shared<ReaderSessions>(services->clock(), std::chrono::hours(12), 10000);
  // Without the bearer token: a desk page with a live session or through a trusted proxy naming a
  // person; /session itself (the sign-in); /approve/<token> whose link verifies (it is its own
  // credential, and shows only its proposal).
  DW_RETURN_IF_ERROR(server.AdmitWithoutBearer([services, sessions, key = options.link_key](const httplib::Request& r) {
    if (!DeskPath(r.path)) return false;
    if (r.path == "/session") return true;
    if (Starts(r.path, "/approve/") && !key.empty() && actions::ReadApprovalLink(Rest(r, "/approve/"), key).ok())
      return true;
    if (sessions->Valid(CookieValue(r.get_header_value("Cookie"), kSessionCookie))) return true;
    return services->workspace_status().ok() && actions::TrustedProxyPerson(services->workspace(), ViaOf(r)).ok();
  }));
  // The handlers hold the shared pointer, so the services outlive every request.
  auto keep = [services](PageOf f) { return Handle([services, f = std::move(f)](const httplib::Request& r) { return f(r); }); };
  struct Route {
    const char* path;
    bool prefix;
    PageOf page;
  };
  const std::vector<Route> routes = {
      {"/", false, [s](const httplib::Request& r) { return IncidentsPage(*s, QueryOf(r)); }},
      {"/incidents", false, [s](const httplib::Request& r) { return IncidentsPage(*s, QueryOf(r)); }},
      {"/incidents/", true,
       [s, key = options.link_key](const httplib::Request& r) {
         return NoParameters(r, [&] { return IncidentPage(*s, Rest(r, "/incidents/"), key); });
       }},
      {"/assets", false, [s](const httplib::Request& r) { return AssetsPage(*s, QueryOf(r)); }},
      {"/assets/", true,
       [s](const httplib::Request& r) { return NoParameters(r, [&] { return AssetPage(*s, Rest(r, "/assets/")); }); }},
      {"/receipts", false, [s](const httplib::Request& r) { return NoParameters(r, [&] { return ReceiptsPage(*s); }); }},
      {"/receipts/", true,
       [s](const httplib::Request& r) {
         return NoParameters(r, [&] {
           const std::string rest = Rest(r, "/receipts/");
           if (rest == "export.json") return ReceiptsExport(*s, "json");
           if (rest == "export.md") return ReceiptsExport(*s, "md");
           return ReceiptPage(*s, rest);
         });
       }},
      {"/desk.css", false, [](const httplib::Request&) { return Stylesheet(); }},
      {"/session", false, [options](const httplib::Request& r) { return NoParameters(r, [&] { return SessionPage(options); }); }},
      {"/approve/", true,
       [s, options](const httplib::Request& r) {
         return NoParameters(r, [&] { return ApprovePage(*s, Rest(r, "/approve/"), options, ViaOf(r)); });
       }},
      {"/decide/", true,
       [s, options](const httplib::Request& r) {
         return NoParameters(r, [&] { return ProxyDecidePage(*s, Rest(r, "/decide/"), ViaOf(r), options); });
       }},
  };
  for (const Route& r : routes) {
    Status st = r.prefix ? server.AddPrefixHandler("GET", r.path, keep(r.page)) : server.AddHandler("GET", r.path, keep(r.page));
    if (!st.ok()) return st;
  }
  // The decision: the form's fields are the body; the query carries nothing.
  Status st = server.AddPrefixHandler("POST", "/approve/", keep([s, options](const httplib::Request& r) {
    if (!r.params.empty()) return MessagePage(400, "Bad request", "The decision is sent as a form, not in the URL.");
    return DecidePage(*s, Rest(r, "/approve/"), r.get_header_value("Content-Type"), r.body,
                      r.get_header_value("Cookie"), options, ViaOf(r));
  }));
  if (!st.ok()) return st;
  st = server.AddHandler("POST", "/session", keep([s, sessions, options](const httplib::Request& r) {
    if (!r.params.empty()) return MessagePage(400, "Bad request", "The token is sent in the form, never in the URL.");
    return StartSessionPage(*s, *sessions, r.get_header_value("Content-Type"), r.body, ViaOf(r), options);
  }));
  if (!st.ok()) return st;
  return server.AddPrefixHandler("POST", "/decide/", keep([s, options](const httplib::Request& r) {
    if (!r.params.empty()) return MessagePage(400, "Bad request", "The decision is sent as a form, not in the URL.");
    return ProxyDecisionPost(*s, Rest(r, "/decide/"), r.get_header_value("Content-Type"), r.body,
                             r.get_header_value("Cookie"), ViaOf(r), options);
  }));
}

}  // namespace dw::desk
