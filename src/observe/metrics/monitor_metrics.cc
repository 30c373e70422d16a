#include "observe/metrics/monitor_metrics.h"

#include <algorithm>

#include "observe/metrics/metric_service.h"
#include "observe/metrics/series_csv.h"

namespace dw::observe::metrics {
namespace {

Json ReportToJson(const std::string& metric, const RecordReport& r) {
  return Json{{"metric", metric},           {"stored", r.stored},
              {"duplicates", r.duplicates}, {"out_of_order", r.out_of_order},
              {"replaced", r.replaced},     {"rejected", r.rejected}};
}

}  // namespace

Result<Json> MonitorMetrics(const config::Workspace& ws, store::StateStore& store, const Clock& clock,
                            const UnlearntWindows& unlearnt, const Json& args, HttpClient* http) {
  if (!args.contains("record") && !args.contains("evaluate"))
    return InvalidArgument("give record (points to store) and/or evaluate (monitor names)");
  // Parse every point before writing anything, so a bad timestamp stores nothing.
  std::vector<std::pair<std::string, std::vector<IncomingPoint>>> batches;
  const Json record_args = args.value("record", Json::array());
  for (size_t k = 0; k < record_args.size(); ++k) {
    const Json& rec = record_args[k];
    std::string metric = rec["metric"].get<std::string>();
    // The series the product measures (a workspace monitor's, a check's quality:*) are the ones
    // incidents open and verify on: an agent writing into one could open, or end, an incident.
    // It records its own series; `evaluate` runs a monitor's own query.
    const std::string where_metric = "record[" + std::to_string(k) + "].metric";
    if (std::any_of(ws.monitors.begin(), ws.monitors.end(),
                    [&](const config::MonitorConfig& m) { return m.name == metric; }))
      return InvalidArgument(where_metric + ": " + metric.substr(0, 80) +
                             " is the workspace monitor's series, measured by its own query: an agent "
                             "cannot write its points (evaluate: [\"" + metric.substr(0, 80) +
                             "\"] runs the monitor now); nothing stored");
    if (metric.rfind("quality:", 0) == 0)
      return InvalidArgument(where_metric + ": " + metric.substr(0, 80) +
                             " is measured by the workspace's checks (quality:*): an agent cannot "
                             "write its points; nothing stored");
    std::vector<IncomingPoint> points;
    for (size_t i = 0; i < rec["points"].size(); ++i) {
      const Json& p = rec["points"][i];
      const std::string where = "record[" + std::to_string(k) + "].points[" + std::to_string(i) + "].ts";
      auto ts = p["ts"].is_string() ? ParseSeriesTimestamp(p["ts"].get<std::string>())
                                    : SeriesMillisFromJson(p["ts"]);
      if (!ts.ok())
        return InvalidArgument(where + " (metric " + metric + "): " + ts.status().message() +
                               "; nothing stored");
      IncomingPoint ip;
      ip.ts_ms = *ts;
      if (!p["value"].is_null()) ip.value = p["value"].get<double>();
      points.push_back(ip);
    }
    batches.emplace_back(metric, std::move(points));
  }
  Json recorded = Json::array(), judged = Json::array(), errors = Json::array();
  std::vector<std::string> to_judge;
  for (const auto& [metric, points] : batches) {
    // An agent's write never changes a stored value: what was judged stays the evidence.
    auto r = RecordMetricPoints(store, metric, points, /*keep_stored=*/true);
    if (!r.ok()) {
      errors.push_back({{"metric", metric}, {"error", r.status().message()}});
      continue;
    }
    recorded.push_back(ReportToJson(metric, *r));
    if (std::find(to_judge.begin(), to_judge.end(), metric) == to_judge.end()) to_judge.push_back(metric);
  }
  for (const std::string& metric : to_judge) {
    auto settings = SettingsForMetric(ws, metric);
    auto j = settings.ok() ? JudgeLatestPoint(store, metric, *settings, clock, unlearnt)
                           : Result<MetricJudgement>(settings.status());
    if (j.ok()) judged.push_back(JudgementToJson(*j));
    else errors.push_back({{"metric", metric}, {"error", j.status().message()}});
  }
  for (const Json& name : args.value("evaluate", Json::array())) {
    std::string monitor = name.get<std::string>();
    RecordReport report;
    auto j = EvaluateMonitor(ws, store, monitor, clock, unlearnt, &report, http);
    if (!j.ok()) {
      errors.push_back({{"metric", monitor}, {"error", j.status().message()}});
      continue;
    }
    recorded.push_back(ReportToJson(monitor, report));
    judged.push_back(JudgementToJson(*j));
  }
  return Json{{"metrics", judged}, {"recorded", recorded}, {"errors", errors}};
}

}  // namespace dw::observe::metrics
