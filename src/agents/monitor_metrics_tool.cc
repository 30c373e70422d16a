// monitor_metrics (dw-incidents): record metric points and/or evaluate named workspace monitors
// now; answers, per metric, the latest value, its expected band, the score, the verdict and a
// sentence a person can read. A thin call into observe/metrics/metric_service.
#include <algorithm>

#include "agents/agents.h"
#include "observe/metrics/metric_marks.h"
#include "observe/metrics/metric_service.h"
#include "observe/metrics/series_csv.h"

namespace dw::agents {
namespace {

Json ReportToJson(const std::string& metric, const metrics::RecordReport& r) {
  return Json{{"metric", metric},           {"stored", r.stored},
              {"duplicates", r.duplicates}, {"out_of_order", r.out_of_order},
              {"replaced", r.replaced},     {"rejected", r.rejected}};
}

}  // namespace

mcp::ToolSpec MonitorMetricsTool(const std::shared_ptr<app::Services>& services) {
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
      "or infinite values are rejected and reported; a repeated timestamp replaces the stored "
      "value; points older than the latest stored one are stored and counted as out of order. "
      "mark_expected stores ranges a person says are right (a holiday, a planned change): every "
      "later evaluation learns their points as normal instead of judging them. Points inside an "
      "incident on the metric are judged but not learnt.";
  t.input_schema = Json::parse(R"({
    "type": "object",
    "properties": {
      "record": {
        "type": "array", "maxItems": 100,
        "description": "Points to store, per metric.",
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
        "description": "Ranges a person says are expected (a holiday, a planned change, a new level that is right). Stored; from then on every evaluation learns the metric's points in [from, to] as normal instead of judging them.",
        "items": {
          "type": "object",
          "properties": {
            "metric": {"type": "string", "minLength": 1, "maxLength": 200,
                       "description": "a workspace monitor or a stored metric"},
            "from": {"type": "string", "description": "RFC 3339 time with a zone, inclusive"},
            "to": {"type": "string", "description": "RFC 3339 time with a zone, inclusive; not before from"},
            "note": {"type": "string", "maxLength": 500, "description": "why these points are expected"}
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
      "marked": {"type": "array", "description": "ranges stored as expected", "items": {
        "type": "object",
        "properties": {
          "metric": {"type": "string"}, "id": {"type": "integer"}, "from": {"type": "string"},
          "to": {"type": "string"}, "points_covered": {"type": "integer"}
        },
        "required": ["metric", "id", "from", "to", "points_covered"]
      }},
      "errors": {"type": "array", "description": "metrics that could not be recorded or judged",
        "items": {
          "type": "object",
          "properties": {"metric": {"type": "string"}, "error": {"type": "string"}},
          "required": ["metric", "error"]
        }}
    },
    "required": ["metrics", "recorded", "marked", "errors"]
  })");
  t.annotations = {.read_only = false, .destructive = false, .idempotent = false, .open_world = true};
  t.handler = [services](const Json& args, mcp::ToolCall&) {
    if (!services->workspace_status().ok())
      return mcp::ToolResult::Error(services->workspace_status().message());
    if (!args.contains("record") && !args.contains("evaluate") && !args.contains("mark_expected"))
      return mcp::ToolResult::Error(
          "give record (points to store), mark_expected (ranges) and/or evaluate (monitor names)");
    auto store = services->state();
    if (!store.ok()) return mcp::ToolResult::Error("state store: " + store.status().message());
    // Parse every point before writing anything, so a bad timestamp stores nothing.
    std::vector<std::pair<std::string, std::vector<metrics::IncomingPoint>>> batches;
    const Json record_args = args.value("record", Json::array());
    for (size_t k = 0; k < record_args.size(); ++k) {
      const Json& rec = record_args[k];
      std::string metric = rec["metric"].get<std::string>();
      std::vector<metrics::IncomingPoint> points;
      for (size_t i = 0; i < rec["points"].size(); ++i) {
        const Json& p = rec["points"][i];
        const std::string where =
            "record[" + std::to_string(k) + "].points[" + std::to_string(i) + "].ts";
        auto ts = p["ts"].is_string() ? metrics::ParseSeriesTimestamp(p["ts"].get<std::string>())
                                      : metrics::SeriesMillisFromJson(p["ts"]);
        if (!ts.ok())
          return mcp::ToolResult::Error(where + " (metric " + metric + "): " + ts.status().message() +
                                        "; nothing stored");
        metrics::IncomingPoint ip;
        ip.ts_ms = *ts;
        if (!p["value"].is_null()) ip.value = p["value"].get<double>();
        points.push_back(ip);
      }
      batches.emplace_back(metric, std::move(points));
    }
    // Validate every mark before writing anything, too (a metric recorded in this call counts as
    // known).
    std::vector<std::string> recording;
    for (const auto& b : batches) recording.push_back(b.first);
    std::vector<metrics::MarkRequest> marks;
    const Json mark_args = args.value("mark_expected", Json::array());
    for (size_t i = 0; i < mark_args.size(); ++i) {
      const Json& m = mark_args[i];
      std::string where = "mark_expected[" + std::to_string(i) + "]";
      auto from = metrics::ParseRfc3339Millis(m["from"].get<std::string>(), where + ".from");
      auto to = metrics::ParseRfc3339Millis(m["to"].get<std::string>(), where + ".to");
      Status bad = !from.ok() ? from.status() : to.status();
      metrics::MarkRequest req{m["metric"].get<std::string>(), from.ok() ? *from : 0,
                               to.ok() ? *to : 0, m.value("note", std::string())};
      if (bad.ok()) bad = metrics::ValidateMark(services->workspace(), **store, req, recording);
      if (!bad.ok()) {
        std::string msg = bad.message();
        if (!msg.starts_with(where)) msg = where + ": " + msg;
        return mcp::ToolResult::Error(msg + "; nothing stored");
      }
      marks.push_back(std::move(req));
    }
    Json recorded = Json::array(), judged = Json::array(), errors = Json::array(),
         marked = Json::array();
    std::vector<std::string> to_judge;
    for (const auto& [metric, points] : batches) {
      auto r = metrics::RecordMetricPoints(**store, metric, points);
      if (!r.ok()) {
        errors.push_back({{"metric", metric}, {"error", r.status().message()}});
        continue;
      }
      recorded.push_back(ReportToJson(metric, *r));
      if (std::find(to_judge.begin(), to_judge.end(), metric) == to_judge.end()) to_judge.push_back(metric);
    }
    for (const metrics::MarkRequest& req : marks) {
      auto r = metrics::MarkExpected(services->workspace(), **store, req);
      if (!r.ok()) {
        errors.push_back({{"metric", req.metric}, {"error", r.status().message()}});
        continue;
      }
      marked.push_back({{"metric", req.metric},
                        {"id", r->id},
                        {"from", FormatRfc3339(FromUnixMillis(req.from_ms))},
                        {"to", FormatRfc3339(FromUnixMillis(req.to_ms))},
                        {"points_covered", r->points_covered}});
      if (std::find(to_judge.begin(), to_judge.end(), req.metric) == to_judge.end())
        to_judge.push_back(req.metric);
    }
    for (const std::string& metric : to_judge) {
      auto settings = metrics::SettingsForMetric(services->workspace(), metric);
      auto j = settings.ok() ? metrics::JudgeLatestPoint(**store, metric, *settings, services->clock())
                             : Result<metrics::MetricJudgement>(settings.status());
      if (j.ok()) judged.push_back(metrics::JudgementToJson(*j));
      else errors.push_back({{"metric", metric}, {"error", j.status().message()}});
    }
    for (const Json& name : args.value("evaluate", Json::array())) {
      std::string monitor = name.get<std::string>();
      metrics::RecordReport report;
      auto j = metrics::EvaluateMonitor(services->workspace(), **store, monitor, services->clock(), &report);
      if (!j.ok()) {
        errors.push_back({{"metric", monitor}, {"error", j.status().message()}});
        continue;
      }
      recorded.push_back(ReportToJson(monitor, report));
      judged.push_back(metrics::JudgementToJson(*j));
    }
    return mcp::ToolResult::Structured(
        Json{{"metrics", judged}, {"recorded", recorded}, {"marked", marked}, {"errors", errors}});
  };
  return t;
}

mcp::ResourceTemplateSpec MetricPlotResource(const std::shared_ptr<app::Services>& services) {
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
    auto settings = metrics::SettingsForMetric(services->workspace(), metric);
    if (!settings.ok()) return settings.status();
    auto store = services->state();
    if (!store.ok()) return store.status();
    auto svg = metrics::PlotMetric(**store, metric, *settings, services->clock());
    if (!svg.ok()) return svg.status();
    return Json::array({{{"uri", uri}, {"mimeType", "image/svg+xml"}, {"text", *svg}}});
  };
  return r;
}

}  // namespace dw::agents
