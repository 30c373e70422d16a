// Autonomy per domain and the workspace's stop switch: what Data Workers may run by itself, and
// the one switch that stops all of it.
#include "actions/approval_log.h"

namespace dw::actions {
namespace {

constexpr const char* kStopSubject = "stop-switch";

}  // namespace

Result<Autonomy> ParseAutonomy(const std::string& text) {
  if (text.size() == 2 && text[0] == 'L' && text[1] >= '0' && text[1] <= '4')
    return static_cast<Autonomy>(text[1] - '0');
  return InvalidArgument("autonomy must be one of L0, L1, L2, L3, L4, not '" + text + "'");
}

const char* StepKindName(StepKind k) {
  switch (k) {
    case StepKind::kRerunCheck: return "rerun_check";
    case StepKind::kReevaluateMetric: return "reevaluate_metric";
    case StepKind::kQueueOwnerRun: return "queue_owner_run";
    case StepKind::kPostReceipt: return "post_receipt";
    case StepKind::kJobChange: return "job_change";
    case StepKind::kDeploy: return "deploy";
    case StepKind::kRestore: return "restore";
    case StepKind::kHold: return "hold";
  }
  return "unknown";
}

bool MayDispatchItself(Autonomy level, StepKind kind) {
  switch (kind) {
    case StepKind::kRerunCheck:
    case StepKind::kReevaluateMetric: return level >= Autonomy::kL3;
    case StepKind::kQueueOwnerRun:
    case StepKind::kPostReceipt: return level >= Autonomy::kL4;
    case StepKind::kJobChange:
    case StepKind::kDeploy:
    case StepKind::kRestore:
    case StepKind::kHold: return false;  // the owner's, at every level
  }
  return false;
}

Result<bool> StopSwitchHolds(store::StateStore& store) {
  Result<std::vector<store::ActionEventRecord>> events = store.ActionEvents(kStopSubject);
  if (!events.ok()) return events.status();
  bool holds = false;
  for (const store::ActionEventRecord& e : *events) {
    if (e.kind == "stop") holds = true;
    if (e.kind == "lift") holds = false;
  }
  return holds;
}

Status SetStopSwitch(store::StateStore& store, bool stop, const std::string& actor,
                     const std::string& reason, const Clock& clock) {
  std::string refusal;  // set when the switch is already in the asked state
  Status s = store.InTransaction([&](store::StateStore& tx) -> Status {
    Result<bool> holds = StopSwitchHolds(tx);
    if (!holds.ok()) return holds.status();
    if (*holds == stop) {
      refusal = stop ? "the stop switch already holds" : "the stop switch is not set";
      return Record(tx, clock, "refused", kStopSubject, actor,
                    {{"action", stop ? "stop" : "lift"}, {"reason", refusal}})
          .status();
    }
    return Record(tx, clock, stop ? "stop" : "lift", kStopSubject, actor, {{"reason", reason}})
        .status();
  });
  if (!s.ok()) return s;
  if (!refusal.empty()) return FailedPrecondition(refusal);
  return Status::Ok();
}

Result<DispatchOutcome> DispatchAutonomous(store::StateStore& store,
                                           const config::Workspace& workspace,
                                           const AutonomousStep& step, StepRunner& runner,
                                           const Clock& clock) {
  const std::string subject = "domain:" + step.domain;
  const std::string actor = "dw (autonomy)";
  Json about = {{"step", StepKindName(step.kind)}, {"target", step.target}};
  if (!step.detail.empty()) about["detail"] = step.detail;  // e.g. the incident it is for
  auto refuse = [&](const std::string& reason) -> Result<DispatchOutcome> {
    Json body = about;
    body["action"] = "dispatch";
    body["reason"] = reason;
    Result<int64_t> seq = Record(store, clock, "refused", subject, actor, body);
    if (!seq.ok()) return seq.status();
    return DispatchOutcome{false, reason, Json()};
  };
  Result<bool> stopped = StopSwitchHolds(store);
  if (!stopped.ok()) return stopped.status();
  if (*stopped) return refuse("the stop switch holds: no autonomous dispatch (dw stop --lift)");
  const config::DomainConfig* domain = FindDomain(workspace, step.domain);
  if (domain == nullptr) return refuse("the workspace defines no domain '" + step.domain + "'");
  Result<Autonomy> level = ParseAutonomy(domain->autonomy);
  if (!level.ok()) return refuse(level.status().message());
  if (!MayDispatchItself(*level, step.kind))
    return refuse(std::string(StepKindName(step.kind)) + " is not run by Data Workers in domain " +
                  step.domain + " at autonomy " + domain->autonomy +
                  " (it is asked of a person instead)");
  Result<Json> ran = runner.Run(step);
  Json body = about;
  DispatchOutcome out;
  out.dispatched = true;
  if (ran.ok()) {
    body["result"] = *ran;
    out.reason = std::string("ran ") + StepKindName(step.kind) + " " + step.target;
    out.result = *ran;
  } else {
    body["error"] = ran.status().message();
    body["needs_person"] = true;
    out.reason = std::string(StepKindName(step.kind)) + " " + step.target +
                 " failed and goes to a person: " + ran.status().message();
  }
  Result<int64_t> seq = Record(store, clock, "dispatched", subject, actor, body);
  if (!seq.ok()) return seq.status();
  return out;
}

}  // namespace dw::actions
