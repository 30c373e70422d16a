// Internal to desk/: reading what a request to the desk carries, apart from the pages so that it
// can be tested and fuzzed without a workspace (tests/fuzz/desk_requests_fuzz.cc): the list and
// search filters of the query string, the numbers in a path segment or a form field, the
// urlencoded decision form and the Cookie header. httplib has already split and percent-decoded
// the query (Query) and the path; these functions see the decoded text, every byte of it untrusted.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "base/status.h"
#include "config/workspace.h"
#include "graph/asset_lookup.h"
#include "incidents/incidents.h"

namespace dw::desk {

// Query parameters as the route received them (decoded); a key given twice is refused.
using Query = std::multimap<std::string, std::string>;

// The filters of `/` and `/incidents`.
struct IncidentListParams {
  std::string domain;  // "" = any
  int severity = 0;    // 1..3; 0 = any
  std::optional<incidents::IncidentStatus> status;
};

// domain (one of `ws`'s domains), severity (SEV1..SEV3 or 1..3), status (an incident status); an
// empty value means "any". kInvalidArgument naming the parameter for an unknown key, a repeated
// one or a value outside its vocabulary (values quoted at most 80 characters long).
Result<IncidentListParams> ParseIncidentListParams(const Query& query, const config::Workspace& ws);

// The search of `/assets`: q, kind, owner, domain, each at most 200 characters; limit 200.
// kInvalidArgument naming the parameter for an unknown key, a repeated one or a value too long.
Result<graph::AssetQuery> ParseAssetQuery(const Query& query);

// A positive decimal number of at most `max_digits` digits and nothing else (a receipt's sequence
// number in `/receipts/<seq>`, the version field of the `/decide/` form); nullopt otherwise,
// zero included.
std::optional<int64_t> ParsePositiveDecimal(const std::string& text, size_t max_digits);

// The cookie that carries a decision form's CSRF token.
inline constexpr char kCsrfCookie[] = "dw_csrf";

// application/x-www-form-urlencoded; false for a malformed escape or a field given twice.
bool ParseForm(const std::string& body, std::map<std::string, std::string>* out);
// The value of cookie `name` in a Cookie header; "" when absent.
std::string CookieValue(const std::string& header, const std::string& name);

}  // namespace dw::desk
