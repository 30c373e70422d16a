// Whether the cause an incident's approved fix addresses is gone, not only whether the data is
// back: the next night would break the data again while the bad flow revision still runs.
#include "actions/cause_check.h"

#include "actions/approval_log.h"
#include "actions/drafting.h"

namespace dw::actions {

Result<CauseCheck> CheckCauseGone(store::StateStore& store, const DecisionTrust& trust, const std::string& incident_id,
                                  const FlowRevisionReader& current_flow_revision, const Clock& clock) {
  Result<std::vector<store::ProposalRecord>> proposals = store.ProposalsOfIncident(incident_id);
  if (!proposals.ok()) return proposals.status();
  // The newest approved flow fix of the incident: the change the owner was asked to make live.
  std::optional<ProposalState> fix;
  for (const store::ProposalRecord& p : *proposals) {
    if (p.kind != "kestra_flow_diff") continue;
    Result<ProposalState> st = GetProposalState(store, trust, p.id, p.version, clock);
    if (!st.ok()) return st.status();
    if (st->status == ProposalStatus::kApproved && (!fix || st->record.version > fix->record.version)) fix = *st;
  }
  CauseCheck out;
  if (!fix) return out;  // no approved fix of the cause to look for
  const Json content = fix->record.body.value("content", Json::object());
  const std::string flow_id = content.value("flow", "");
  const std::string base_sha = content.value("base_sha256", "");
  const int64_t base_revision = content.value("base_revision", int64_t{0});
  const std::string pv = fix->record.id + " v" + std::to_string(fix->record.version);
  std::optional<KestraFlowName> flow = KestraFlowOf(flow_id);
  if (!flow || base_sha.empty())
    return DataLoss("the approved fix " + pv + " names no Kestra flow and base it changes (content.flow, base_sha256)");
  out.checked = true;
  if (!current_flow_revision) {
    out.live = true;
    out.sentence = "Kestra was not asked whether the approved fix " + pv + " of " + flow_id +
                   " is live (no Kestra client here): verify again with Kestra reachable";
    return out;
  }
  Result<FlowRevision> now = current_flow_revision(flow->platform, flow->namespace_, flow->id);
  if (!now.ok()) {
    out.live = true;
    out.sentence = "Kestra could not be asked which revision of " + flow_id + " runs (" + now.status().message() +
                   "), so the approved fix " + pv + " is not known to be live: verify again";
    return out;
  }
  const std::string revision = "revision " + std::to_string(now->revision);
  if (Sha256Hex(now->source) == base_sha || (base_revision > 0 && now->revision <= base_revision)) {
    out.live = true;
    out.sentence = flow_id + " in Kestra still runs " + revision + ", the source the approved fix " + pv +
                   " changes: the next run repeats the cause until the fix is saved as a new revision";
    return out;
  }
  out.note = flow_id + " runs " + revision + ", the approved fix " + pv + " or a later revision";
  return out;
}

}  // namespace dw::actions
