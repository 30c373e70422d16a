#include "agents/connectors_tools.h"

#include "agents/workspace_guard.h"
#include "base/iso_time.h"
#include "observe/changes/change_kinds.h"
#include "observe/changes/timeline.h"
#include "workspace/change_answers.h"
#include "platforms/kafka_connect/connector_survey.h"

namespace dw::agents {
namespace {

using platforms::kafka_connect::ConnectorStatus;

Json StatusJson(const std::string& platform, const ConnectorStatus& s) {
  Json tasks = Json::array();
  for (const auto& t : s.tasks) {
    Json task = {{"id", t.id}, {"state", t.state}, {"worker_id", t.worker_id}};
    if (!t.trace.empty()) task["trace_head"] = platforms::kafka_connect::TraceHead(t.trace);
    tasks.push_back(task);
  }
  Json out = {{"platform", platform}, {"name", s.name}, {"type", s.type}, {"state", s.state},
              {"worker_id", s.worker_id}, {"verdict", platforms::kafka_connect::Verdict(s)},
              {"asset_id", observe::changes::AssetIdFor("kafka-connect", platform, s.name)},
              {"tasks", tasks}};
  if (!s.trace.empty()) out["trace_head"] = platforms::kafka_connect::TraceHead(s.trace);
  return out;
}

}  // namespace

mcp::ToolSpec ConnectorStatusTool(const std::shared_ptr<workspace::Services>& services) {
  mcp::ToolSpec t;
  t.name = "get_connector_status";
  t.title = "Kafka Connect connector status";
  t.description =
      "Reads the live status of one Kafka Connect connector or of all of them, on every kafka-connect "
      "platform of the workspace (or the one named): the connector's state, each task's state, the "
      "first lines of any failure trace, and a verdict (healthy, degraded, paused, unhealthy). A FAILED "
      "task under a RUNNING connector is unhealthy. Read-only.";
  t.input_schema = Json::parse(R"({
    "type": "object",
    "properties": {
      "connector": {"type": "string", "minLength": 1, "maxLength": 249,
                    "description": "Connector name; omit for every connector."},
      "platform": {"type": "string", "minLength": 1, "maxLength": 100,
                   "description": "A kafka-connect platform of the workspace; omit for all of them."}
    },
    "additionalProperties": false
  })");
  t.output_schema = Json::parse(R"({
    "type": "object",
    "required": ["connectors", "errors"],
    "properties": {
      "connectors": {"type": "array", "items": {
        "type": "object",
        "required": ["platform", "name", "state", "verdict", "tasks", "asset_id"],
        "properties": {
          "platform": {"type": "string"}, "name": {"type": "string"}, "type": {"type": "string"},
          "state": {"type": "string"}, "worker_id": {"type": "string"},
          "verdict": {"type": "string", "enum": ["healthy", "degraded", "paused", "unhealthy"]},
          "asset_id": {"type": "string"}, "trace_head": {"type": "string"},
          "tasks": {"type": "array", "items": {"type": "object", "required": ["id", "state"],
            "properties": {"id": {"type": "integer"}, "state": {"type": "string"},
                           "worker_id": {"type": "string"}, "trace_head": {"type": "string"}}}}
        }}},
      "errors": {"type": "array", "items": {"type": "string"},
                 "description": "Platforms that could not be read; their connectors are unknown, not healthy."}
    }
  })");
  t.annotations = {.read_only = true, .destructive = false, .idempotent = true, .open_world = true};
  t.handler = WhenWorkspaceLoaded(services, [services](const Json& args, mcp::ToolCall&) {
    auto survey = platforms::kafka_connect::SurveyConnectors(services->workspace(), services->http(),
                                                             args.value("connector", ""), args.value("platform", ""));
    if (!survey.ok()) return mcp::ToolResult::Error(survey.status().message());
    Json out = {{"connectors", Json::array()}, {"errors", survey->errors}};
    for (const auto& [platform, status] : survey->connectors) out["connectors"].push_back(StatusJson(platform, status));
    return mcp::ToolResult::Structured(out);
  });
  return t;
}

