// MetricWindows (incidents.h) for many metrics at once, for observe::metrics::JudgeLatestPoints.
// Apart from the stage's front door only so that the few callers of the batch form pull in
// observe/metrics/metric_batch.h, not every includer of incidents.h.
#pragma once

#include "observe/metrics/metric_batch.h"
#include "store/state_store.h"

namespace dw::incidents {

// MetricWindows for many requests: one read of the incidents over all the requests' ranges, then
// for each request the windows MetricWindows would give it, in the same order; the store's error is
// every request's. `store` must outlive the function.
observe::metrics::UnlearntWindowsOfMany MetricWindowsOfMany(store::StateStore& store);

}  // namespace dw::incidents
