// Detector snapshots in the state store: what a metric's detector learnt from its points, saved so
// that the next judgement resumes from it instead of replaying them (observe/metrics/
// metric_snapshot.h), and the history revision that makes a snapshot stale when points are
// rewritten under it.
//
// A capability beside StateStore rather than part of it: a store that does not offer it (a test
// double, a fault-injecting wrapper) simply makes every judgement a full replay.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/clock.h"
#include "base/status.h"
#include "store/state_store.h"

namespace dw::store {

// What a metric's detector learnt from its points [from, through].
struct MetricSnapshotRecord {
  std::string metric;
  // The metric's history revision it was learnt under (see MetricSnapshots): a later rewrite of
  // the history makes it stale.
  int64_t revision = 0;
  TimePoint from;        // the first time of the history it learnt
  TimePoint through;     // the last point it learnt
  std::string state;     // opaque bytes (any byte values)
  TimePoint written_at;  // set by the store
};

// A metric's stored snapshot (if any) and its current history revision.
struct MetricSnapshotLoad {
  int64_t revision = 0;
  std::optional<MetricSnapshotRecord> snapshot;
};

// A metric's history revision starts at 0 and is bumped, in the same transaction, by
// UpsertMetricPoints when it writes a point at or before the metric's latest stored point (an
// insertion into or a rewrite of the past, as opposed to an append), and by
// DeleteMetricPointsBefore when it deletes points at or after the `from` of the metric's snapshot.
// Thread-safe like StateStore.
class MetricSnapshots {
 public:
  virtual ~MetricSnapshots() = default;
  // The metric's revision and its snapshot, if one is stored. DataLoss when the stored row is
  // unreadable.
  virtual Result<MetricSnapshotLoad> LoadMetricSnapshot(const std::string& metric) = 0;
  // Stores `snapshot` (replacing the metric's previous one) iff the metric's revision is still
  // `snapshot.revision`, in one statement; returns false, writing nothing, when the history was
  // rewritten since. InvalidArgument for an empty metric.
  virtual Result<bool> SaveMetricSnapshot(const MetricSnapshotRecord& snapshot) = 0;
};

// The snapshots of `store`, or nullptr when it keeps none.
inline MetricSnapshots* MetricSnapshotsOf(StateStore& store) {
  return dynamic_cast<MetricSnapshots*>(&store);
}

}  // namespace dw::store