mcp::ToolSpec ChangeTimelineTool(const std::shared_ptr<workspace::Services>& services) {
  mcp::ToolSpec t;
  t.name = "get_change_timeline";
  t.title = "Change timeline";
  t.description =
      "What changed on the platforms (Flink restores and skipped state, deploys, exceptions, Kestra "
      "executions, flow revisions, trigger toggles, connector states, schema versions, config risks, "
      "unreachable platforms), as stored by `dw collect`: for one asset or all, in a time range "
      "(default: the last 24 hours), of some kinds; newest first, paged. Each event has the time the "
      "platform gives, the evidence, and a risk weight with its reason. Read-only: run `dw collect` "
      "to refresh.";
  Json kinds = Json::array();
  for (const auto& k : observe::changes::AllChangeKinds()) kinds.push_back(k);
  t.input_schema = Json::parse(R"({
    "type": "object",
    "properties": {
      "asset_id": {"type": "string", "minLength": 1, "maxLength": 500,
                   "description": "Canonical asset id, e.g. flink://flink/points-balance; omit for all."},
      "from": {"type": "string", "description": "RFC 3339 start (inclusive); default 24 hours ago."},
      "to": {"type": "string", "description": "RFC 3339 end (exclusive); default now."},
      "kinds": {"type": "array", "items": {"type": "string"}, "maxItems": 20},
      "limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 50},
      "offset": {"type": "integer", "minimum": 0, "default": 0,
                 "description": "next_offset of the previous page."}
    },
    "additionalProperties": false
  })");
  t.input_schema["properties"]["kinds"]["items"]["enum"] = kinds;
  t.output_schema = Json::parse(R"({
    "type": "object",
    "required": ["events", "total", "from", "to"],
    "properties": {
      "events": {"type": "array", "items": {"type": "object",
        "required": ["asset_id", "kind", "happened_at", "observed_at", "risk", "reason", "evidence"],
        "properties": {"asset_id": {"type": "string"}, "kind": {"type": "string"},
                       "happened_at": {"type": "string"}, "observed_at": {"type": "string"},
                       "risk": {"type": "number"}, "reason": {"type": "string"},
                       "evidence": {"type": "object"}, "dedup_key": {"type": "string"},
                       "happened_local": {"type": "string"}}}},
      "total": {"type": "integer"},
      "next_offset": {"type": "integer"},
      "from": {"type": "string"},
      "to": {"type": "string"},
      "timezone": {"type": "string"}
    }
  })");
  t.annotations = {.read_only = true, .destructive = false, .idempotent = true, .open_world = false};
  t.handler = WhenWorkspaceLoaded(services, [services](const Json& args, mcp::ToolCall&) {
    observe::changes::TimelineQuery q;
    TimePoint now = services->clock().Now();
    q.to = now + std::chrono::milliseconds(1);
    q.from = now - std::chrono::hours(24);
    for (const char* key : {"from", "to"}) {
      if (!args.contains(key)) continue;
      auto ms = ParseIsoTimeMillis(args[key].get<std::string>());
      if (!ms)
        return mcp::ToolResult::Error(std::string("'") + key + "' is not an RFC 3339 time (e.g. 2026-11-24T14:00:00Z): " +
                                      args[key].get<std::string>());
      (std::string(key) == "from" ? q.from : q.to) = FromUnixMillis(*ms);
    }
    q.asset_id = args.value("asset_id", "");
    if (args.contains("kinds")) q.kinds = args["kinds"].get<std::vector<std::string>>();
    q.limit = args.value("limit", 50);
    q.offset = args.value("offset", 0);
    auto answer = workspace::ChangeTimelineAnswer(*services, q);
    if (!answer.ok()) return mcp::ToolResult::Error(answer.status().message());
    return mcp::ToolResult::Structured(*answer);
  });
  return t;
}

}  // namespace dw::agents
