// get_incident_history (dw-incidents): incidents from the store, filtered by asset, domain, status
// and time, newest first, with recurrence counts per cause kind and asset. A thin call into
// incidents::IncidentDesk::GetHistory (or Get for one id).
#include "agents/agents.h"
#include "agents/workspace_guard.h"
#include "workspace/incident_desk.h"
#include "base/rfc3339.h"

namespace dw::agents {

mcp::ToolSpec GetIncidentHistoryTool(const std::shared_ptr<workspace::Services>& services) {
  mcp::ToolSpec t;
  t.name = "get_incident_history";
  t.title = "Incident history";
  t.description =
      "Incidents as the store records them, newest first: status, severity (with why), root and damaged "
      "assets, the signals they hold, every transition with who and when, the top cause once diagnosed "
      "and the earlier incident it recurs. Filter by asset (root or damaged), domain, status and opening "
      "time; or give id for one incident (an unknown id is an error naming the closest ids). Also counts "
      "how often each cause kind came back on each asset. Read-only.";
  t.input_schema = Json::parse(R"js({
    "type": "object",
    "properties": {
      "id": {"type": "string", "minLength": 1, "maxLength": 200, "description": "one incident"},
      "asset": {"type": "string", "minLength": 1, "maxLength": 512, "description": "canonical id, root or damaged"},
      "domain": {"type": "string", "minLength": 1, "maxLength": 128},
      "status": {"type": "string", "enum": ["open", "acknowledged", "mitigated", "resolved", "closed"]},
      "from": {"type": "string", "description": "RFC 3339: opened at or after"},
      "to": {"type": "string", "description": "RFC 3339: opened before"},
      "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 50}
    },
    "additionalProperties": false
  })js");
  t.output_schema = Json::parse(R"js({
    "type": "object",
    "properties": {
      "incidents": {"type": "array", "items": {"type": "object", "properties": {
        "id": {"type": "string"}, "status": {"type": "string"}, "title": {"type": "string"},
        "root_asset": {"type": "string"}, "damaged_assets": {"type": "array"}, "severity": {"type": "object"},
        "opened_at": {"type": "string"}, "transitions": {"type": "array"}, "signals": {"type": "array"}},
        "required": ["id", "status", "title", "root_asset", "damaged_assets", "severity", "opened_at", "transitions", "signals"]}},
      "recurrences": {"type": "array", "items": {"type": "object", "properties": {
        "cause_kind": {"type": "string"}, "asset": {"type": "string"}, "incidents": {"type": "integer"},
        "incident_ids": {"type": "array", "items": {"type": "string"}}},
        "required": ["cause_kind", "asset", "incidents", "incident_ids"]}},
      "total": {"type": "integer"},
      "truncated": {"type": "boolean"}
    },
    "required": ["incidents", "recurrences", "total", "truncated"]
  })js");
  t.annotations = {.read_only = true, .destructive = false, .idempotent = true, .open_world = false};
  t.handler = WhenWorkspaceLoaded(services, [services](const Json& args, mcp::ToolCall&) {
    auto desk = workspace::OpenIncidentDesk(*services);
    if (!desk.ok()) return mcp::ToolResult::Error(desk.status().message());
    if (args.contains("id")) {
      auto inc = (*desk)->Get(args["id"].get<std::string>());
      if (!inc.ok()) return mcp::ToolResult::Error(inc.status().message());
      incidents::History one;
      one.incidents.push_back(*inc);
      one.total = 1;
      return mcp::ToolResult::Structured(incidents::HistoryToJson(one));
    }
    incidents::IncidentFilter f;
    f.asset_id = args.value("asset", "");
    f.domain = args.value("domain", "");
    if (args.contains("status")) f.status = incidents::ParseIncidentStatus(args["status"].get<std::string>());
    for (const char* key : {"from", "to"}) {
      if (!args.contains(key)) continue;
      auto t = ParseRfc3339(args[key].get<std::string>());
      if (!t.ok()) return mcp::ToolResult::Error(std::string(key) + ": " + t.status().message());
      (std::string(key) == "from" ? f.from : f.to) = *t;
    }
    f.limit = args.value("limit", 50);
    auto h = (*desk)->GetHistory(f);
    if (!h.ok()) return mcp::ToolResult::Error(h.status().message());
    return mcp::ToolResult::Structured(incidents::HistoryToJson(*h));
  });
  return t;
}

}  // namespace dw::agents
