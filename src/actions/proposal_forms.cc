// The proposal kinds' names and the JSON forms of their contents (stored as a proposal version's
// content, answered by `remediate` and `dw incidents propose --format json`; docs/actions.md).
#include "actions/actions.h"

namespace dw::actions {

const char* ProposalKindName(ProposalKind kind) {
  switch (kind) {
    case ProposalKind::kHold: return "hold";
    case ProposalKind::kFlinkDeploymentDiff: return "flink_deployment_diff";
    case ProposalKind::kKestraFlowDiff: return "kestra_flow_diff";
    case ProposalKind::kRunPlan: return "run_plan";
    case ProposalKind::kVerificationPlan: return "verification_plan";
  }
  return "unknown";
}

std::optional<ProposalKind> ParseProposalKind(const std::string& name) {
  for (ProposalKind k : {ProposalKind::kHold, ProposalKind::kFlinkDeploymentDiff, ProposalKind::kKestraFlowDiff,
                         ProposalKind::kRunPlan, ProposalKind::kVerificationPlan})
    if (name == ProposalKindName(k)) return k;
  return std::nullopt;
}

Json HoldToJson(const HoldProposal& hold) {
  Json targets = Json::array();
  for (const HoldTarget& t : hold.targets) {
    Json j = {{"consumer", t.consumer}, {"kind", t.kind},         {"owner", t.owner},
              {"schedule", t.schedule}, {"next_run", t.next_run}, {"customer_facing", t.customer_facing},
              {"why", t.why},           {"step", t.step},         {"undo", t.undo}};
    if (!t.kestra_flow.empty()) {
      j["kestra"] = {{"namespace", t.kestra_namespace}, {"flow", t.kestra_flow},
                     {"triggers", t.kestra_triggers},   {"api_call", t.api_call},
                     {"api_body", t.api_body},          {"api_undo_body", t.api_undo_body}};
    }
    targets.push_back(std::move(j));
  }
  return {{"targets", targets}, {"until", hold.until}};
}

Json KestraFlowDiffToJson(const KestraFlowDiffProposal& d) {
  return {{"flow", d.flow},           {"file", d.file},
          {"base_sha256", d.base_sha256}, {"base_revision", d.base_revision},
          {"diff", d.diff},           {"undo_diff", d.undo_diff},
          {"changes", d.changes},     {"steps", d.steps}};
}

Json RunPlanToJson(const RunPlan& plan) {
  Json steps = Json::array();
  for (const RunStep& s : plan.steps)
    steps.push_back({{"order", s.order},   {"asset", s.asset}, {"owner", s.owner},
                     {"action", s.action}, {"after", s.after}, {"precondition", s.precondition}});
  return {{"steps", steps}, {"excluded", plan.excluded}};
}

Json VerificationPlanToJson(const VerificationPlan& plan) {
  Json items = Json::array();
  for (const VerificationItem& i : plan.items) {
    Json j = {{"kind", i.kind},           {"name", i.name}, {"asset", i.asset},
              {"threshold", i.threshold}, {"op", i.op},     {"failing_now", i.failing_now}};
    j["value"] = i.value ? Json(*i.value) : Json();
    items.push_back(std::move(j));
  }
  return {{"items", items}, {"when", plan.when}};
}

}  // namespace dw::actions
