// Feeding a metric's stored points to its detector the way the product judges them (marks learnt,
// incident windows judged but not learnt, seasonal slots on the workspace's wall clock), one point
// at a time, so that a judgement can start from the beginning of the history or resume from a
// snapshot (metric_snapshot.h) and reach the same verdicts either way.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/time_zone.h"
#include "observe/metrics/detector.h"
#include "observe/metrics/metric_service.h"
#include "store/records.h"

namespace dw::observe::metrics {

// Where the history a judgement of `metric` at `now_ms` learns from begins: the latest start of a
// training period at or before now - window. Periods are `window_ms` long and, for each metric,
// offset by a fixed hash of its name, so that the history (between one and two windows long) is
// the same for every judgement within a period and metrics do not all start a new period at once.
int64_t HistoryStartMs(const std::string& metric, int64_t window_ms, int64_t now_ms);

class MetricReplayer {
 public:
  // A replayer with a fresh detector. The zone's error when settings.timezone cannot be loaded.
  static Result<MetricReplayer> Start(const std::string& metric, const MonitorSettings& settings);

  // Judges `p` as ReplayMetric does: learnt as expected inside one of `marks`, judged but not
  // learnt inside one of `windows`, judged and learnt otherwise. The verdict has p's real time.
  Verdict Feed(const store::MetricPoint& p, const std::vector<store::MetricMark>& marks,
               const std::vector<UnlearntWindow>& windows);

  const StreamingDetector& detector() const { return *det_; }
  size_t points() const { return points_; }
  size_t marked_points() const { return marked_; }
  size_t incident_points() const { return incident_; }

  // The whole state (detector and bookkeeping) with `extra` (the caller's, returned by Resume).
  std::string Encode(std::string_view extra) const;
  // A replayer in the state `bytes` was encoded in. The snapshot codec's error (detector_state.h:
  // FailedPrecondition when stale, DataLoss when damaged) otherwise.
  static Result<MetricReplayer> Resume(const std::string& metric, const MonitorSettings& settings,
                                       std::string_view bytes, std::string* extra);

 private:
  MetricReplayer(std::unique_ptr<StreamingDetector> det, std::optional<config::TimeZone> zone,
                 uint64_t settings_hash)
      : det_(std::move(det)), zone_(std::move(zone)), settings_hash_(settings_hash) {}

  std::unique_ptr<StreamingDetector> det_;
  std::optional<config::TimeZone> zone_;
  uint64_t settings_hash_;
  int64_t prev_real_ = 0;
  int64_t prev_local_ = INT64_MIN;
  size_t points_ = 0;
  size_t marked_ = 0;
  size_t incident_ = 0;
};

// The hash of what a snapshot of `settings` depends on besides the points (detector options, time
// zone, training window).
uint64_t SettingsHash(const MonitorSettings& settings);

}  // namespace dw::observe::metrics
