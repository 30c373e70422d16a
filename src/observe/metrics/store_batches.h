// The store's batch statements (store/metric_batches.h) as the metrics stage uses them: through
// the store's MetricBatches when it offers them, one single-metric call per entry otherwise (a test
// double, a fault-injecting wrapper), with the same answers either way. Internal to
// metric_batch.h's functions.
#pragma once

#include <vector>

#include "base/status.h"
#include "store/metric_batches.h"
#include "store/metric_snapshots.h"
#include "store/state_store.h"

namespace dw::observe::metrics {

// MetricBatches::MetricPointsOfMany / MetricMarksOfMany of `store`.
Result<std::vector<std::vector<store::MetricPoint>>> PointsOfMany(store::StateStore& store,
                                                                  const std::vector<store::MetricRange>& ranges);
Result<std::vector<std::vector<store::MetricMark>>> MarksOfMany(store::StateStore& store,
                                                                const std::vector<store::MetricRange>& ranges);
// MetricBatches::UpsertMetricPointsOfMany of `store` (one transaction either way).
Status UpsertPointsOfMany(store::StateStore& store, const std::vector<store::MetricPointsWrite>& writes);
// The snapshot load of each metric: out[i] metric i's or its own error. REQUIRES: `snapshots` is
// MetricSnapshotsOf(store), not null. The store's error fails the whole call.
Result<std::vector<Result<store::MetricSnapshotLoad>>> LoadSnapshotsOfMany(store::StateStore& store,
                                                                           store::MetricSnapshots& snapshots,
                                                                           const std::vector<std::string>& metrics);
// The save of each snapshot: out[i] whether it was stored, or the error that kept it from being
// (with the batch statement, one error for all). REQUIRES as LoadSnapshotsOfMany.
std::vector<Result<bool>> SaveSnapshotsOfMany(store::StateStore& store, store::MetricSnapshots& snapshots,
                                              const std::vector<store::MetricSnapshotRecord>& records);

}  // namespace dw::observe::metrics
