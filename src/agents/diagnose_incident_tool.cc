// diagnose_incident (dw-incidents): the ranked candidate causes of one incident, each with its
// score parts, evidence, counter-evidence and lineage path; the severity and blast radius as of
// now. A thin call into incidents::IncidentDesk::Diagnose.
#include "agents/agents.h"
#include "agents/incident_id_input.h"
#include "agents/workspace_guard.h"
#include "workspace/incident_desk.h"

namespace dw::agents {

mcp::ToolSpec DiagnoseIncidentTool(const std::shared_ptr<workspace::Services>& services) {
  mcp::ToolSpec t;
  t.name = "diagnose_incident";
  t.title = "Rank the causes of an incident";
  t.description =
      "Ranks the change events (restores, deploys, executions, schema versions, ...) on the incident's "
      "damaged assets and everything upstream of them, in the 24 h before its first bad point. Each "
      "candidate has a score (0-1) with its parts shown: time proximity, lineage distance, the change's "
      "own risk and whether it can explain the damage's shape (a restore that dropped state explains a "
      "drop towards zero, a stale input values equal to an earlier period's, a duplicated run a "
      "doubling, a removed field a null-rate jump), plus evidence (log lines, execution ids, URLs), "
      "counter-evidence and the assets from the change to the damage. Changes downstream of the damage "
      "are listed as ruled out. With no candidate it says so and lists the assets it looked at. Also "
      "answers the severity (SEV1-3, with why) and the blast radius with impact counts. Records the "
      "top cause on the incident (for recurrence links); otherwise read-only. An unknown id is an "
      "error naming the closest ids.";
  t.input_schema = IncidentIdInputSchema();
  t.output_schema = Json::parse(R"js({
    "type": "object",
    "properties": {
      "incident_id": {"type": "string"},
      "first_bad_at": {"type": "string"},
      "window_from": {"type": "string"},
      "summary": {"type": "string"},
      "ranked": {"type": "array", "items": {"type": "object", "properties": {
        "rank": {"type": "integer"}, "asset": {"type": "string"}, "kind": {"type": "string"},
        "cause_kind": {"type": "string"}, "happened_at": {"type": "string"},
        "score": {"type": "object", "properties": {
          "total": {"type": "number"}, "time_proximity": {"type": "number"},
          "lineage_distance": {"type": "number"}, "risk": {"type": "number"}, "shape_fit": {"type": "number"}},
          "required": ["total", "time_proximity", "lineage_distance", "risk", "shape_fit"]},
        "explanation": {"type": "string"}, "evidence": {"type": "array", "items": {"type": "string"}},
        "counter_evidence": {"type": "array", "items": {"type": "string"}},
        "path": {"type": "array", "items": {"type": "string"}},
        "facets": {"type": "array", "items": {"type": "object", "properties": {
          "kind": {"type": "string"}, "asset": {"type": "string"}, "happened_at": {"type": "string"},
          "dedup_key": {"type": "string"}}, "required": ["kind", "asset", "happened_at", "dedup_key"]}}},
        "required": ["rank", "asset", "kind", "happened_at", "score", "explanation", "evidence", "counter_evidence", "path"]}},
      "assets_examined": {"type": "array", "items": {"type": "string"}},
      "events_examined": {"type": "integer"},
      "ruled_out": {"type": "array", "items": {"type": "string"}},
      "severity": {"type": "object", "properties": {"level": {"type": "integer"}, "name": {"type": "string"},
                   "reason": {"type": "string"}}, "required": ["level", "name", "reason"]},
      "blast_radius": {"type": "object"},
      "notes": {"type": "array", "items": {"type": "string"}},
      "incident": {"type": "object"}
    },
    "required": ["incident_id", "first_bad_at", "summary", "ranked", "assets_examined", "events_examined",
                 "ruled_out", "severity", "blast_radius", "notes", "incident"]
  })js");
  // It writes the top cause into the incident record (the state store only): not read-only, not
  // destructive, and the same answer for the same inputs.
  t.annotations = {.read_only = false, .destructive = false, .idempotent = true, .open_world = false};
  t.handler = WhenWorkspaceLoaded(services, [services](const Json& args, mcp::ToolCall&) {
    auto desk = workspace::OpenIncidentDesk(*services);
    if (!desk.ok()) return mcp::ToolResult::Error(desk.status().message());
    const std::string id = args["incident_id"].get<std::string>();
    auto d = (*desk)->Diagnose(id);
    if (!d.ok()) return mcp::ToolResult::Error(d.status().message());
    auto inc = (*desk)->Get(id);
    if (!inc.ok()) return mcp::ToolResult::Error(inc.status().message());
    Json out = incidents::DiagnosisToJson(*d);
    out["incident"] = incidents::IncidentToJson(*inc);
    return mcp::ToolResult::Structured(std::move(out));
  });
  return t;
}

}  // namespace dw::agents
