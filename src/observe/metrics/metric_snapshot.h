// Detector snapshots of metrics in the state store: what JudgeLatestPoint (metric_service.h)
// saves after each judgement and resumes from on the next one (metric_snapshot.cc says when a
// snapshot is still valid). Exposed for the benchmarks and tools that seed snapshots in bulk.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "observe/metrics/metric_replayer.h"
#include "observe/metrics/metric_service.h"
#include "store/metric_snapshots.h"
#include "store/state_store.h"

namespace dw::observe::metrics {

// Saves `replayer`'s state as `metric`'s snapshot: it learnt the points from `from_ms` (the
// history start, HistoryStartMs) through `through_ms` under `marks` and `windows`, at history
// revision `revision` (store/metric_snapshots.h). Returns false, writing nothing, when the
// history was rewritten since `revision`; FailedPrecondition when the store keeps no snapshots;
// the store's error otherwise.
Result<bool> SaveReplayerSnapshot(store::StateStore& store, const std::string& metric,
                                  const MetricReplayer& replayer, int64_t revision, int64_t from_ms,
                                  int64_t through_ms, const std::vector<store::MetricMark>& marks,
                                  const std::vector<UnlearntWindow>& windows);

}  // namespace dw::observe::metrics
