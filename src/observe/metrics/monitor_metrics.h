// monitor_metrics as one call: record points, mark ranges as expected, judge what was touched and
// evaluate named monitors, with the "nothing stored" rules (every point and mark is parsed and
// validated before anything is written). The dw-incidents tool translates its arguments to this
// call and its answer back, nothing more.
#pragma once

#include "base/clock.h"
#include "base/json.h"
#include "base/status.h"
#include "config/workspace.h"
#include "observe/metrics/metric_service.h"
#include "store/state_store.h"

namespace dw::observe::metrics {

// `args`: {record?: [{metric, points: [{ts: RFC 3339 text or Unix ms, value: number|null}]}],
// mark_expected?: [{metric, from, to, note?}], evaluate?: [monitor names]}, shaped by the
// monitor_metrics input schema (the caller validated it). Returns {metrics: [judgements],
// recorded: [record reports], marked: [marks], errors: [{metric, error}]}: a metric that fails
// after validation is listed in errors while the others go on. kInvalidArgument, with nothing
// stored, for none of the three keys, a bad timestamp ("record M, point 3: ...; nothing stored")
// or a mark that cannot be made ("mark_expected[0].from: ...; nothing stored").
// `unlearnt`: the windows kept out of training (see ReplayMetric).
Result<Json> MonitorMetrics(const config::Workspace& ws, store::StateStore& store, const Clock& clock,
                            const UnlearntWindows& unlearnt, const Json& args);

}  // namespace dw::observe::metrics
