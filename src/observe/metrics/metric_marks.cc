#include "observe/metrics/metric_marks.h"

#include <algorithm>

#include "config/suggest.h"
#include "observe/metrics/series_csv.h"

namespace dw::observe::metrics {
namespace {

constexpr int64_t kMaxMarkMs = 400LL * 24 * 3600 * 1000;
constexpr size_t kMaxNote = 500;

}  // namespace

Result<int64_t> ParseRfc3339Millis(std::string_view text, const std::string& what) {
  auto bad = [&] {
    return InvalidArgument(what + ": \"" + std::string(text.substr(0, 60)) +
                           "\" is not an RFC 3339 time such as 2027-01-15T08:00:00Z");
  };
  // The shape ParseSeriesTimestamp does not insist on: a 'T' and an explicit zone.
  if (text.size() < 20 || (text[10] != 'T' && text[10] != 't')) return bad();
  char last = text.back();
  bool zoned = last == 'Z' || last == 'z' ||
               (text.size() >= 25 && (text[text.size() - 6] == '+' || text[text.size() - 6] == '-'));
  if (!zoned) return bad();
  Result<int64_t> ms = ParseSeriesTimestamp(text);
  if (!ms.ok()) return bad();
  return *ms;
}

Status CheckKnownMetric(const config::Workspace& ws, store::StateStore& store,
                        const std::string& metric, const std::vector<std::string>& also_known) {
  bool known = std::any_of(ws.monitors.begin(), ws.monitors.end(),
                           [&](const config::MonitorConfig& m) { return m.name == metric; }) ||
               std::find(also_known.begin(), also_known.end(), metric) != also_known.end();
  if (known) return Status::Ok();
  Result<std::vector<std::string>> names = store.MetricNames();
  if (!names.ok()) return names.status();
  if (std::find(names->begin(), names->end(), metric) != names->end()) return Status::Ok();
  std::vector<std::string> candidates = *names;
  for (const auto& m : ws.monitors) candidates.push_back(m.name);
  candidates.insert(candidates.end(), also_known.begin(), also_known.end());
  return NotFound("unknown metric \"" + metric.substr(0, 80) +
                  "\": neither a workspace monitor nor a stored metric" +
                  config::DidYouMean(metric, candidates));
}

Status ValidateMark(const config::Workspace& ws, store::StateStore& store, const MarkRequest& req,
                    const std::vector<std::string>& also_known) {
  DW_RETURN_IF_ERROR(CheckKnownMetric(ws, store, req.metric, also_known));
  if (req.from_ms > req.to_ms)
    return InvalidArgument("from " + FormatRfc3339(FromUnixMillis(req.from_ms)) + " is after to " +
                           FormatRfc3339(FromUnixMillis(req.to_ms)));
  if (req.to_ms - req.from_ms > kMaxMarkMs)
    return InvalidArgument("the range from " + FormatRfc3339(FromUnixMillis(req.from_ms)) + " to " +
                           FormatRfc3339(FromUnixMillis(req.to_ms)) +
                           " is longer than 400 days; mark a shorter one");
  if (req.author.empty())
    return InvalidArgument("a mark names the person who says the range is expected (author is empty)");
  if (req.note.size() > kMaxNote)
    return InvalidArgument("note is " + std::to_string(req.note.size()) + " characters; at most 500");
  return Status::Ok();
}

Result<MarkReport> MarkExpected(const config::Workspace& ws, store::StateStore& store,
                                const MarkRequest& req) {
  DW_RETURN_IF_ERROR(ValidateMark(ws, store, req));
  store::MetricMark mark;
  mark.metric = req.metric;
  mark.from = FromUnixMillis(req.from_ms);
  mark.to = FromUnixMillis(req.to_ms);
  mark.note = req.note;
  mark.author = req.author;
  Result<int64_t> id = store.AddMetricMark(mark);
  if (!id.ok()) return id.status();
  MarkReport report;
  report.id = *id;
  Result<std::vector<store::MetricPoint>> covered =
      store.MetricPoints(req.metric, mark.from, FromUnixMillis(req.to_ms + 1));
  if (!covered.ok()) return covered.status();
  report.points_covered = covered->size();
  return report;
}

}  // namespace dw::observe::metrics
