// The decisions of the whole action log checked again (VerifyRecordedDecision), for `dw receipts
// verify` and the watch loop, and each one that does not verify raised once as a SEV1 finding.
#include <set>

#include "actions/actions.h"
#include "actions/approval_log.h"

namespace dw::actions {
namespace {

constexpr char kProposalPrefix[] = "proposal:";

}  // namespace

Result<std::vector<RejectedDecision>> AuditDecisions(store::StateStore& store, const DecisionTrust& trust,
                                                     const Clock& clock) {
  Result<std::vector<store::ActionEventRecord>> events = store.ActionEvents("");
  if (!events.ok()) return events.status();
  std::vector<RejectedDecision> out;
  const TimePoint now = clock.Now();
  for (const store::ActionEventRecord& e : *events) {
    if (e.kind != "approved" && e.kind != "denied") continue;
    const std::string id = e.subject.rfind(kProposalPrefix, 0) == 0 ? e.subject.substr(sizeof kProposalPrefix - 1) : e.subject;
    if (Status v = VerifyRecordedDecision(e, id, trust, now); !v.ok())
      out.push_back({e.seq, e.kind, e.actor, v.message(), v.code() == StatusCode::kPermissionDenied, id});
  }
  return out;
}

Result<std::vector<std::string>> RaiseRejectedDecisions(store::StateStore& store, const config::Workspace& workspace,
                                                        const Clock& clock) {
  Result<std::vector<RejectedDecision>> rejected = AuditDecisions(store, TrustOf(workspace), clock);
  if (!rejected.ok()) return rejected.status();
  std::vector<std::string> said;
  if (rejected->empty()) return said;
  Result<std::vector<store::ActionEventRecord>> raised = store.ActionEvents(kDecisionFindingsSubject);
  if (!raised.ok()) return raised.status();
  std::set<int64_t> done;
  for (const store::ActionEventRecord& e : *raised) done.insert(e.body.value("event", int64_t{0}));
  for (const RejectedDecision& r : *rejected) {
    // Where only the desk's key is missing the row is not shown forged; the process that holds
    // the key raises it if it is.
    if (!r.checkable || done.count(r.seq)) continue;
    Status s = store.InTransaction([&](store::StateStore& tx) -> Status {
      Result<std::vector<store::ActionEventRecord>> again = tx.ActionEvents(kDecisionFindingsSubject);
      if (!again.ok()) return again.status();
      for (const auto& e : *again)
        if (e.body.value("event", int64_t{0}) == r.seq) return Status::Ok();
      Json body = {{"event", r.seq},    {"row", r.kind},   {"proposal", r.proposal_id},
                   {"person", r.person}, {"why", r.reason}, {"severity", "SEV1"}};
      DW_RETURN_IF_ERROR(Record(tx, clock, "decision_rejected", kDecisionFindingsSubject, "dw (decision audit)", body).status());
      // The proposal's incident carries the alarm to its people, once per row.
      Result<std::vector<store::ProposalRecord>> versions = tx.ProposalVersions(r.proposal_id);
      if (!versions.ok()) return versions.status();
      if (versions->empty() || versions->back().incident_id.empty()) return Status::Ok();
      Result<incidents::Incident> inc = incidents::ReadIncident(tx, versions->back().incident_id);
      if (!inc.ok()) return inc.status().code() == StatusCode::kNotFound ? Status::Ok() : inc.status();
      auto n = incidents::NoticeOf(workspace, *inc, platforms::notify::EventKind::kAttentionRequested,
                                   "SEV1 finding, decision without a valid signature: " + r.reason);
      n.revision = "decision-" + std::to_string(r.seq);
      return incidents::EnqueueNotice(workspace, tx, clock, n);
    });
    if (!s.ok()) return s;
    said.push_back("SEV1 finding, decision without a valid signature: " + r.reason);
  }
  return said;
}

}  // namespace dw::actions
