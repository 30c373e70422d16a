// The metric statements of many metrics at once: what one `dw watch` pass needs to record a new
// point for, and judge, hundreds of metrics in a constant number of store round trips instead of a
// dozen per metric (observe/metrics/metric_batch.h is the caller). Each call means exactly what the
// single-metric StateStore / MetricSnapshots call means for every entry, as if they ran one after
// the other; PostgreSQL runs each as one statement over array parameters (never SQL built from
// values), SQLite, which has no network to save, as its prepared single-metric statement once per
// entry inside the same call.
//
// A capability beside StateStore like MetricSnapshots: a store that does not offer it (a test
// double, a fault-injecting wrapper) is served one metric at a time by the caller.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "store/metric_snapshots.h"
#include "store/records.h"
#include "store/state_store.h"

namespace dw::store {

// A metric and a stretch of its time.
struct MetricRange {
  std::string metric;
  TimePoint from;
  TimePoint to;
};

// The points to write for one metric.
struct MetricPointsWrite {
  std::string metric;
  std::vector<MetricPoint> points;
};

class MetricBatches {
 public:
  virtual ~MetricBatches() = default;
  // For each range, its metric's points with from <= ts < to, oldest first (out[i] for
  // ranges[i]), read in one statement. The store's error fails the whole call.
  virtual Result<std::vector<std::vector<MetricPoint>>> MetricPointsOfMany(
      const std::vector<MetricRange>& ranges) = 0;
  // For each range, MetricMarks(metric, from, to) (overlapping [from, to], both inclusive, by
  // `from` ascending), read in one statement.
  virtual Result<std::vector<std::vector<MetricMark>>> MetricMarksOfMany(
      const std::vector<MetricRange>& ranges) = 0;
  // For each metric, LoadMetricSnapshot(metric): its revision and snapshot, both read in the same
  // statement; out[i] is DataLoss alone when metric i's row is unreadable. The store's error fails
  // the whole call.
  virtual Result<std::vector<Result<MetricSnapshotLoad>>> LoadMetricSnapshots(
      const std::vector<std::string>& metrics) = 0;
  // SaveMetricSnapshot of each, in one transaction: out[i] is whether snapshots[i] was stored
  // (false, writing nothing for it, when its metric's history was rewritten since its revision,
  // or when a later entry of the same metric replaces it). InvalidArgument (nothing written) for
  // an empty metric; the store's error fails the whole call (nothing written).
  virtual Result<std::vector<bool>> SaveMetricSnapshots(
      const std::vector<MetricSnapshotRecord>& snapshots) = 0;
  // UpsertMetricPoints of each write, all in one transaction (history revisions bumped as it
  // does). InvalidArgument, nothing written, for a write UpsertMetricPoints refuses or a metric
  // given twice; the store's error fails the whole call (nothing written).
  virtual Status UpsertMetricPointsOfMany(const std::vector<MetricPointsWrite>& writes) = 0;
};

// The batch statements of `store`, or nullptr when it offers none.
inline MetricBatches* MetricBatchesOf(StateStore& store) { return dynamic_cast<MetricBatches*>(&store); }

}  // namespace dw::store
