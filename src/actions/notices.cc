// What the action stage tells people: an approval request to the domain's approvers, its
// escalation to escalate_to, the approval, and the resolution with its receipt. Each notice is the
// incident's (incidents::NoticeOf) with what the action adds, written to the outbox of
// platforms/notify/ in the transaction that records the action.
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

Status NotifyProposal(store::StateStore& store, const config::Workspace& workspace, const Clock& clock,
                      const store::ProposalRecord& rec, platforms::notify::EventKind event,
                      const std::string& summary, const ApprovalRequestView* request) {
  if (workspace.notify.empty() || rec.incident_id.empty()) return Status::Ok();
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
  if (request != nullptr) DW_RETURN_IF_ERROR(AddApprovalLinks(store, workspace, clock, rec, *request, &n));
  return incidents::EnqueueNotice(workspace, store, clock, n);
}

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
  }
  if (said.empty()) said = "Resolved";
  said += " (receipt " + std::to_string(receipt.seq) + ", hash " + receipt.hash + ")";
  return incidents::EnqueueNotice(workspace, store, clock,
                                  incidents::NoticeOf(workspace, *incident,
                                                      platforms::notify::EventKind::kResolved, said));
}

}  // namespace dw::actions
