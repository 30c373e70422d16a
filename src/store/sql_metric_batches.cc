// The metric statements of many metrics at once (store/metric_batches.h) of SqlStateStore.
//
// PostgreSQL: one statement per call, whatever the number of metrics, with the entries bound as
// array parameters (text arrays spelled as array literals, the snapshots' states as one BYTEA[] in
// binary form; unnested server-side WITH ORDINALITY so each row says which entry it answers). A round trip to the server costs far more than the
// statement, so this is what makes a pass of 10,000 monitors fit in seconds.
// SQLite: the single-metric statement, prepared once and cached, run for each entry: there is no
// round trip to save, and the single-metric statements are the ones the rest of the store uses.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "store/sql_cells.h"
#include "store/sql_metric_rows.h"
#include "store/sql_state_store.h"

namespace dw::store {
namespace {

using Rows = std::vector<SqlRow>;

// A PostgreSQL array literal of `items` as text elements: each double-quoted, with `"` and `\`
// escaped, so any text (a metric name with a comma, brace or quote) stays one element.
std::string TextArray(const std::vector<std::string>& items) {
  size_t size = 2;
  for (const std::string& item : items) size += item.size() + 3;
  std::string out;
  out.reserve(size);
  out += "{";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    out += '"';
    const std::string& item = items[i];
    if (item.find_first_of("\"\\") == std::string::npos) {
      out += item;  // the common case (names): copied whole, not a character at a time
    } else {
      for (char c : item) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
      }
    }
    out += '"';
  }
  return out + "}";
}

std::string IntArray(const std::vector<int64_t>& items) {
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + std::to_string(items[i]);
  return out + "}";
}

std::string RealArray(const std::vector<double>& items) {
  std::string out = "{";
  char buf[40];
  for (size_t i = 0; i < items.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%.17g", items[i]);  // round-trips every double exactly
    out += (i ? "," : "");
    out += buf;
  }
  return out + "}";
}

// The metrics, froms and tos of `ranges` as three array parameters.
std::vector<SqlValue> RangeParams(const std::vector<MetricRange>& ranges) {
  std::vector<std::string> metrics;
  std::vector<int64_t> from, to;
  for (const MetricRange& r : ranges) {
    metrics.push_back(r.metric);
    from.push_back(ToUnixMillis(r.from));
    to.push_back(ToUnixMillis(r.to));
  }
  return {TextArray(metrics), IntArray(from), IntArray(to)};
}

// The entry (1-based ordinality) a batch row answers, checked against the number of entries.
Result<size_t> EntryOf(RowReader& r, size_t entries, const char* table) {
  int64_t i = r.Int();
  if (!r.status().ok()) return r.status();
  if (i < 1 || static_cast<size_t>(i) > entries)
    return Internal(std::string("batch query on ") + table + " answered entry " + std::to_string(i) + " of " +
                    std::to_string(entries));
  return static_cast<size_t>(i - 1);
}

}  // namespace

