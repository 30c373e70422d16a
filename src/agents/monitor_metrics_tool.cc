// monitor_metrics (dw-incidents): record metric points and/or evaluate named workspace monitors
// now; answers, per metric, the latest value, its expected band, the score, the verdict and a
// sentence a person can read. A thin call into observe/metrics/monitor_metrics.h.
#include "actions/agent_mark_proposal.h"
#include "agents/agents.h"
#include "agents/workspace_guard.h"
#include "observe/metrics/metric_marks.h"
#include "observe/metrics/metric_service.h"
#include "observe/metrics/monitor_metrics.h"
#include "workspace/incident_windows.h"

namespace dw::agents {

mcp::ToolSpec MonitorMetricsTool(const std::shared_ptr<workspace::Services>& services) {
  mcp::ToolSpec t;
  t.name = "monitor_metrics";
  t.title = "Record and judge metrics";
  t.description =
      "Records points for metrics and/or evaluates named workspace monitors now (runs the "
      "monitor's SQL on its warehouse and stores the value). For each metric touched, answers the "
      "latest value, the expected value and band, an anomaly score (0-1, 0.5 at the alarm line; the verdict decides), "
      "the verdict (normal, anomaly, level_shift, stuck, out_of_bounds, insufficient_history, "
      "expected) and "
      "a sentence. Each point is judged only against the points before it. Points with null, NaN "
      "or infinite values are rejected and reported; a stored point is never changed (a point at a "
      "stored timestamp with another value is rejected and the stored, judged value kept); points "
      "older than the latest stored one are stored and counted as out of order. Points inside an "
      "incident on the metric are judged but not learnt. Marking a range expected silences its "
      "monitor, so it is a person's step: mark_expected only asks for it, as a proposal the metric's "
      "domain approves (dw approve ID); the approval stores the mark with the approver as its author.";
  t.input_schema = Json::parse(R"({
    "type": "object",
    "properties": {
      "record": {
        "type": "array", "maxItems": 100,
        "description": "Points to store, per metric: the agent's own series, never a workspace monitor's or a check's quality:* (refused: those are measured by the product; evaluate runs a monitor). A stored point is never changed: one at a stored timestamp with another value is rejected (the judged value stays).",
        "items": {
          "type": "object",
          "properties": {
            "metric": {"type": "string", "minLength": 1, "maxLength": 200},
            "points": {
              "type": "array", "minItems": 1, "maxItems": 10000,
              "items": {
                "type": "object",
                "properties": {
                  "ts": {"type": ["string", "integer"],
                         "description": "RFC 3339 time, or Unix milliseconds"},
                  "value": {"type": ["number", "null"]}
                },
                "required": ["ts", "value"],
                "additionalProperties": false
              }
            }
          },
          "required": ["metric", "points"],
          "additionalProperties": false
        }
      },
      "mark_expected": {
        "type": "array", "maxItems": 20,
        "description": "Ranges to ask a person to mark expected. Each becomes a proposal (kind mark_expected) sent to the approvers of the metric's domain; nothing is marked until one of them approves it (dw approve ID), and the mark then names them, never the agent.",
        "items": {
          "type": "object",
          "properties": {
            "metric": {"type": "string", "minLength": 1, "maxLength": 200},
            "from": {"type": ["string", "integer"], "description": "RFC 3339 time with its zone, or Unix milliseconds; inclusive"},
            "to": {"type": ["string", "integer"], "description": "RFC 3339 time with its zone, or Unix milliseconds; inclusive"},
            "note": {"type": "string", "maxLength": 500, "description": "why the range is expected"},
            "incident_id": {"type": "string", "maxLength": 200, "description": "the incident it is about: its notice then asks the approvers"}
          },
          "required": ["metric", "from", "to"],
          "additionalProperties": false
        }
      },
      "evaluate": {
        "type": "array", "maxItems": 100, "items": {"type": "string", "minLength": 1, "maxLength": 200},
        "description": "Names of workspace monitors to run now."
      }
    },
    "additionalProperties": false
  })");
  t.output_schema = Json::parse(R"({
    "type": "object",
    "properties": {
      "metrics": {"type": "array", "description": "the judgement of each metric touched", "items": {
        "type": "object",
        "properties": {
          "metric": {"type": "string"}, "latest_ts": {"type": "string"},
          "latest_value": {"type": "number"}, "expected": {"type": ["number", "null"]},
          "band_low": {"type": ["number", "null"]}, "band_high": {"type": ["number", "null"]},
          "score": {"type": "number"}, "verdict": {"type": "string"}, "sentence": {"type": "string"},
          "seasonality": {"type": "string"}, "history_points": {"type": "integer"},
          "marked_expected_points": {"type": "integer"}, "incident_points": {"type": "integer"}
        },
        "required": ["metric", "latest_ts", "latest_value", "expected", "band_low", "band_high",
                     "score", "verdict", "sentence", "seasonality", "history_points"]
      }},
      "recorded": {"type": "array", "description": "what was stored per metric", "items": {
        "type": "object",
        "properties": {
          "metric": {"type": "string"}, "stored": {"type": "integer"},
          "duplicates": {"type": "integer"}, "out_of_order": {"type": "integer"},
          "replaced": {"type": "integer"}, "rejected": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["metric", "stored", "duplicates", "out_of_order", "replaced", "rejected"]
      }},
      "proposals": {"type": "array", "description": "the mark_expected requests, each a proposal waiting for a person", "items": {
        "type": "object",
        "properties": {
          "metric": {"type": "string"}, "proposal_id": {"type": "string"}, "version": {"type": "integer"},
          "status": {"type": "string"}, "waits_for": {"type": "string"}
        },
        "required": ["metric", "proposal_id", "version", "status", "waits_for"]
      }},
      "errors": {"type": "array", "description": "metrics that could not be recorded, judged or proposed for a mark",
        "items": {
          "type": "object",
          "properties": {"metric": {"type": "string"}, "error": {"type": "string"}},
          "required": ["metric", "error"]
        }}
    },
    "required": ["metrics", "recorded", "errors"]
  })");
  t.annotations = {.read_only = false, .destructive = false, .idempotent = false, .open_world = true};
  t.handler = WhenWorkspaceLoaded(services, [services](const Json& args, mcp::ToolCall& call) {
    auto store = services->state();
    if (!store.ok()) return mcp::ToolResult::Error("state store: " + store.status().message());
    Json out = {{"metrics", Json::array()}, {"recorded", Json::array()}, {"errors", Json::array()}};
    if (args.contains("record") || args.contains("evaluate") || !args.contains("mark_expected")) {
      Json judged = args;
      judged.erase("mark_expected");
      auto r = observe::metrics::MonitorMetrics(services->workspace(), **store, services->clock(),
                                                workspace::IncidentWindows(**store), judged, &services->http());
      if (!r.ok()) return mcp::ToolResult::Error(r.status().message());
      out = *r;
    }
    if (args.contains("mark_expected")) {
      out["proposals"] = Json::array();
      const mcp::CallerInfo caller = call.Caller();
      for (const Json& m : args["mark_expected"]) {
        const std::string metric = m.value("metric", "");
        auto when = [&](const char* key) -> Result<int64_t> {
          const Json v = m.value(key, Json());
          if (v.is_number_integer()) return v.get<int64_t>();
          if (v.is_string()) return observe::metrics::ParseRfc3339Millis(v.get<std::string>(), std::string("mark_expected.") + key);
          return InvalidArgument(std::string("mark_expected.") + key + " is neither a time nor Unix milliseconds");
        };
        Result<int64_t> from = when("from"), to = when("to");
        Result<actions::MarkProposalOutcome> asked =
            !from.ok() ? Result<actions::MarkProposalOutcome>(from.status())
            : !to.ok() ? Result<actions::MarkProposalOutcome>(to.status())
                       : actions::ProposeMarkExpected(
                             services->workspace(), **store,
                             {metric, *from, *to, m.value("note", ""), m.value("incident_id", ""),
                              "agent:dw-incidents", caller.client, caller.session},
                             services->clock());
        if (!asked.ok()) {
          out["errors"].push_back({{"metric", metric}, {"error", "mark_expected not proposed: " + asked.status().message()}});
          continue;
        }
        out["proposals"].push_back({{"metric", metric}, {"proposal_id", asked->proposal_id}, {"version", asked->version},
                                    {"status", asked->status}, {"waits_for", asked->waits_for}});
      }
    }
    return mcp::ToolResult::Structured(out);
  });
  return t;
}

mcp::ResourceTemplateSpec MetricPlotResource(const std::shared_ptr<workspace::Services>& services) {
  mcp::ResourceTemplateSpec r;
  r.uri_template = "dw://metrics/{metric}/plot.svg";
  r.name = "metric_plot";
  r.title = "Metric plot";
  r.description = "SVG of a stored metric (a monitor's name or a recorded metric): the values, the "
                  "expected band and the anomalies, over its training window.";
  r.mime_type = "image/svg+xml";
  r.read = [services](const std::string& uri, const std::map<std::string, std::string>& vars) -> Result<Json> {
    if (!services->workspace_status().ok()) return services->workspace_status();
    const std::string& metric = vars.at("metric");
    auto settings = observe::metrics::SettingsForMetric(services->workspace(), metric);
    if (!settings.ok()) return settings.status();
    auto store = services->state();
    if (!store.ok()) return store.status();
    auto svg = observe::metrics::PlotMetric(**store, metric, *settings, services->clock(),
                                            workspace::IncidentWindows(**store));
    if (!svg.ok()) return svg.status();
    return Json::array({{{"uri", uri}, {"mimeType", "image/svg+xml"}, {"text", *svg}}});
  };
  return r;
}

}  // namespace dw::agents
