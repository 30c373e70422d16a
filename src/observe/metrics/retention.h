// Metric retention: stored points older than their retention are deleted (`dw watch` once a
// day, `dw monitor prune`). A monitor's `retention:` applies to its own points; every other
// stored metric (recorded through monitor_metrics, quality series) follows `metrics.retention`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "config/workspace.h"
#include "store/state_store.h"

namespace dw::observe::metrics {

struct PrunedMetric {
  std::string metric;
  int64_t retention_ms = 0;
  int64_t deleted = 0;
};

struct PruneReport {
  int64_t deleted = 0;                // points deleted in all
  std::vector<PrunedMetric> metrics;  // the metrics that lost points, by name
};

// Deletes, for every stored metric, the points older than now minus its retention. Checks every
// monitor first: InvalidArgument (nothing deleted) when a monitor's settings are unusable or its
// training_window is longer than the retention that applies to it. The store's error otherwise
// (metrics pruned before the failure stay pruned: each metric is one transaction).
Result<PruneReport> PruneMetricPoints(const config::Workspace& ws, store::StateStore& store,
                                      const Clock& clock);

}  // namespace dw::observe::metrics
