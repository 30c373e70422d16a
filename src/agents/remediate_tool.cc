// remediate (dw-incidents): drafts the proposals for an incident's top cause — hold, FlinkDeployment
// or Kestra flow diff, run plan, verification plan — stores each as a version and, at autonomy L2
// and above, sends it to the domain's approvers. Never approves and never acts on a team's
// systems. A thin call into workspace::ProposeIncidentFixes (actions::ProposeForIncident).
#include "agents/agents.h"
#include "agents/incident_id_input.h"
#include "workspace/proposals.h"

namespace dw::agents {

mcp::ToolSpec RemediateTool(const std::shared_ptr<workspace::Services>& services) {
  mcp::ToolSpec t;
  t.name = "remediate";
  t.title = "Draft the fix for an incident";
  t.description =
      "Drafts, for one incident's top-ranked cause, the proposals a careful on-call engineer would write: "
      "a hold of every consumer that would act on the damage before the fix lands (with the exact owner "
      "step: for Kestra the triggers to disable and the API call), a FlinkDeployment diff that redeploys "
      "from the savepoint taken before the bad release (or a Kestra flow YAML diff that fixes the cause), "
      "a run plan of the reruns in dependency order with what must hold before each next one, and a "
      "verification plan with the thresholds that will be used. Each says what it touches, why and how to "
      "undo it; one that cannot be drafted says what is missing. Stores each as a new version when its "
      "content changed and, when the domain's autonomy is L2 or above, sends it for approval to the "
      "domain's approvers. It never approves (no agent can) and changes nothing outside the state store: "
      "the owner carries every step out.";
  t.input_schema = IncidentIdInputSchema();
  t.output_schema = Json::parse(R"js({
    "type": "object",
    "properties": {
      "incident_id": {"type": "string"},
      "domain": {"type": "string"},
      "cause": {"type": "object", "properties": {"kind": {"type": "string"}, "asset": {"type": "string"}},
                "required": ["kind", "asset"]},
      "proposals": {"type": "array", "items": {"type": "object", "properties": {
        "kind": {"type": "string", "enum": ["hold", "flink_deployment_diff", "kestra_flow_diff", "run_plan",
                                            "verification_plan"]},
        "drafted": {"type": "boolean"}, "title": {"type": "string"}, "id": {"type": "string"},
        "version": {"type": "integer"}, "new_version": {"type": "boolean"}, "status": {"type": "string"},
        "sending": {"type": "string"}, "not_drafted": {"type": "string"},
        "touches": {"type": "array", "items": {"type": "string"}}, "why": {"type": "string"},
        "evidence": {"type": "array", "items": {"type": "string"}}, "undo": {"type": "string"},
        "content": {"type": "object"}},
        "required": ["kind", "drafted", "title", "id", "version", "new_version", "status", "sending"]}},
      "notes": {"type": "array", "items": {"type": "string"}}
    },
    "required": ["incident_id", "domain", "cause", "proposals", "notes"]
  })js");
  // It writes proposal versions and approval requests into the state store only; drafting the same
  // incident again with nothing changed stores nothing new.
  t.annotations = {.read_only = false, .destructive = false, .idempotent = true, .open_world = false};
  t.handler = [services](const Json& args, mcp::ToolCall&) {
    if (!services->workspace_status().ok()) return mcp::ToolResult::Error(services->workspace_status().message());
    auto out = workspace::ProposeIncidentFixes(*services, args["incident_id"].get<std::string>(), "agent:dw-incidents");
    if (!out.ok()) return mcp::ToolResult::Error(out.status().message());
    return mcp::ToolResult::Structured(actions::ProposeOutcomeToJson(*out));
  };
  return t;
}

}  // namespace dw::agents
