// The trusted reverse proxy's identity: X-Forwarded-Email honoured only from desk.trusted_proxies.
#include "actions/actions.h"
#include "actions/identity.h"
#include "base/ip_range.h"

namespace dw::actions {

Result<std::string> TrustedProxyPerson(const config::Workspace& workspace, const ProxiedIdentity& who) {
  if (who.header_count == 0) return NotFound("the request names nobody (no X-Forwarded-Email)");
  const std::string from = who.peer_address.empty() ? std::string("an unknown address") : who.peer_address;
  bool trusted = false;
  for (const std::string& text : workspace.desk.trusted_proxies) {
    // Validated when the workspace loaded; a range that no longer parses trusts nobody.
    Result<IpRange> range = ParseIpRange(text);
    if (range.ok() && InIpRange(*range, who.peer_address)) trusted = true;
  }
  if (workspace.desk.trusted_proxies.empty())
    return PermissionDenied("X-Forwarded-Email is ignored: the workspace names no trusted proxy (desk.trusted_proxies)");
  if (!trusted)
    return PermissionDenied("X-Forwarded-Email is ignored: this request came from " + from +
                            ", which is not one of desk.trusted_proxies");
  if (who.header_count != 1)
    return PermissionDenied("X-Forwarded-Email is ignored: the request carries it " + std::to_string(who.header_count) +
                            " times");
  if (IsAgentIdentity(who.forwarded_email))
    return PermissionDenied("'" + who.forwarded_email.substr(0, 120) + "' is an agent; agents never decide");
  if (!LooksLikePersonEmail(who.forwarded_email))
    return PermissionDenied("X-Forwarded-Email '" + who.forwarded_email.substr(0, 120) + "' is not a person's email");
  return who.forwarded_email;
}

}  // namespace dw::actions
