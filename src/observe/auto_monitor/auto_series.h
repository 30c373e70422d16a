// The metric series of the automatic monitors, one per table and measure:
//   auto:<asset id>:rows_written     the rows a load wrote, one point per load seen (volume)
//   auto:<asset id>:lateness         how late the table is in cadences, one point per pass once
//                                    its cadence is learnt (freshness; above 1.5 is late)
//   auto:<asset id>:columns_changed  columns removed or retyped since the last pass, one point per
//                                    pass that saw such a change (schema)
// They are stored like a declared monitor's points and judged by the same detector with the
// settings below, so an alarm becomes an incident signal the same way (incidents/signal_gathering).
#pragma once

#include <optional>
#include <string>

#include "observe/metrics/metric_service.h"

namespace dw::observe::auto_monitor {

inline constexpr const char* kRowsWritten = "rows_written";
inline constexpr const char* kLateness = "lateness";
inline constexpr const char* kColumnsChanged = "columns_changed";

// "auto:<asset_id>:<measure>".
std::string AutoSeriesName(const std::string& asset_id, const std::string& measure);

// The asset and measure of an automatic series, or nullopt for any other metric name.
struct AutoSeries {
  std::string asset_id;
  std::string measure;
};
std::optional<AutoSeries> ParseAutoSeries(const std::string& metric);

// The detector settings of an automatic series (nullopt for any other metric): volume is judged
// against its history (both directions, at least 20% off, from 8 loads on); freshness and schema
// by hard bounds (lateness above 1.5 cadences, any column removed or retyped).
std::optional<metrics::MonitorSettings> AutoSeriesSettings(const std::string& metric);

}  // namespace dw::observe::auto_monitor
