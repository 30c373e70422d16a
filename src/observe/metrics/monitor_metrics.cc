#include "observe/metrics/monitor_metrics.h"

#include <algorithm>

#include "observe/metrics/metric_marks.h"
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
                            const UnlearntWindows& unlearnt, const Json& args) {
  if (!args.contains("record") && !args.contains("evaluate") && !args.contains("mark_expected"))
    return InvalidArgument("give record (points to store), mark_expected (ranges) and/or evaluate (monitor names)");
  // Parse every point before writing anything, so a bad timestamp stores nothing.
  std::vector<std::pair<std::string, std::vector<IncomingPoint>>> batches;
  const Json record_args = args.value("record", Json::array());
  for (size_t k = 0; k < record_args.size(); ++k) {
    const Json& rec = record_args[k];
    std::string metric = rec["metric"].get<std::string>();
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
  // Validate every mark before writing anything, too (a metric recorded in this call counts as
  // known).
  std::vector<std::string> recording;
  for (const auto& b : batches) recording.push_back(b.first);
  std::vector<MarkRequest> marks;
  const Json mark_args = args.value("mark_expected", Json::array());
  for (size_t i = 0; i < mark_args.size(); ++i) {
    const Json& m = mark_args[i];
    std::string where = "mark_expected[" + std::to_string(i) + "]";
    auto from = ParseRfc3339Millis(m["from"].get<std::string>(), where + ".from");
    auto to = ParseRfc3339Millis(m["to"].get<std::string>(), where + ".to");
    Status bad = !from.ok() ? from.status() : to.status();
    MarkRequest req{m["metric"].get<std::string>(), from.ok() ? *from : 0,
                             to.ok() ? *to : 0, m.value("note", std::string())};
    if (bad.ok()) bad = ValidateMark(ws, store, req, recording);
    if (!bad.ok()) {
      std::string msg = bad.message();
      if (!msg.starts_with(where)) msg = where + ": " + msg;
      return InvalidArgument(msg + "; nothing stored");
    }
    marks.push_back(std::move(req));
  }
  Json recorded = Json::array(), judged = Json::array(), errors = Json::array(),
       marked = Json::array();
  std::vector<std::string> to_judge;
  for (const auto& [metric, points] : batches) {
    auto r = RecordMetricPoints(store, metric, points);
    if (!r.ok()) {
      errors.push_back({{"metric", metric}, {"error", r.status().message()}});
      continue;
    }
    recorded.push_back(ReportToJson(metric, *r));
    if (std::find(to_judge.begin(), to_judge.end(), metric) == to_judge.end()) to_judge.push_back(metric);
  }
  for (const MarkRequest& req : marks) {
    auto r = MarkExpected(ws, store, req);
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
    auto settings = SettingsForMetric(ws, metric);
    auto j = settings.ok() ? JudgeLatestPoint(store, metric, *settings, clock, unlearnt)
                           : Result<MetricJudgement>(settings.status());
    if (j.ok()) judged.push_back(JudgementToJson(*j));
    else errors.push_back({{"metric", metric}, {"error", j.status().message()}});
  }
  for (const Json& name : args.value("evaluate", Json::array())) {
    std::string monitor = name.get<std::string>();
    RecordReport report;
    auto j = EvaluateMonitor(ws, store, monitor, clock, unlearnt, &report);
    if (!j.ok()) {
      errors.push_back({{"metric", monitor}, {"error", j.status().message()}});
      continue;
    }
    recorded.push_back(ReportToJson(monitor, report));
    judged.push_back(JudgementToJson(*j));
  }
  return Json{{"metrics", judged}, {"recorded", recorded}, {"marked", marked}, {"errors", errors}};
}

}  // namespace dw::observe::metrics
