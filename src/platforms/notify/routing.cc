#include "platforms/notify/routing.h"

#include <algorithm>
#include <set>

#include "net/http_client.h"
#include "platforms/notify/notice.h"

namespace dw::platforms::notify {
namespace {

// True iff `list` (a JSON array of strings) is absent or holds `value`.
bool Matches(const Json& route, const char* key, const std::string& value) {
  auto it = route.find(key);
  if (it == route.end() || !it->is_array()) return true;
  return std::any_of(it->begin(), it->end(), [&](const Json& v) { return v.is_string() && v.get<std::string>() == value; });
}

}  // namespace

std::vector<std::string> ChannelNames(const config::Workspace& ws) {
  std::vector<std::string> out;
  for (const auto& [key, value] : ws.notify.items())
    if (key != "link" && key != "routes") out.push_back(key);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> RoutedChannels(const config::Workspace& ws, const IncidentNotice& n) {
  std::vector<std::string> configured = ChannelNames(ws);
  auto routes = ws.notify.find("routes");
  if (routes == ws.notify.end() || !routes->is_array()) return configured;
  std::set<std::string> out;
  for (const Json& route : *routes) {
    if (!route.is_object() || !Matches(route, "domains", n.domain) ||
        !Matches(route, "severities", n.severity) || !Matches(route, "events", EventKindName(n.event)))
      continue;
    for (const Json& c : route.value("channels", Json::array()))
      if (c.is_string() && std::count(configured.begin(), configured.end(), c.get<std::string>()))
        out.insert(c.get<std::string>());
  }
  return {out.begin(), out.end()};
}

Recipients RecipientsOf(const config::DomainConfig* domain, EventKind event) {
  Recipients r;
  if (domain == nullptr) return r;
  auto copy_others = [&](const std::vector<std::string>& people) {
    for (const auto& p : people)
      if (std::find(r.to.begin(), r.to.end(), p) == r.to.end() &&
          std::find(r.cc.begin(), r.cc.end(), p) == r.cc.end())
        r.cc.push_back(p);
  };
  if (event == EventKind::kApprovalRequested) {
    r.to = domain->approvers;
    copy_others(domain->owners);
  } else if (event == EventKind::kEscalated) {
    r.to = domain->escalate_to;
    copy_others(domain->approvers);
  } else if (event == EventKind::kAttentionRequested) {
    r.to = domain->owners;
    copy_others(domain->approvers);
  }
  return r;
}

std::string IncidentLink(const config::Workspace& ws, const std::string& incident_id) {
  std::string link = ws.notify.value("link", "");
  const std::string token = "{incident}";
  for (auto pos = link.find(token); pos != std::string::npos; pos = link.find(token, pos)) {
    std::string id = net::EncodePathSegment(incident_id);
    link.replace(pos, token.size(), id);
    pos += id.size();
  }
  return link;
}

}  // namespace dw::platforms::notify
