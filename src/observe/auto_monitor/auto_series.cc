#include "observe/auto_monitor/auto_series.h"

#include "observe/auto_monitor/load_cadence.h"

namespace dw::observe::auto_monitor {

std::string AutoSeriesName(const std::string& asset_id, const std::string& measure) {
  return "auto:" + asset_id + ":" + measure;
}

std::optional<AutoSeries> ParseAutoSeries(const std::string& metric) {
  const std::string prefix = "auto:";
  if (!metric.starts_with(prefix)) return std::nullopt;
  const size_t colon = metric.rfind(':');
  if (colon == std::string::npos || colon <= prefix.size()) return std::nullopt;
  AutoSeries out{metric.substr(prefix.size(), colon - prefix.size()), metric.substr(colon + 1)};
  if (out.measure != kRowsWritten && out.measure != kLateness && out.measure != kColumnsChanged) return std::nullopt;
  if (out.asset_id.find("://") == std::string::npos) return std::nullopt;
  return out;
}

std::optional<metrics::MonitorSettings> AutoSeriesSettings(const std::string& metric) {
  auto series = ParseAutoSeries(metric);
  if (!series) return std::nullopt;
  metrics::MonitorSettings s;
  s.asset_id = series->asset_id;
  s.training_window_ms = 28LL * 24 * 3600 * 1000;
  if (series->measure == kRowsWritten) {
    s.detector.direction = metrics::Direction::kBoth;
    s.detector.min_history = 8;
    s.detector.min_rel_change = 0.2;
    s.every_ms = 15LL * 60 * 1000;
  } else {
    // Hard bounds decide; the band is kept out of it (a sawtooth of lateness, a run of zeros).
    s.detector.seasonality = metrics::Seasonality::kNone;
    s.detector.direction = metrics::Direction::kSpike;
    s.detector.min_abs_change = 1e12;
    s.detector.stuck_min_points = static_cast<size_t>(1) << 40;  // a weekend of waiting is not "stuck"
    s.detector.expected_high = series->measure == kLateness ? kLateAfter : 0.0;
  }
  return s;
}

}  // namespace dw::observe::auto_monitor
