// Detector snapshots of SqlStateStore (declared in sql_state_store.h), and the history revision
// that makes a snapshot stale when points are rewritten under it.
#include <string>

#include "store/sql_cells.h"
#include "store/sql_metric_rows.h"
#include "store/sql_state_store.h"

namespace dw::store {

using Rows = std::vector<SqlRow>;

Result<MetricSnapshotLoad> SqlStateStore::LoadMetricSnapshot(const std::string& metric) {
  MetricSnapshotLoad out;
  Status s = Do(false, [&]() -> Status {
    // One statement: the revision and the snapshot are read at the same moment.
    Result<Rows> rows = RunBytes(
        "SELECT COALESCE((SELECT revision FROM metric_history WHERE metric = $1), 0), "
        "s.revision, s.from_ts, s.through_ts, s.state, s.written_at "
        "FROM (SELECT 1 AS one) AS o LEFT JOIN metric_snapshots AS s ON s.metric = $1",
        {metric});
    if (!rows.ok()) return rows.status();
    if (rows->size() != 1) return Internal("metric snapshot query returned " + std::to_string(rows->size()) + " rows");
    const SqlRow& row = (*rows)[0];
    RowReader r(row, "metric_snapshots");
    out.revision = r.Int();
    if (row.size() == 6 && std::holds_alternative<std::monostate>(row[1])) return r.status();
    auto snap = ReadMetricSnapshotRow(r, metric);
    if (!snap.ok()) return snap.status();
    out.snapshot = std::move(snap).value();
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Result<bool> SqlStateStore::SaveMetricSnapshot(const MetricSnapshotRecord& snap) {
  if (snap.metric.empty()) return InvalidArgument("metric snapshot: metric name must not be empty");
  bool saved = false;
  // A snapshot is a cache of what the points already say: losing the last one in a crash only
  // means resuming from the one before it (still valid) or replaying. So on PostgreSQL, outside
  // a caller's transaction, it is committed without waiting for the WAL flush, which would
  // otherwise double the fsyncs of every monitor run. On SQLite (WAL, synchronous=NORMAL) a commit
  // does not wait for a flush anyway, and one statement needs no transaction of its own.
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const bool async = conn_->backend() == "postgresql" && depth_ == 0;
  Status s = Do(async, [&]() -> Status {
    if (async) DW_RETURN_IF_ERROR(Run("SET LOCAL synchronous_commit TO off", {}).status());
    // Written only while the history is still at the revision it was learnt under, in the same
    // statement that checks it, so a rewrite committed meanwhile is never covered up.
    Result<Rows> rows = Run(
        "INSERT INTO metric_snapshots (metric, revision, from_ts, through_ts, state, written_at) "
        "SELECT $1, $2, $3, $4, $5, $6 "
        "WHERE COALESCE((SELECT revision FROM metric_history WHERE metric = $1), 0) = $2 "
        "ON CONFLICT (metric) DO UPDATE SET revision = excluded.revision, from_ts = excluded.from_ts, "
        "through_ts = excluded.through_ts, state = excluded.state, written_at = excluded.written_at "
        "RETURNING metric",
        {snap.metric, snap.revision, TimeCell(snap.from), TimeCell(snap.through),
         SqlBytes{snap.state}, TimeCell(clock_.Now())});
    if (!rows.ok()) return rows.status();
    saved = !rows->empty();
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return saved;
}

Status SqlStateStore::BumpMetricRevision(const std::string& metric) {
  return Run("INSERT INTO metric_history (metric, revision) VALUES ($1, 1) "
             "ON CONFLICT (metric) DO UPDATE SET revision = metric_history.revision + 1",
             {metric})
      .status();
}

}  // namespace dw::store
