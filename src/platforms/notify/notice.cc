#include "platforms/notify/notice.h"

#include <array>

namespace dw::platforms::notify {
namespace {

constexpr std::array<std::pair<EventKind, const char*>, 8> kEventNames = {{
    {EventKind::kOpen, "open"},
    {EventKind::kSeverityRaised, "severity_raised"},
    {EventKind::kApprovalRequested, "approval_requested"},
    {EventKind::kApproved, "approved"},
    {EventKind::kEscalated, "escalated"},
    {EventKind::kVerified, "verified"},
    {EventKind::kResolved, "resolved"},
    {EventKind::kAttentionRequested, "attention_requested"},
}};

}  // namespace

const char* EventKindName(EventKind kind) {
  for (const auto& [k, name] : kEventNames)
    if (k == kind) return name;
  return "unknown";
}

std::optional<EventKind> ParseEventKind(const std::string& name) {
  for (const auto& [k, n] : kEventNames)
    if (name == n) return k;
  return std::nullopt;
}

Json NoticeToJson(const IncidentNotice& n) {
  Json j{{"incident_id", n.incident_id}, {"dedup_key", n.dedup_key},
         {"event", EventKindName(n.event)}, {"severity", n.severity},
         {"domain", n.domain}, {"title", n.title}, {"asset", n.asset}, {"cause", n.cause},
         {"diagnosis", n.diagnosis}, {"consumer", n.consumer}, {"deadline", n.deadline},
         {"summary", n.summary}, {"link", n.link}, {"revision", n.revision}};
  // The links' fields only (approve_urls is never stored: see ApprovalLinkSpec).
  if (!n.approval_links.empty()) {
    Json links = Json::array();
    for (const ApprovalLinkSpec& l : n.approval_links)
      links.push_back({{"approver", l.approver}, {"proposal", l.proposal_id}, {"version", l.version},
                       {"exp_ms", l.expires_at_ms}, {"nonce", l.nonce}});
    j["approval_links"] = links;
  }
  if (!n.decide_hint.empty()) j["decide_hint"] = n.decide_hint;
  return j;
}

Result<IncidentNotice> NoticeFromJson(const Json& j) {
  if (!j.is_object()) return InvalidArgument("outbox payload is not an object");
  IncidentNotice n;
  auto text = [&](const char* key, std::string* out) -> bool {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return true;
    if (!it->is_string()) return false;
    *out = it->get<std::string>();
    return true;
  };
  std::string event;
  for (auto [key, out] : std::initializer_list<std::pair<const char*, std::string*>>{
           {"incident_id", &n.incident_id}, {"dedup_key", &n.dedup_key}, {"event", &event},
           {"severity", &n.severity}, {"domain", &n.domain}, {"title", &n.title},
           {"asset", &n.asset}, {"cause", &n.cause}, {"diagnosis", &n.diagnosis},
           {"consumer", &n.consumer}, {"deadline", &n.deadline}, {"summary", &n.summary},
           {"link", &n.link}, {"revision", &n.revision}, {"decide_hint", &n.decide_hint}})
    if (!text(key, out)) return InvalidArgument(std::string("outbox payload: '") + key + "' is not a string");
  if (auto links = j.find("approval_links"); links != j.end()) {
    if (!links->is_array()) return InvalidArgument("outbox payload: 'approval_links' is not a list");
    for (const Json& l : *links) {
      if (!l.is_object() || !l.value("approver", Json()).is_string() || !l.value("proposal", Json()).is_string() ||
          !l.value("version", Json()).is_number_integer() || !l.value("exp_ms", Json()).is_number_integer() ||
          !l.value("nonce", Json()).is_string())
        return InvalidArgument("outbox payload: an approval link is malformed");
      n.approval_links.push_back({l["approver"].get<std::string>(), l["proposal"].get<std::string>(),
                                  l["version"].get<int64_t>(), l["exp_ms"].get<int64_t>(), l["nonce"].get<std::string>()});
    }
  }
  auto kind = ParseEventKind(event);
  if (!kind) return InvalidArgument("outbox payload: unknown event '" + event + "'");
  n.event = *kind;
  return n;
}

std::string EventKey(const IncidentNotice& n) {
  std::string key = EventKindName(n.event);
  if (!n.revision.empty()) key += ":" + n.revision;
  return key;
}

std::string EventPhrase(EventKind event) {
  switch (event) {
    case EventKind::kOpen: return "Opened";
    case EventKind::kSeverityRaised: return "Severity raised";
    case EventKind::kApprovalRequested: return "Approval requested";
    case EventKind::kApproved: return "Approved";
    case EventKind::kEscalated: return "Escalated";
    case EventKind::kVerified: return "Verified";
    case EventKind::kResolved: return "Resolved";
    // A person is needed: a failed verification, data back with its cause still live, a decision
    // that does not verify. The summary says which.
    case EventKind::kAttentionRequested: return "Attention requested";
  }
  return "Update";
}

std::string Headline(const IncidentNotice& n) {
  return "[" + n.severity + "] " + EventPhrase(n.event) + ": " +
         (n.title.empty() ? n.incident_id : n.title);
}

std::string OpsgeniePriority(const std::string& s) {
  if (s == "SEV1") return "P1";
  if (s == "SEV2") return "P2";
  if (s == "SEV3") return "P3";
  if (s == "SEV4") return "P4";
  return "P5";
}

std::string PagerDutySeverity(const std::string& s) {
  if (s == "SEV1") return "critical";
  if (s == "SEV2") return "error";
  if (s == "SEV3") return "warning";
  return "info";
}

std::vector<std::pair<std::string, std::string>> DecideLines(const IncidentNotice& n) {
  std::vector<std::pair<std::string, std::string>> out;
  if (n.event != EventKind::kApprovalRequested && n.event != EventKind::kEscalated) return out;
  for (const auto& [approver, url] : n.approve_urls)
    out.push_back({"Approve or deny as " + approver + " (your link: single use, do not forward)", url});
  if (out.empty() && !n.decide_hint.empty()) out.push_back({"How to decide", n.decide_hint});
  return out;
}

std::vector<std::pair<std::string, std::string>> Facts(const IncidentNotice& n) {
  std::vector<std::pair<std::string, std::string>> out;
  auto add = [&](const char* label, const std::string& v) {
    if (!v.empty()) out.push_back({label, v});
  };
  add("Severity", n.severity);
  add("Asset", n.asset);
  add("Cause (ranked first)", n.cause);
  std::string consumer = n.consumer;
  if (!consumer.empty() && !n.deadline.empty()) consumer += " acts at " + n.deadline;
  add("Customer-facing consumer", consumer);
  add(n.event == EventKind::kApprovalRequested ? "Proposed" : "Summary", n.summary);
  add("Incident", n.incident_id);
  return out;
}

}  // namespace dw::platforms::notify

namespace dw::platforms::notify {

void ResolveApprovalLinks(IncidentNotice& n, const std::string& desk_url, const ApprovalLinkSigner& sign) {
  n.approve_urls.clear();
  if (n.approval_links.empty()) return;
  std::string why;
  if (desk_url.empty()) why = "the workspace has no desk.url";
  else if (!sign) why = "the sender has no DW_APPROVAL_LINK_KEY";
  for (const ApprovalLinkSpec& l : n.approval_links) {
    if (!why.empty()) break;
    Result<std::string> token = sign(l);
    if (!token.ok()) {
      why = token.status().message();
      n.approve_urls.clear();
      break;
    }
    n.approve_urls.push_back({l.approver, desk_url + "/approve/" + *token});
  }
  if (!why.empty())
    n.decide_hint = (n.decide_hint.empty() ? std::string() : n.decide_hint + " ") + "(No approval link: " + why + ".)";
}

}  // namespace dw::platforms::notify
