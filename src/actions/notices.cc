// What the action stage tells people: an approval request to the domain's approvers, its
// escalation to escalate_to, the approval, and the resolution with its receipt. Each notice is the
// incident's (incidents::NoticeOf) with what the action adds, written to the outbox of
// platforms/notify/ in the transaction that records the action.
#include <algorithm>

#include "actions/approval_log.h"
#include "actions/identity.h"
#include "incidents/incidents.h"

namespace dw::actions {
namespace {

// The request's way to decide: the CLI command, and with desk.url a link per approver. Only the
// link's fields go to the outbox; the delivery signs them with the key it holds
// (platforms::notify::ApprovalLinkSpec), so the outbox never holds a usable link.
Status AddApprovalLinks(store::StateStore& store, const config::Workspace& workspace, const Clock& clock,
                        const store::ProposalRecord& rec, const ApprovalRequestView& request,
                        platforms::notify::IncidentNotice* n) {
  n->decide_hint = "dw approve " + rec.id + " --version " + std::to_string(rec.version) +
                   " --as YOUR_EMAIL --key YOUR_KEY_FILE (or dw deny ... --reason WHY)";
  if (workspace.desk.url.empty()) return Status::Ok();
  const std::string author = rec.body.value("author", "");
  for (const std::string& approver : request.approvers) {
    if (approver == author || !LooksLikePersonEmail(approver) || IsAgentIdentity(approver)) continue;
    platforms::notify::ApprovalLinkSpec l{approver, rec.id, rec.version, ToUnixMillis(request.expires_at), NewNonce()};
    if (l.nonce.empty()) return Internal("the random number generator failed");
    Result<int64_t> seq = Record(store, clock, "link_issued", ProposalSubject(rec.id), approver,
                                 {{"version", rec.version}, {"approver", approver}, {"round", request.round},
                                  {"expires_at", FormatRfc3339(request.expires_at)}, {"via", "notification"}});
    if (!seq.ok()) return seq.status();
    n->approval_links.push_back(std::move(l));
  }
  return Status::Ok();
}

}  // namespace

namespace {

// The notice of `rec` for `event`: its incident's (a bare one when the store does not hold it),
// for the proposal's domain, one per proposal version.
Result<platforms::notify::IncidentNotice> ProposalNotice(store::StateStore& store, const config::Workspace& workspace,
                                                         const store::ProposalRecord& rec,
                                                         platforms::notify::EventKind event, const std::string& summary) {
  auto incident = incidents::ReadIncident(store, rec.incident_id);
  if (!incident.ok()) {
    // A proposal about an incident this store does not hold still goes to its approvers.
    if (incident.status().code() != StatusCode::kNotFound) return incident.status();
    incidents::Incident bare;
    bare.id = rec.incident_id;
    bare.title = "proposal " + rec.id + " (" + rec.kind + ")";
    incident = bare;
  }
  auto n = incidents::NoticeOf(workspace, *incident, event, summary);
  // The proposal's domain decides who is asked, whatever the incident's is.
  const std::string domain = rec.body.value("domain", "");
  if (FindDomain(workspace, domain) != nullptr) n.domain = domain;
  // One message per proposal version and event: a second proposal asks again.
  n.revision = rec.id + ".v" + std::to_string(rec.version);
  return n;
}

}  // namespace

Status NotifyProposal(store::StateStore& store, const config::Workspace& workspace, const Clock& clock,
                      const store::ProposalRecord& rec, platforms::notify::EventKind event,
                      const std::string& summary, const ApprovalRequestView* request,
                      const std::vector<std::string>& asked) {
  if (workspace.notify.empty() || rec.incident_id.empty()) return Status::Ok();
  Result<platforms::notify::IncidentNotice> n = ProposalNotice(store, workspace, rec, event, summary);
  if (!n.ok()) return n.status();
  if (request != nullptr) {
    DW_RETURN_IF_ERROR(AddApprovalLinks(store, workspace, clock, rec, *request, &*n));
    n->also_to = request->approvers;  // the owners a request names are asked, not copied
  }
  for (const std::string& p : asked)
    if (std::find(n->also_to.begin(), n->also_to.end(), p) == n->also_to.end()) n->also_to.push_back(p);
  return incidents::EnqueueNotice(workspace, store, clock, *n);
}

Result<std::vector<std::string>> ApprovalRequestChannels(store::StateStore& store, const config::Workspace& workspace,
                                                         const store::ProposalRecord& rec,
                                                         platforms::notify::EventKind event) {
  if (workspace.notify.empty() || rec.incident_id.empty()) return std::vector<std::string>();
  Result<platforms::notify::IncidentNotice> n = ProposalNotice(store, workspace, rec, event, "");
  if (!n.ok()) return n.status();
  return platforms::notify::ChannelsCarrying(workspace, *n);
}

namespace {

// The receipt of a resolution in a few sentences, for the message that closes the alert: the cause,
// the approvals, the runs, the checks and the undo ("" when the receipt has none of them).
std::string ResolutionSummary(const Json& content) {
  std::string out;
  auto sentence = [&](const std::string& s) { out += (out.empty() ? "" : " ") + s; };
  const Json cause = content.value("cause", Json::object());
  if (cause.is_object() && !cause.value("kind", "").empty())
    sentence("Cause: " + cause.value("kind", "") + (cause.value("asset", "").empty() ? "" : " on " + cause.value("asset", "")) + ".");
  std::string approved;
  for (const Json& p : content.value("proposals", Json::array())) {
    const Json d = p.is_object() ? p.value("decision", Json::object()) : Json::object();
    if (d.is_object() && d.value("verdict", "") == "approve")
      approved += (approved.empty() ? "" : ", ") + p.value("kind", "") + " v" + std::to_string(p.value("version", 0)) +
                  " by " + d.value("by", "");
  }
  if (!approved.empty()) sentence("Approved: " + approved + ".");
  const Json runs = content.value("runs", Json::object());
  if (runs.is_object()) {
    size_t steps = runs.value("steps", Json::array()).size(), seen = runs.value("observed_on_platforms", Json::array()).size();
    if (steps + seen > 0)
      sentence("Runs: " + std::to_string(steps) + " queued or dispatched, " + std::to_string(seen) +
               " observed on the platforms.");
  }
  const Json checks = content.value("checks", Json::object());
  if (checks.is_object() && checks.contains("passed"))
    sentence(std::string(checks.value("passed", false) ? "Checks passed" : "Checks failed") + ": " +
             std::to_string(checks.value("items", Json::array()).size()) + " item(s) of " + checks.value("plan", "the plan") + ".");
  const size_t undo = content.value("undo", Json::array()).size();
  if (undo > 0) sentence("Undo recorded for " + std::to_string(undo) + " proposal(s).");
  return out;
}

}  // namespace

Status NotifyResolved(store::StateStore& store, const config::Workspace& workspace,
                      const Clock& clock, const std::string& incident_id,
                      const store::ReceiptRecord& receipt) {
  auto incident = incidents::ReadIncident(store, incident_id);
  if (!incident.ok()) return incident.status();
  if (workspace.notify.empty()) return Status::Ok();
  Json body = Json::parse(receipt.body, nullptr, false);
  Json content = body.is_object() && body.contains("content") ? body["content"] : Json::object();
  std::string said;
  if (content.is_object()) {
    if (content.contains("summary") && content["summary"].is_string()) said = content["summary"].get<std::string>();
    else if (content.contains("cause") && content["cause"].is_string()) said = content["cause"].get<std::string>();
    else said = ResolutionSummary(content);
  }
  if (said.empty()) said = "Resolved";
  said += " (receipt " + std::to_string(receipt.seq) + ", hash " + receipt.hash + ")";
  return incidents::EnqueueNotice(workspace, store, clock,
                                  incidents::NoticeOf(workspace, *incident,
                                                      platforms::notify::EventKind::kResolved, said));
}

}  // namespace dw::actions
