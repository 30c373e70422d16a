// Which stored incidents keep a metric's points out of training, until the incidents stage owns
// the incident record's body and this rule with it: the observe stage asks through
// observe::metrics::UnlearntWindows and never reads incidents itself.
#pragma once

#include <string>

#include "observe/metrics/metric_service.h"
#include "store/records.h"
#include "store/state_store.h"

namespace dw::workspace {

// Whether `incident` is about `metric`: its body names it ("metric": M or "metrics": [..M..]) or
// its asset_id is `asset_id` (when not empty).
bool IncidentCoversMetric(const store::IncidentRecord& incident, const std::string& metric,
                          const std::string& asset_id);

// The windows of the incidents in `store` that cover the metric, each labelled "incident <id>"
// and open until the incident closed. `store` must outlive the function.
observe::metrics::UnlearntWindows IncidentWindows(store::StateStore& store);

}  // namespace dw::workspace