Result<std::vector<std::vector<MetricPoint>>> SqlStateStore::MetricPointsOfMany(
    const std::vector<MetricRange>& ranges) {
  std::vector<std::vector<MetricPoint>> out(ranges.size());
  if (ranges.empty()) return out;
  if (conn_->backend() != "postgresql") {
    for (size_t i = 0; i < ranges.size(); ++i) {
      auto points = MetricPoints(ranges[i].metric, ranges[i].from, ranges[i].to);
      if (!points.ok()) return points.status();
      out[i] = std::move(points).value();
    }
    return out;
  }
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run(
        "SELECT q.i, p.ts, p.value FROM unnest($1::text[], $2::bigint[], $3::bigint[]) WITH ORDINALITY "
        "AS q(metric, from_ts, to_ts, i) JOIN metric_points AS p ON p.metric = q.metric "
        "AND p.ts >= q.from_ts AND p.ts < q.to_ts ORDER BY q.i, p.ts",
        RangeParams(ranges));
    if (!rows.ok()) return rows.status();
    for (const SqlRow& row : *rows) {
      RowReader r(row, "metric_points");
      auto entry = EntryOf(r, ranges.size(), "metric_points");
      if (!entry.ok()) return entry.status();
      MetricPoint p;
      p.ts = r.Time();
      p.value = r.Real();
      if (!r.status().ok()) return r.status();
      out[*entry].push_back(p);
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<std::vector<MetricMark>>> SqlStateStore::MetricMarksOfMany(
    const std::vector<MetricRange>& ranges) {
  std::vector<std::vector<MetricMark>> out(ranges.size());
  if (ranges.empty()) return out;
  if (conn_->backend() != "postgresql") {
    for (size_t i = 0; i < ranges.size(); ++i) {
      auto marks = MetricMarks(ranges[i].metric, ranges[i].from, ranges[i].to);
      if (!marks.ok()) return marks.status();
      out[i] = std::move(marks).value();
    }
    return out;
  }
  Status s = Do(false, [&]() -> Status {
    // The condition and order of MetricMarks, per entry.
    Result<Rows> rows = Run(
        "SELECT q.i, k.id, k.metric, k.from_ts, k.to_ts, k.note, k.created_at, k.author "
        "FROM unnest($1::text[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS q(metric, from_ts, to_ts, i) "
        "JOIN metric_marks AS k ON k.metric = q.metric AND k.from_ts <= q.to_ts AND k.to_ts >= q.from_ts "
        "ORDER BY q.i, k.from_ts, k.id",
        RangeParams(ranges));
    if (!rows.ok()) return rows.status();
    for (const SqlRow& row : *rows) {
      RowReader r(row, "metric_marks");
      auto entry = EntryOf(r, ranges.size(), "metric_marks");
      if (!entry.ok()) return entry.status();
      auto m = ReadMetricMarkRow(r);
      if (!m.ok()) return m.status();
      out[*entry].push_back(std::move(m).value());
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<Result<MetricSnapshotLoad>>> SqlStateStore::LoadMetricSnapshots(
    const std::vector<std::string>& metrics) {
  std::vector<Result<MetricSnapshotLoad>> out;
  out.reserve(metrics.size());
  if (metrics.empty()) return out;
  if (conn_->backend() != "postgresql") {
    for (const std::string& metric : metrics) {
      auto load = LoadMetricSnapshot(metric);
      // An unreadable row is that metric's problem; a failed statement is the store's.
      if (!load.ok() && load.status().code() != StatusCode::kDataLoss) return load.status();
      out.push_back(std::move(load));
    }
    return out;
  }
  std::vector<MetricSnapshotLoad> loads(metrics.size());
  std::vector<Status> errors(metrics.size());
  Status s = Do(false, [&]() -> Status {
    // One statement: every revision and snapshot read at the same moment.
    Result<Rows> rows = RunBytes(
        "SELECT q.i, COALESCE(h.revision, 0), s.revision, s.from_ts, s.through_ts, s.state, s.written_at "
            "FROM unnest($1::text[]) WITH ORDINALITY AS q(metric, i) "
            "LEFT JOIN metric_history AS h ON h.metric = q.metric "
            "LEFT JOIN metric_snapshots AS s ON s.metric = q.metric",
        {TextArray(metrics)});
    if (!rows.ok()) return rows.status();
    if (rows->size() != metrics.size())
      return Internal("metric snapshot batch query returned " + std::to_string(rows->size()) + " rows for " +
                      std::to_string(metrics.size()) + " metrics");
    for (const SqlRow& row : *rows) {
      RowReader r(row, "metric_snapshots");
      auto entry = EntryOf(r, metrics.size(), "metric_snapshots");
      if (!entry.ok()) return entry.status();
      const std::string& metric = metrics[*entry];
      MetricSnapshotLoad load;
      load.revision = r.Int();
      if (row.size() == 7 && std::holds_alternative<std::monostate>(row[2])) {
        errors[*entry] = r.status();
        loads[*entry] = std::move(load);
        continue;
      }
      auto snap = ReadMetricSnapshotRow(r, metric);
      if (!snap.ok()) {
        errors[*entry] = snap.status();
        continue;
      }
      load.snapshot = std::move(snap).value();
      loads[*entry] = std::move(load);
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  for (size_t i = 0; i < metrics.size(); ++i) {
    if (errors[i].ok()) out.emplace_back(std::move(loads[i]));
    else out.emplace_back(errors[i]);
  }
  return out;
}

Result<std::vector<bool>> SqlStateStore::SaveMetricSnapshots(const std::vector<MetricSnapshotRecord>& snapshots) {
  std::vector<bool> out(snapshots.size(), false);
  for (const MetricSnapshotRecord& snap : snapshots)
    if (snap.metric.empty()) return InvalidArgument("metric snapshot: metric name must not be empty");
  if (snapshots.empty()) return out;
  // The last entry of each metric is the one offered (one row can be written once per statement).
  std::map<std::string, size_t> last;
  for (size_t i = 0; i < snapshots.size(); ++i) last[snapshots[i].metric] = i;
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (conn_->backend() != "postgresql") {
    Status s = Do(true, [&]() -> Status {
      for (const auto& [metric, i] : last) {
        auto saved = SaveMetricSnapshot(snapshots[i]);
        if (!saved.ok()) return saved.status();
        out[i] = *saved;
      }
      return Status::Ok();
    });
    if (!s.ok()) return s;  // rolled back: none stored
    return out;
  }
  // A cache of what the points say, committed without waiting for the WAL flush outside a
  // caller's transaction (see SaveMetricSnapshot).
  const bool async = depth_ == 0;
  // The entries in statements of at most kSaveChunkBytes of state each (one BYTEA[] parameter,
  // which the server must hold whole: well under its 1 GB limit on a value).
  constexpr size_t kSaveChunkBytes = 64u << 20;
  std::vector<std::vector<size_t>> chunks(1);
  size_t chunk_bytes = 0;
  for (const auto& [metric, i] : last) {
    const size_t bytes = snapshots[i].state.size() + metric.size();
    if (!chunks.back().empty() && chunk_bytes + bytes > kSaveChunkBytes) {
      chunks.emplace_back();
      chunk_bytes = 0;
    }
    chunks.back().push_back(i);
    chunk_bytes += bytes;
  }
  Status s = Do(true, [&]() -> Status {
    if (async) DW_RETURN_IF_ERROR(Run("SET LOCAL synchronous_commit TO off", {}).status());
    for (const std::vector<size_t>& chunk : chunks) {
      std::vector<std::string> metrics;
      SqlBytesArray states;
      std::vector<int64_t> revisions, from, through;
      for (size_t i : chunk) {
        metrics.push_back(snapshots[i].metric);
        revisions.push_back(snapshots[i].revision);
        from.push_back(ToUnixMillis(snapshots[i].from));
        through.push_back(ToUnixMillis(snapshots[i].through));
        states.items.push_back(snapshots[i].state);
      }
      std::vector<SqlValue> params;
      params.reserve(6);
      params.emplace_back(TextArray(metrics));
      params.emplace_back(IntArray(revisions));
      params.emplace_back(IntArray(from));
      params.emplace_back(IntArray(through));
      params.emplace_back(std::move(states));
      params.emplace_back(TimeCell(clock_.Now()));
      // Each row written only while its history is still at the revision it was learnt under, in
      // the statement that checks it (as SaveMetricSnapshot).
      Result<Rows> rows = Run(
          "INSERT INTO metric_snapshots (metric, revision, from_ts, through_ts, state, written_at) "
          "SELECT q.metric, q.revision, q.from_ts, q.through_ts, q.state, $6::bigint "
          "FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bytea[]) "
          "AS q(metric, revision, from_ts, through_ts, state) "
          "WHERE COALESCE((SELECT h.revision FROM metric_history AS h WHERE h.metric = q.metric), 0) = q.revision "
          "ON CONFLICT (metric) DO UPDATE SET revision = excluded.revision, from_ts = excluded.from_ts, "
          "through_ts = excluded.through_ts, state = excluded.state, written_at = excluded.written_at "
          "RETURNING metric",
          params);
      if (!rows.ok()) return rows.status();
      for (const SqlRow& row : *rows) {
        RowReader r(row, "metric_snapshots");
        std::string metric = r.Text();
        if (!r.status().ok()) return r.status();
        auto found = last.find(metric);
        if (found == last.end()) return Internal("metric snapshot batch saved an unknown metric " + metric);
        out[found->second] = true;
      }
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Status SqlStateStore::UpsertMetricPointsOfMany(const std::vector<MetricPointsWrite>& writes) {
  std::set<std::string> seen;
  for (const MetricPointsWrite& w : writes) {
    if (w.metric.empty()) return InvalidArgument("metric name must not be empty");
    if (!seen.insert(w.metric).second)
      return InvalidArgument("metric " + w.metric + " is written twice in one batch; give its points once");
    for (size_t i = 0; i < w.points.size(); ++i)
      if (!std::isfinite(w.points[i].value))
        return InvalidArgument("metric " + w.metric + " point " + std::to_string(i) + " at " +
                               FormatRfc3339(w.points[i].ts) + " is not a finite number");
  }
  if (conn_->backend() != "postgresql") {
    return Do(true, [&]() -> Status {
      for (const MetricPointsWrite& w : writes) DW_RETURN_IF_ERROR(UpsertMetricPoints(w.metric, w.points));
      return Status::Ok();
    });
  }
  // Per metric: the earliest time written (for the revision bump) and its points, the last one at
  // a timestamp kept (as UpsertMetricPoints, which writes them in order).
  std::vector<std::string> bump_metrics, point_metrics;
  std::vector<int64_t> earliest, ts;
  std::vector<double> values;
  for (const MetricPointsWrite& w : writes) {
    if (w.points.empty()) continue;
    std::map<int64_t, double> by_ts;
    for (const MetricPoint& p : w.points) by_ts[ToUnixMillis(p.ts)] = p.value;
    bump_metrics.push_back(w.metric);
    earliest.push_back(by_ts.begin()->first);
    for (const auto& [t, v] : by_ts) {
      point_metrics.push_back(w.metric);
      ts.push_back(t);
      values.push_back(v);
    }
  }
  if (bump_metrics.empty()) return Status::Ok();
  return Do(true, [&]() -> Status {
    // A point at or before a metric's latest stored one rewrites the past a snapshot may have
    // learnt: the bump of UpsertMetricPoints, for every metric in one statement, before the write.
    DW_RETURN_IF_ERROR(
        Run("INSERT INTO metric_history (metric, revision) SELECT q.metric, 1 "
            "FROM unnest($1::text[], $2::bigint[]) AS q(metric, earliest) WHERE EXISTS "
            "(SELECT 1 FROM metric_points AS p WHERE p.metric = q.metric AND p.ts >= q.earliest) "
            "ON CONFLICT (metric) DO UPDATE SET revision = metric_history.revision + 1",
            {TextArray(bump_metrics), IntArray(earliest)})
            .status());
    return Run("INSERT INTO metric_points (metric, ts, value) "
               "SELECT * FROM unnest($1::text[], $2::bigint[], $3::float8[]) "
               "ON CONFLICT (metric, ts) DO UPDATE SET value = excluded.value",
               {TextArray(point_metrics), IntArray(ts), RealArray(values)})
        .status();
  });
}

}  // namespace dw::store
