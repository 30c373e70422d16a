// The desk's requests (desk/request_parsing.h): what its routes read from a request before any page
// touches the workspace or the store. The input is one request, three parts split at the first two
// newlines:
//   line 1  the request target, "/path?query", as it arrives on `GET <target> HTTP/1.1`
//   line 2  the Cookie header
//   rest    a urlencoded form body (the POSTs of /approve/<token>, /decide/<id>)
// The target is split and percent-decoded by cpp-httplib's own functions (decode_url for the path,
// parse_query_text for the query: what dw serve's httplib does before a route runs), then read by
// every parser a route calls: the incident list's filters, the asset search, a positive number in
// the last path segment (/receipts/<seq>) and in the form's version field (/decide/<id>), the
// form, the cookie and the CSRF check; an /approve/ path's token goes to the link reader. Besides "no crash, hang, leak": a refusal is an invalid
// argument naming what is wrong in a bounded sentence (a hostile value is quoted at most 80
// characters), what is accepted is exactly what was sent, a form re-encoded parses to itself, and
// the ids the desk puts in its links (IncidentHref, AssetHref) decode back to the same id.
#include <httplib.h>

#include <string>

#include "actions/actions.h"
#include "desk/csrf_token.h"
#include "desk/html.h"
#include "desk/request_parsing.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using dw::StatusCode;
using dw::fuzz::Broken;

// Longest refusal: a sentence and two quoted values of at most 80 characters each.
constexpr size_t kMaxMessage = 300;

const dw::config::Workspace& TestWorkspace() {
  static const dw::config::Workspace ws = [] {
    dw::config::Workspace w;
    w.domains["payments"] = {};
    w.domains["growth"] = {};
    return w;
  }();
  return ws;
}

void CheckRefusal(const dw::Status& st) {
  if (st.code() != StatusCode::kInvalidArgument) Broken("a bad parameter refused with another code than invalid argument");
  if (st.message().empty() || st.message().size() > kMaxMessage) Broken("a refusal's sentence is empty or unbounded");
  if (st.message().find('\'') == std::string::npos) Broken("a refusal that does not quote what is wrong");
}

bool Repeats(const dw::desk::Query& q) {
  for (auto it = q.begin(); it != q.end(); ++it)
    if (q.count(it->first) > 1) return true;
  return false;
}

void IncidentList(const dw::desk::Query& q) {
  auto p = dw::desk::ParseIncidentListParams(q, TestWorkspace());
  if (!p.ok()) return CheckRefusal(p.status());
  if (Repeats(q)) Broken("the incident list accepted a repeated parameter");
  for (const auto& [k, v] : q)
    if (k != "domain" && k != "severity" && k != "status" && !v.empty())
      Broken("the incident list accepted an unknown parameter");
  if (p->severity < 0 || p->severity > 3) Broken("a severity outside 0..3");
  if (!p->domain.empty() && !TestWorkspace().domains.count(p->domain)) Broken("a domain not in the workspace");
  const auto status = q.find("status");
  if (p->status.has_value() != (status != q.end() && !status->second.empty()))
    Broken("a status filter without a status parameter, or the reverse");
}

void AssetSearch(const dw::desk::Query& q) {
  auto a = dw::desk::ParseAssetQuery(q);
  if (!a.ok()) return CheckRefusal(a.status());
  if (Repeats(q)) Broken("the asset search accepted a repeated parameter");
  for (const auto& [k, v] : q) {
    if (v.size() > 200) Broken("the asset search accepted a value over 200 characters");
    const std::string* field = k == "q" ? &a->text : k == "kind" ? &a->kind : k == "owner" ? &a->owner
                             : k == "domain"                      ? &a->domain : nullptr;
    if (field == nullptr) Broken("the asset search accepted an unknown parameter");
    if (*field != v) Broken("the asset search changed a value");
  }
  if (a->limit != 200) Broken("the asset search's limit is not 200");
}

void PositiveNumber(const std::string& text, size_t max_digits) {
  const auto n = dw::desk::ParsePositiveDecimal(text, max_digits);
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (!n) {
    if (digits && text.size() <= max_digits && text.size() <= 18 && text.find_first_not_of('0') != std::string::npos)
      Broken("a positive number of few enough digits refused");
    return;
  }
  if (!digits || text.size() > max_digits || *n <= 0) Broken("a number accepted that is not a positive decimal");
  if (std::to_string(*n) != text.substr(text.find_first_not_of('0'))) Broken("a number read as another value");
}

