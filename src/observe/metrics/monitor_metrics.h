// monitor_metrics as one call: record points, judge what was touched and evaluate named monitors,
// with the "nothing stored" rule (every point is parsed before anything is written). It serves an
// agent, so it never changes a stored value and never marks a range expected (a mark silences a
// monitor: `dw monitor mark --as`, a person's). The dw-incidents tool translates its arguments to
// this call and its answer back, nothing more.
#pragma once

#include "base/clock.h"
#include "base/http.h"
#include "base/json.h"
#include "base/status.h"
#include "config/workspace.h"
#include "observe/metrics/metric_service.h"
#include "store/state_store.h"

namespace dw::observe::metrics {

// `args`: {record?: [{metric, points: [{ts: RFC 3339 text or Unix ms, value: number|null}]}],
// evaluate?: [monitor names]}, shaped by the monitor_metrics input schema (the caller validated
// it). Returns {metrics: [judgements], recorded: [record reports], errors: [{metric, error}]}: a
// metric that fails after validation is listed in errors while the others go on; a point whose
// timestamp holds a different stored value is rejected in its report (the stored one kept).
// kInvalidArgument, with nothing stored, for neither key or a bad timestamp ("record M, point 3:
// ...; nothing stored").
// `unlearnt`: the windows kept out of training (see ReplayMetric). `http` carries the evaluated
// monitors' REST warehouse calls (BigQuery, Snowflake).
Result<Json> MonitorMetrics(const config::Workspace& ws, store::StateStore& store, const Clock& clock,
                            const UnlearntWindows& unlearnt, const Json& args, HttpClient* http = nullptr);

}  // namespace dw::observe::metrics
