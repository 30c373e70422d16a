// An IncidentNotice as the outbox keeps it (JSON), and the words every channel shares: the
// headline, the event in a phrase, the severity in each service's scale.
#pragma once

#include <string>

#include "base/json.h"
#include "base/status.h"
#include "platforms/notify/notify.h"

namespace dw::platforms::notify {

Json NoticeToJson(const IncidentNotice& notice);
// InvalidArgument naming the field when `j` is not a notice NoticeToJson wrote.
Result<IncidentNotice> NoticeFromJson(const Json& j);

// The outbox event key: the kind, plus ":<revision>" when the notice has one.
std::string EventKey(const IncidentNotice& notice);

// "Opened", "Severity raised", "Approval requested", ...
std::string EventPhrase(EventKind event);
// "[SEV1] Opened: <title>".
std::string Headline(const IncidentNotice& notice);

// Opsgenie priority P1..P5 and PagerDuty severity (critical, error, warning, info) of SEV1..SEV4.
std::string OpsgeniePriority(const std::string& severity);
std::string PagerDutySeverity(const std::string& severity);

// The lines every human-readable message carries, in order: severity, asset, cause, consumer and
// deadline, summary. Each "Label: value"; empty values are left out.
std::vector<std::pair<std::string, std::string>> Facts(const IncidentNotice& notice);

// An approval request's or escalation's lines on how to decide: one ("Approve or deny as <who>
// ...", URL) per signed link made at send time, else ("How to decide", the CLI command). Empty
// for other events. Only channels that reach the approvers themselves carry them (Slack, Teams,
// email), never an alerting tool's incident (Opsgenie, PagerDuty).
std::vector<std::pair<std::string, std::string>> DecideLines(const IncidentNotice& notice);

// Sets notice.approve_urls: each approval link signed by `sign` under `desk_url`
// ("<desk_url>/approve/<token>"). Without a signer or a desk URL, or when signing fails, none is
// set and the notice's decide_hint says why, so the message tells how to decide another way.
void ResolveApprovalLinks(IncidentNotice& notice, const std::string& desk_url, const ApprovalLinkSigner& sign);

}  // namespace dw::platforms::notify