// The encoding a browser uses for a form (spaces as '+').
std::string FormEncode(const std::string& s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') out.push_back(static_cast<char>(c));
    else if (c == ' ') out.push_back('+');
    else { out.push_back('%'); out.push_back(kHex[c >> 4]); out.push_back(kHex[c & 15]); }
  }
  return out;
}

void Form(const std::string& body, const std::string& cookie) {
  std::map<std::string, std::string> fields;
  if (!dw::desk::ParseForm(body, &fields)) return;
  std::string again;
  for (const auto& [k, v] : fields) again += (again.empty() ? "" : "&") + FormEncode(k) + "=" + FormEncode(v);
  std::map<std::string, std::string> back;
  if (!dw::desk::ParseForm(again, &back) || back != fields) Broken("a form re-encoded does not parse to itself");
  const std::string sent = fields.count("csrf") ? fields["csrf"] : "";
  // A token this process did not make never matches, whatever the cookie and form say; one it made
  // matches only with its own binding, in both places.
  if (dw::desk::CsrfMatches(cookie, sent, "approve:fuzz") || dw::desk::CsrfMatches(cookie, sent, sent))
    Broken("a CSRF token matched that this process never made");
  static const std::string minted = dw::desk::NewCsrfToken("approve:fuzz");
  if (!minted.empty() && body != "approve:fuzz" && dw::desk::CsrfMatches("dw_csrf=" + minted, minted, body))
    Broken("a CSRF token matched under a binding it was not made for");
  if (fields.count("version")) PositiveNumber(fields["version"], 9);
}

void Cookie(const std::string& header) {
  const std::string v = dw::desk::CookieValue(header, dw::desk::kCsrfCookie);
  if (!v.empty() && header.find(std::string(dw::desk::kCsrfCookie) + "=" + v) == std::string::npos)
    Broken("a cookie value that is not in the header");
}

// `/approve/<token>`: the desk admits the path without the bearer token only when the link verifies
// (desk_routes.cc), so a token that reaches the route decoded by httplib is refused with a reason
// unless it is one signed with the key (the seeds' link).
void ApprovePath(const std::string& path) {
  if (path.rfind("/approve/", 0) != 0) return;
  static const std::string kKey = "dw-fuzz-approval-link-test-key-0123456789";
  auto link = dw::actions::ReadApprovalLink(path.substr(9), kKey);
  if (link.ok()) return;
  if ((link.status().code() != StatusCode::kInvalidArgument && link.status().code() != StatusCode::kPermissionDenied) ||
      link.status().message().empty())
    Broken("an approve path refused without a reason");
}

// The link the desk writes for an id reaches its route with the same id (httplib decodes the path).
void LinkRoundTrip(const std::string& id) {
  const std::string href = dw::desk::AssetHref(id);
  if (httplib::detail::decode_url(href, false) != "/assets/" + id) Broken("an asset link does not decode to its id");
  if (httplib::detail::decode_url(dw::desk::IncidentHref(id), false) != "/incidents/" + id)
    Broken("an incident link does not decode to its id");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t nl1 = input.find('\n');
  const std::string target = input.substr(0, nl1);
  const size_t nl2 = nl1 == std::string::npos ? std::string::npos : input.find('\n', nl1 + 1);
  const std::string cookie = nl1 == std::string::npos ? "" : input.substr(nl1 + 1, nl2 - nl1 - 1);
  const std::string body = nl2 == std::string::npos ? "" : input.substr(nl2 + 1);

  // As httplib reads a request line's target: the path before '?', decoded; the query after it.
  const size_t q = target.find('?');
  const std::string path = httplib::detail::decode_url(target.substr(0, q), false);
  dw::desk::Query query;
  if (q != std::string::npos) httplib::detail::parse_query_text(target.substr(q + 1), query);

  IncidentList(query);
  AssetSearch(query);
  const size_t slash = path.rfind('/');
  PositiveNumber(slash == std::string::npos ? path : path.substr(slash + 1), 18);
  Form(body, cookie);
  Cookie(cookie);
  LinkRoundTrip(path);
  ApprovePath(path);
  return 0;
}
