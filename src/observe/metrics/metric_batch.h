// Recording and judging many metrics at once, as one `dw watch` pass does for every monitor that
// returned a value: the same reports and verdicts, bit for bit, as RecordMetricPoints and
// JudgeLatestPoint (metric_service.h) called once per metric, which are these functions called
// with one metric. What changes is the store traffic: a constant number of statements per batch
// (store/metric_batches.h) instead of about a dozen per metric, which on PostgreSQL is the
// difference between 25 s and well under 2 s for 10,000 monitors.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "observe/metrics/metric_service.h"
#include "store/state_store.h"

namespace dw::observe::metrics {

// What a point offered at a timestamp that already holds a different value does.
enum class StoredValues {
  kReplace,  // the new value replaces it (a monitor re-reading its warehouse: late data settles)
  kKeep,     // the point is rejected and the stored value stays (an agent's write: what was
             // judged is evidence, and nothing an MCP tool writes may change it)
};

// The points offered for one metric.
struct MetricPointsToRecord {
  std::string metric;
  std::vector<IncomingPoint> points;
  StoredValues stored = StoredValues::kReplace;
};

// RecordMetricPoints of every entry: out[i] is entry i's report or its own error (a bad metric
// name, or a metric given twice in the batch: InvalidArgument for that entry alone, nothing of it
// stored). The points of all the others are read in one statement and written in one transaction;
// when that read or write fails, every entry that got that far fails with the store's error and
// none of their points is stored.
std::vector<Result<RecordReport>> RecordMetricPointsOfMany(store::StateStore& store,
                                                           const std::vector<MetricPointsToRecord>& batch);

// The default MetricToJudge::snapshot_every: a snapshot saved every 16 points a series is fed.
// JudgeLatestPoint (metric_service.h), which is JudgeLatestPoints of one metric, saves at this
// cadence too: after a replay always, after a resumed judgement on the metric's turn.
inline constexpr int kSnapshotEveryPoints = 16;

// A metric to judge, with its settings (SettingsForMetric / SettingsFromMonitor).
struct MetricToJudge {
  std::string metric;
  MonitorSettings settings;
  // How often a judgement that resumed from a snapshot saves a new one: when the points it fed
  // cross a multiple of this count, offset by a hash of the metric's name (so that the series of
  // a pass save in turn, about 1/snapshot_every of them a pass, instead of all in the same pass).
  // A judgement that replayed always saves. The verdicts are the same for any value (an older
  // snapshot only means feeding a few more points); 1 saves after every judgement, as
  // JudgeLatestPoint did before. docs/PERFORMANCE.md has the cost of each value ("Snapshot
  // cadence").
  int snapshot_every = kSnapshotEveryPoints;
};

// What UnlearntWindows answers, for many metrics in one call: for request i (metric i of asset
// i, "" when unknown) the windows overlapping [from, to), or request i's own error (which fails
// that metric's judgement alone). The answer has one entry per request.
struct UnlearntWindowsRequest {
  std::string metric;
  std::string asset_id;
  TimePoint from;
  TimePoint to;
};
using UnlearntWindowsOfMany = std::function<std::vector<Result<std::vector<UnlearntWindow>>>(
    const std::vector<UnlearntWindowsRequest>& requests)>;

// An UnlearntWindowsOfMany that asks `one` for each request in turn (for a provider that has no
// batch form; an empty `one` gives an empty function).
UnlearntWindowsOfMany EachOf(const UnlearntWindows& one);

// JudgeLatestPoint of every entry, at the clock's now: out[i] is entry i's judgement or its own
// error (NotFound when it has no point, a time zone that cannot be loaded, its windows' error),
// and one metric failing never stops the others. The marks, the windows (one call of `unlearnt`,
// which may be empty: none), the snapshots with their revisions and the points after them are read
// for the whole batch at once, and the new snapshots (of the metrics that replayed, and of those
// whose turn it is: snapshot_every) saved in one transaction; each save is still
// refused alone when its metric's history was rewritten since it was loaded. A failure of one of
// those batch reads fails every entry with the store's error (a failed snapshot load or save is
// logged and replays or is skipped, as in JudgeLatestPoint). A metric listed twice is judged twice.
std::vector<Result<MetricJudgement>> JudgeLatestPoints(store::StateStore& store,
                                                       const std::vector<MetricToJudge>& batch,
                                                       const Clock& clock,
                                                       const UnlearntWindowsOfMany& unlearnt);

}  // namespace dw::observe::metrics
