#include "observe/metrics/retention.h"

#include <map>

#include "config/duration.h"
#include "observe/metrics/metric_service.h"

namespace dw::observe::metrics {

Result<PruneReport> PruneMetricPoints(const config::Workspace& ws, store::StateStore& store,
                                      const Clock& clock) {
  const int64_t global = ws.metric_retention.count();
  std::map<std::string, int64_t> retention;  // per monitor
  for (const auto& m : ws.monitors) {
    auto s = SettingsFromMonitor(m);
    if (!s.ok()) return s.status();
    int64_t keep = s->retention_ms.value_or(global);
    if (keep < s->training_window_ms)
      return InvalidArgument(
          "monitor " + m.name + ": training_window " +
          config::FormatDuration(std::chrono::milliseconds(s->training_window_ms)) +
          " is longer than metrics.retention " + config::FormatDuration(std::chrono::milliseconds(keep)) +
          "; give the monitor a retention of at least its training window; nothing was deleted");
    retention[m.name] = keep;
  }
  auto names = store.MetricNames();
  if (!names.ok()) return names.status();
  int64_t now = ToUnixMillis(clock.Now());
  PruneReport report;
  for (const std::string& name : *names) {
    auto found = retention.find(name);
    int64_t keep = found == retention.end() ? global : found->second;
    auto deleted = store.DeleteMetricPointsBefore(name, FromUnixMillis(now - keep));
    if (!deleted.ok()) return deleted.status();
    if (*deleted == 0) continue;
    report.deleted += *deleted;
    report.metrics.push_back({name, keep, *deleted});
  }
  return report;
}

}  // namespace dw::observe::metrics
