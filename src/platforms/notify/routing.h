// Who hears of a notice: the channels the workspace's notify.routes give it (every configured
// channel when there are no routes) and, for approvals and escalations, the people the domain
// names.
#pragma once

#include <string>
#include <vector>

#include "config/workspace.h"
#include "platforms/notify/notify.h"

namespace dw::platforms::notify {

// The configured channels (notify: keys other than link and routes) that a route sends `notice`
// to, sorted. Every configured channel when notify.routes is absent.
std::vector<std::string> RoutedChannels(const config::Workspace& workspace, const IncidentNotice& notice);

struct Recipients {
  std::vector<std::string> to;
  std::vector<std::string> cc;
};

// Approval requests: the domain's approvers, its other owners copied. Escalations: escalate_to,
// the approvers copied. Attention requested (a failed verification): the domain's owners, its
// other approvers copied. Other events: nobody in particular (the channel's own audience).
Recipients RecipientsOf(const config::DomainConfig* domain, EventKind event);

// notify.link with {incident} replaced by the (URL-encoded) incident id, or "" without a link.
std::string IncidentLink(const config::Workspace& workspace, const std::string& incident_id);

}  // namespace dw::platforms::notify
