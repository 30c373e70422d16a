// Which stored incidents keep a metric's points out of training: the incidents stage's rule
// (incidents::MetricWindows); the observe stage asks through observe::metrics::UnlearntWindows and
// never reads incidents itself.
#pragma once

#include <string>

#include "observe/metrics/metric_batch.h"
#include "observe/metrics/metric_service.h"
#include "store/records.h"
#include "store/state_store.h"

namespace dw::workspace {

// Whether `incident` is about `metric`: its body names it ("metric": M or "metrics": [..M..]) or
// its asset_id is `asset_id` (when not empty).
bool IncidentCoversMetric(const store::IncidentRecord& incident, const std::string& metric,
                          const std::string& asset_id);

// incidents::MetricWindows(store): the windows of the incidents that cover the metric, each
// labelled "incident <id>", from the first bad point until the incident closed; none for an
// incident closed as expected or false_positive. `store` must outlive the function.
observe::metrics::UnlearntWindows IncidentWindows(store::StateStore& store);
// The same rule for many metrics in one read (incidents::MetricWindowsOfMany), for
// observe::metrics::JudgeLatestPoints.
observe::metrics::UnlearntWindowsOfMany IncidentWindowsOfMany(store::StateStore& store);

}  // namespace dw::workspace
