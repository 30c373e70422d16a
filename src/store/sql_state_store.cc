#include "store/sql_state_store.h"

#include "store/clock_kind.h"

#include <algorithm>
#include <cmath>
#include <exception>

#include "base/redaction.h"
#include "store/clock_kind.h"
#include "store/migrate.h"
#include "store/sql_cells.h"
#include "store/sql_metric_rows.h"

namespace dw::store {
namespace {

using Rows = std::vector<SqlRow>;

constexpr const char* kCheckColumns =
    "id, run_id, table_ref, check_name, status, observed, threshold, rows_scanned, duration_ms, "
    "message, observed_at, seq";
constexpr const char* kEventColumns =
    "id, dedup_key, asset_id, kind, happened_at, observed_at, evidence, risk, reason, seq";
constexpr const char* kIncidentColumns =
    "id, status, title, asset_id, opened_at, updated_at, closed_at, body";

std::string Sql(const char* head, const char* columns, const char* tail) {
  return std::string(head) + columns + tail;
}

Result<CheckResultRow> DecodeCheck(const SqlRow& row) {
  RowReader r(row, "check_results");
  CheckResultRow c;
  c.id = r.Int();
  c.run_id = r.Text();
  c.table_ref = r.Text();
  c.check_name = r.Text();
  std::string status = r.Text();
  c.observed = r.JsonText();
  c.threshold = r.JsonText();
  c.rows_scanned = r.Int();
  c.duration_ms = r.Int();
  c.message = r.Text();
  c.observed_at = r.Time();
  c.seq = r.Int();
  if (!r.status().ok()) return r.status();
  std::optional<CheckStatus> parsed = ParseCheckStatus(status);
  if (!parsed) return DataLoss("unexpected check status '" + status + "' in check_results");
  c.status = *parsed;
  return c;
}

Result<ChangeEvent> DecodeEvent(const SqlRow& row) {
  RowReader r(row, "change_events");
  ChangeEvent e;
  e.id = r.Int();
  e.dedup_key = r.Text();
  e.asset_id = r.Text();
  e.kind = r.Text();
  e.happened_at = r.Time();
  e.observed_at = r.Time();
  e.evidence = r.JsonText();
  e.risk = r.Real();
  e.reason = r.Text();
  e.seq = r.Int();
  if (!r.status().ok()) return r.status();
  return e;
}

Result<GraphAsset> DecodeAsset(const SqlRow& row) {
  RowReader r(row, "graph_assets");
  GraphAsset a;
  a.id = r.Text();
  a.kind = r.Text();
  a.domain = r.Text();
  a.owner = r.Text();
  a.attrs = r.JsonText();
  a.updated_at = r.Time();
  if (!r.status().ok()) return r.status();
  return a;
}

Result<GraphEdge> DecodeEdge(const SqlRow& row) {
  RowReader r(row, "graph_edges");
  GraphEdge e;
  e.src = r.Text();
  e.dst = r.Text();
  e.relation = r.Text();
  e.origin = r.Text();
  e.attrs = r.JsonText();
  e.updated_at = r.Time();
  if (!r.status().ok()) return r.status();
  return e;
}

Result<IncidentRecord> DecodeIncident(const SqlRow& row) {
  RowReader r(row, "incidents");
  IncidentRecord i;
  i.id = r.Text();
  i.status = r.Text();
  i.title = r.Text();
  i.asset_id = r.Text();
  i.opened_at = r.Time();
  i.updated_at = r.Time();
  i.closed_at = r.OptionalTime();
  i.body = r.JsonText();
  if (!r.status().ok()) return r.status();
  return i;
}

Result<ReceiptRecord> DecodeReceipt(const SqlRow& row) {
  RowReader r(row, "receipts");
  ReceiptRecord rec;
  rec.seq = r.Int();
  rec.prev_hash = r.Text();
  rec.hash = r.Text();
  rec.body = r.Text();
  rec.written_at = r.Time();
  if (!r.status().ok()) return r.status();
  return rec;
}

// Decodes every row with `decode` into `out`, stopping at the first failure.
template <typename T, typename Decode>
Status DecodeAll(const Rows& rows, Decode decode, std::vector<T>& out) {
  out.reserve(rows.size());
  for (const SqlRow& row : rows) {
    Result<T> item = decode(row);
    if (!item.ok()) return item.status();
    out.push_back(std::move(item).value());
  }
  return Status::Ok();
}

Status RequirePositive(int limit) {
  if (limit <= 0) return InvalidArgument("limit must be positive, got " + std::to_string(limit));
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<StateStore>> SqlStateStore::Open(std::unique_ptr<SqlConnection> conn,
                                                        std::span<const Migration> migrations,
                                                        const Clock& clock, bool simulated_clock) {
  Result<int> version = ApplyMigrations(*conn, migrations, clock, simulated_clock);
  if (!version.ok()) return version.status();
  return std::unique_ptr<StateStore>(new SqlStateStore(std::move(conn), *version, clock));
}

Status SqlStateStore::Do(bool write, const std::function<Status()>& body) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (depth_ > 0 || !write) {
    Status s = body();
    if (!s.ok() && depth_ > 0 && tx_error_.ok()) tx_error_ = s;
    return s;
  }
  DW_RETURN_IF_ERROR(conn_->Begin());
  depth_ = 1;
  tx_error_ = Status::Ok();
  Status s;
  try {
    s = body();
  } catch (const std::exception& e) {
    // A transaction body is caller code; an exception from it must not leave the transaction open.
    s = Internal(std::string("state store transaction body threw: ") + e.what());
  }
  depth_ = 0;
  if (s.ok()) s = tx_error_;
  tx_error_ = Status::Ok();
  if (!s.ok()) {
    conn_->Rollback();  // best effort: the failure that caused it is the one worth reporting
    return s;
  }
  Status committed = conn_->Commit();
  if (!committed.ok()) conn_->Rollback();
  return committed;
}

Result<Rows> SqlStateStore::Run(const std::string& sql, const std::vector<SqlValue>& params) {
  Result<Rows> rows = conn_->Query(sql, params);
  if (!rows.ok() && depth_ > 0 && tx_error_.ok()) tx_error_ = rows.status();
  return rows;
}

Result<Rows> SqlStateStore::RunBytes(const std::string& sql, const std::vector<SqlValue>& params) {
  Result<Rows> rows = conn_->QueryBytes(sql, params);
  if (!rows.ok() && depth_ > 0 && tx_error_.ok()) tx_error_ = rows.status();
  return rows;
}

Status SqlStateStore::InTransaction(const std::function<Status(StateStore&)>& body) {
  return Do(true, [&] { return body(*this); });
}

// ---- check results ----

Status SqlStateStore::RecordCheckResults(const std::vector<CheckResultRow>& rows) {
  if (rows.empty()) return Status::Ok();
  return Do(true, [&]() -> Status {
    for (const CheckResultRow& c : rows) {
      DW_RETURN_IF_ERROR(
          Run("INSERT INTO check_results (run_id, table_ref, check_name, status, observed, "
              "threshold, rows_scanned, duration_ms, message, observed_at) "
              "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
              {c.run_id, c.table_ref, c.check_name, std::string(CheckStatusName(c.status)),
               RedactedJsonCell(c.observed), RedactedJsonCell(c.threshold), c.rows_scanned,
               c.duration_ms, ProseCell(c.message), TimeCell(c.observed_at)})
              .status());
    }
    return Status::Ok();
  });
}

Result<std::vector<CheckResultRow>> SqlStateStore::CheckResultsFor(const std::string& table_ref,
                                                                   int limit) {
  DW_RETURN_IF_ERROR(RequirePositive(limit));
  std::vector<CheckResultRow> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run(Sql("SELECT ", kCheckColumns,
                                " FROM check_results WHERE table_ref = $1 "
                                "ORDER BY observed_at DESC, id DESC LIMIT $2"),
                            {table_ref, int64_t{limit}});
    if (!rows.ok()) return rows.status();
    return DecodeAll(*rows, DecodeCheck, out);
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::optional<CheckResultRow>> SqlStateStore::LatestCheckResult(
    const std::string& table_ref, const std::string& check_name) {
  std::vector<CheckResultRow> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run(Sql("SELECT ", kCheckColumns,
                                " FROM check_results WHERE table_ref = $1 AND check_name = $2 "
                                "ORDER BY observed_at DESC, id DESC LIMIT 1"),
                            {table_ref, check_name});
    if (!rows.ok()) return rows.status();
    return DecodeAll(*rows, DecodeCheck, out);
  });
  if (!s.ok()) return s;
  if (out.empty()) return std::optional<CheckResultRow>();
  return std::optional<CheckResultRow>(std::move(out[0]));
}

Result<std::vector<CheckResultRow>> SqlStateStore::CheckResultsOfRun(const std::string& run_id) {
  std::vector<CheckResultRow> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows =
        Run(Sql("SELECT ", kCheckColumns, " FROM check_results WHERE run_id = $1 ORDER BY id"),
            {run_id});
    if (!rows.ok()) return rows.status();
    return DecodeAll(*rows, DecodeCheck, out);
  });
  if (!s.ok()) return s;
  return out;
}

// ---- metric points ----

Status SqlStateStore::UpsertMetricPoints(const std::string& metric,
                                         const std::vector<MetricPoint>& points) {
  if (metric.empty()) return InvalidArgument("metric name must not be empty");
  for (size_t i = 0; i < points.size(); ++i) {
    // SQLite would store NaN as NULL and PostgreSQL as NaN: refuse both so the backends agree.
    if (!std::isfinite(points[i].value)) {
      return InvalidArgument("metric " + metric + " point " + std::to_string(i) + " at " +
                             FormatRfc3339(points[i].ts) + " is not a finite number");
    }
  }
  if (points.empty()) return Status::Ok();
  return Do(true, [&]() -> Status {
    // A point at or before the latest stored one rewrites the past a snapshot may have learnt.
    TimePoint earliest = points.front().ts;
    for (const MetricPoint& p : points) earliest = std::min(earliest, p.ts);
    Result<Rows> latest = Run(
        "SELECT 1 FROM metric_points WHERE metric = $1 AND ts >= $2 LIMIT 1", {metric, TimeCell(earliest)});
    if (!latest.ok()) return latest.status();
    if (!latest->empty()) DW_RETURN_IF_ERROR(BumpMetricRevision(metric));
    for (const MetricPoint& p : points) {
      DW_RETURN_IF_ERROR(Run("INSERT INTO metric_points (metric, ts, value) VALUES ($1, $2, $3) "
                             "ON CONFLICT (metric, ts) DO UPDATE SET value = excluded.value",
                             {metric, TimeCell(p.ts), p.value})
                             .status());
    }
    return Status::Ok();
  });
}

Result<std::vector<MetricPoint>> SqlStateStore::MetricPoints(const std::string& metric,
                                                             TimePoint from, TimePoint to) {
  std::vector<MetricPoint> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows =
        Run("SELECT ts, value FROM metric_points WHERE metric = $1 AND ts >= $2 AND ts < $3 "
            "ORDER BY ts",
            {metric, TimeCell(from), TimeCell(to)});
    if (!rows.ok()) return rows.status();
    return DecodeAll(
        *rows,
        [](const SqlRow& row) -> Result<MetricPoint> {
          RowReader r(row, "metric_points");
          MetricPoint p;
          p.ts = r.Time();
          p.value = r.Real();
          if (!r.status().ok()) return r.status();
          return p;
        },
        out);
  });
  if (!s.ok()) return s;
  return out;
}

Result<int64_t> SqlStateStore::DeleteMetricPointsBefore(const std::string& metric,
                                                        TimePoint before) {
  int64_t deleted = 0;
  Status s = Do(true, [&]() -> Status {
    // Counted first, in the same transaction, so the figure is what the DELETE removes.
    Result<Rows> count =
        Run("SELECT COUNT(*) FROM metric_points WHERE metric = $1 AND ts < $2", {metric, TimeCell(before)});
    if (!count.ok()) return count.status();
    RowReader r((*count)[0], "metric_points");
    deleted = r.Int();
    if (!r.status().ok()) return r.status();
    if (deleted == 0) return Status::Ok();
    // Deleting points a snapshot learnt from (its history starts before `before`) makes it stale.
    Result<Rows> snap = Run("SELECT 1 FROM metric_snapshots WHERE metric = $1 AND from_ts < $2",
                            {metric, TimeCell(before)});
    if (!snap.ok()) return snap.status();
    if (!snap->empty()) DW_RETURN_IF_ERROR(BumpMetricRevision(metric));
    return Run("DELETE FROM metric_points WHERE metric = $1 AND ts < $2", {metric, TimeCell(before)})
        .status();
  });
  if (!s.ok()) return s;
  return deleted;
}

Result<std::vector<std::string>> SqlStateStore::MetricNames() {
  std::vector<std::string> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run("SELECT DISTINCT metric FROM metric_points ORDER BY metric", {});
    if (!rows.ok()) return rows.status();
    return DecodeAll(
        *rows,
        [](const SqlRow& row) -> Result<std::string> {
          RowReader r(row, "metric_points");
          std::string name = r.Text();
          if (!r.status().ok()) return r.status();
          return name;
        },
        out);
  });
  if (!s.ok()) return s;
  return out;
}

// ---- metric marks ----

Result<int64_t> SqlStateStore::AddMetricMark(const MetricMark& m) {
  if (m.metric.empty()) return InvalidArgument("metric mark: metric name must not be empty");
  if (m.from > m.to)
    return InvalidArgument("metric mark on " + m.metric + ": from " + FormatRfc3339(m.from) +
                           " is after to " + FormatRfc3339(m.to));
  if (m.author.empty())
    return InvalidArgument("metric mark on " + m.metric + ": a mark names the person who made it (author is empty)");
  int64_t id = 0;
  Status s = Do(true, [&]() -> Status {
    Result<Rows> rows =
        Run("INSERT INTO metric_marks (metric, from_ts, to_ts, note, created_at, author) "
            "VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
            {m.metric, TimeCell(m.from), TimeCell(m.to), ProseCell(m.note), TimeCell(clock_.Now()),
             ProseCell(m.author)});
    if (!rows.ok()) return rows.status();
    if (rows->size() != 1) return Internal("metric mark insert returned no id");
    RowReader r((*rows)[0], "metric_marks");
    id = r.Int();
    return r.status();
  });
  if (!s.ok()) return s;
  return id;
}

Result<std::vector<MetricMark>> SqlStateStore::MetricMarks(const std::string& metric,
                                                           TimePoint from, TimePoint to) {
  std::vector<MetricMark> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows =
        Run("SELECT id, metric, from_ts, to_ts, note, created_at, author FROM metric_marks "
            "WHERE metric = $1 AND from_ts <= $3 AND to_ts >= $2 ORDER BY from_ts, id",
            {metric, TimeCell(from), TimeCell(to)});
    if (!rows.ok()) return rows.status();
    return DecodeAll(
        *rows,
        [](const SqlRow& row) -> Result<MetricMark> {
          RowReader r(row, "metric_marks");
          return ReadMetricMarkRow(r);
        },
        out);
  });
  if (!s.ok()) return s;
  return out;
}

// ---- change events ----

Result<bool> SqlStateStore::AddChangeEvent(const ChangeEvent& e) {
  if (e.dedup_key.empty()) return InvalidArgument("change event dedup_key must not be empty");
  if (!std::isfinite(e.risk)) {
    return InvalidArgument("change event " + e.dedup_key + " has a risk that is not finite");
  }
  bool inserted = false;
  Status s = Do(true, [&]() -> Status {
    // DO NOTHING plus RETURNING yields a row only when the event is new; no failed statement, so
    // a duplicate never dooms an enclosing transaction.
    Result<Rows> rows =
        Run("INSERT INTO change_events (dedup_key, asset_id, kind, happened_at, observed_at, "
            "evidence, risk, reason) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
            "ON CONFLICT (dedup_key) DO NOTHING RETURNING id",
            {e.dedup_key, e.asset_id, e.kind, TimeCell(e.happened_at), TimeCell(e.observed_at),
             RedactedJsonCell(e.evidence), e.risk, ProseCell(e.reason)});
    if (!rows.ok()) return rows.status();
    inserted = !rows->empty();
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return inserted;
}

Result<std::vector<ChangeEvent>> SqlStateStore::ChangeEventsFor(const std::string& asset_id,
                                                                TimePoint from, TimePoint to) {
  std::vector<ChangeEvent> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run(Sql("SELECT ", kEventColumns,
                                " FROM change_events WHERE asset_id = $1 AND happened_at >= $2 "
                                "AND happened_at < $3 ORDER BY happened_at, id"),
                            {asset_id, TimeCell(from), TimeCell(to)});
    if (!rows.ok()) return rows.status();
    return DecodeAll(*rows, DecodeEvent, out);
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<ChangeEvent>> SqlStateStore::ChangeEventsBetween(TimePoint from, TimePoint to) {
  std::vector<ChangeEvent> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run(Sql("SELECT ", kEventColumns,
                                " FROM change_events WHERE happened_at >= $1 AND happened_at < $2 "
                                "ORDER BY happened_at, id"),
                            {TimeCell(from), TimeCell(to)});
    if (!rows.ok()) return rows.status();
    return DecodeAll(*rows, DecodeEvent, out);
  });
  if (!s.ok()) return s;
  return out;
}

// ---- the commit sequence (migrations 12-14 stamp it) ----

Result<int64_t> SqlStateStore::CommittedSeq() {
  int64_t out = 0;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run("SELECT n FROM commit_seq WHERE id = 1", {});
    if (!rows.ok()) return rows.status();
    if (rows->size() != 1) return DataLoss("commit_seq holds " + std::to_string(rows->size()) + " rows, not 1");
    RowReader r((*rows)[0], "commit_seq");
    out = r.Int();
    return r.status();
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<ChangeEvent>> SqlStateStore::ChangeEventsCommitted(int64_t after, int64_t through) {
  std::vector<ChangeEvent> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run(Sql("SELECT ", kEventColumns,
                                " FROM change_events WHERE seq > $1 AND seq <= $2 ORDER BY seq, id"),
                            {after, through});
    if (!rows.ok()) return rows.status();
    return DecodeAll(*rows, DecodeEvent, out);
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<std::string>> SqlStateStore::MetricsWithLatestPointCommitted(int64_t after, int64_t through) {
  std::vector<std::string> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run(
        "SELECT DISTINCT p.metric FROM metric_points AS p WHERE p.seq > $1 AND p.seq <= $2 "
        "AND NOT EXISTS (SELECT 1 FROM metric_points AS q WHERE q.metric = p.metric AND q.ts > p.ts) "
        "ORDER BY p.metric",
        {after, through});
    if (!rows.ok()) return rows.status();
    for (const SqlRow& row : *rows) {
      RowReader r(row, "metric_points");
      out.push_back(r.Text());
      if (!r.status().ok()) return r.status();
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

// ---- cursors ----

Result<std::optional<std::string>> SqlStateStore::GetCursor(const std::string& name) {
  std::optional<std::string> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run("SELECT value FROM kv_cursors WHERE name = $1", {name});
    if (!rows.ok()) return rows.status();
    if (rows->empty()) return Status::Ok();
    RowReader r((*rows)[0], "kv_cursors");
    out = r.Text();
    return r.status();
  });
  if (!s.ok()) return s;
  return out;
}

Status SqlStateStore::SetCursor(const std::string& name, const std::string& value) {
  if (name.empty()) return InvalidArgument("cursor name must not be empty");
  // Written once, when the store is created (ApplyMigrations): a store never becomes simulated.
  if (name == kStoreClockCursor)
    return PermissionDenied(std::string("cursor '") + kStoreClockCursor + "' is set only when the store is created");
  return Do(true, [&]() -> Status {
    return Run("INSERT INTO kv_cursors (name, value, updated_at) VALUES ($1, $2, $3) "
               "ON CONFLICT (name) DO UPDATE SET value = excluded.value, "
               "updated_at = excluded.updated_at",
               {name, value, TimeCell(clock_.Now())})
        .status();
  });
}

// ---- context graph ----

Status SqlStateStore::UpsertAssets(const std::vector<GraphAsset>& assets) {
  if (assets.empty()) return Status::Ok();
  return Do(true, [&]() -> Status {
    SqlValue now = TimeCell(clock_.Now());
    for (const GraphAsset& a : assets) {
      DW_RETURN_IF_ERROR(
          Run("INSERT INTO graph_assets (id, kind, domain, owner, attrs, updated_at) "
              "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO UPDATE SET "
              "kind = excluded.kind, domain = excluded.domain, owner = excluded.owner, "
              "attrs = excluded.attrs, updated_at = excluded.updated_at",
              {a.id, a.kind, a.domain, a.owner, JsonCell(a.attrs), now})
              .status());
    }
    return Status::Ok();
  });
}

Result<std::optional<GraphAsset>> SqlStateStore::GetAsset(const std::string& id) {
  std::optional<GraphAsset> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run(
        "SELECT id, kind, domain, owner, attrs, updated_at FROM graph_assets WHERE id = $1", {id});
    if (!rows.ok()) return rows.status();
    if (rows->empty()) return Status::Ok();
    Result<GraphAsset> asset = DecodeAsset((*rows)[0]);
    if (!asset.ok()) return asset.status();
    out = std::move(asset).value();
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<GraphAsset>> SqlStateStore::Assets() {
  std::vector<GraphAsset> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows =
        Run("SELECT id, kind, domain, owner, attrs, updated_at FROM graph_assets ORDER BY id", {});
    if (!rows.ok()) return rows.status();
    return DecodeAll(*rows, DecodeAsset, out);
  });
  if (!s.ok()) return s;
  return out;
}

Status SqlStateStore::UpsertEdges(const std::vector<GraphEdge>& edges) {
  if (edges.empty()) return Status::Ok();
  return Do(true, [&]() -> Status {
    SqlValue now = TimeCell(clock_.Now());
    for (const GraphEdge& e : edges) {
      DW_RETURN_IF_ERROR(
          Run("INSERT INTO graph_edges (src, dst, relation, origin, attrs, updated_at) "
              "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (src, dst, relation) DO UPDATE SET "
              "origin = excluded.origin, attrs = excluded.attrs, updated_at = excluded.updated_at",
              {e.src, e.dst, e.relation, e.origin, JsonCell(e.attrs), now})
              .status());
    }
    return Status::Ok();
  });
}

Result<std::vector<GraphEdge>> SqlStateStore::Edges() {
  std::vector<GraphEdge> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows =
        Run("SELECT src, dst, relation, origin, attrs, updated_at FROM graph_edges "
            "ORDER BY src, dst, relation",
            {});
    if (!rows.ok()) return rows.status();
    return DecodeAll(*rows, DecodeEdge, out);
  });
  if (!s.ok()) return s;
  return out;
}

// Text of a cell read as text (an empty view for anything else; the columns scanned are NOT NULL
// TEXT).
static std::string_view TextView(const SqlValue& v) {
  const std::string* s = std::get_if<std::string>(&v);
  return s ? std::string_view(*s) : std::string_view();
}

Status SqlStateStore::ScanAssets(const std::function<Status(const GraphAssetView&)>& fn) {
  return Do(false, [&]() -> Status {
    return conn_->QueryEach("SELECT id, kind, domain, owner, attrs FROM graph_assets ORDER BY id", {},
                            [&](const SqlRow& r) -> Status {
                              if (r.size() != 5) return DataLoss("graph_assets: unexpected columns");
                              return fn({TextView(r[0]), TextView(r[1]), TextView(r[2]), TextView(r[3]),
                                         TextView(r[4])});
                            });
  });
}

Status SqlStateStore::ScanEdges(const std::function<Status(const GraphEdgeView&)>& fn) {
  return Do(false, [&]() -> Status {
    return conn_->QueryEach("SELECT src, dst, relation, attrs FROM graph_edges ORDER BY src, dst, relation", {},
                            [&](const SqlRow& r) -> Status {
                              if (r.size() != 4) return DataLoss("graph_edges: unexpected columns");
                              return fn({TextView(r[0]), TextView(r[1]), TextView(r[2]), TextView(r[3])});
                            });
  });
}

// ---- incidents ----

Status SqlStateStore::PutIncident(const IncidentRecord& i) {
  if (i.id.empty()) return InvalidArgument("incident id must not be empty");
  SqlValue closed = i.closed_at ? TimeCell(*i.closed_at) : SqlValue{};
  return Do(true, [&]() -> Status {
    return Run("INSERT INTO incidents (id, status, title, asset_id, opened_at, updated_at, "
               "closed_at, body) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
               "ON CONFLICT (id) DO UPDATE SET status = excluded.status, "
               "title = excluded.title, asset_id = excluded.asset_id, "
               "opened_at = excluded.opened_at, updated_at = excluded.updated_at, "
               "closed_at = excluded.closed_at, body = excluded.body",
               {i.id, i.status, ProseCell(i.title), i.asset_id, TimeCell(i.opened_at),
                TimeCell(i.updated_at), closed, RedactedJsonCell(i.body)})
        .status();
  });
}

Result<std::optional<IncidentRecord>> SqlStateStore::GetIncident(const std::string& id) {
  std::optional<IncidentRecord> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows =
        Run(Sql("SELECT ", kIncidentColumns, " FROM incidents WHERE id = $1"), {id});
    if (!rows.ok()) return rows.status();
    if (rows->empty()) return Status::Ok();
    Result<IncidentRecord> incident = DecodeIncident((*rows)[0]);
    if (!incident.ok()) return incident.status();
    out = std::move(incident).value();
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<IncidentRecord>> SqlStateStore::Incidents(const std::string& status, int limit) {
  DW_RETURN_IF_ERROR(RequirePositive(limit));
  std::vector<IncidentRecord> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows =
        status.empty()
            ? Run(Sql("SELECT ", kIncidentColumns,
                      " FROM incidents ORDER BY opened_at DESC, id LIMIT $1"),
                  {int64_t{limit}})
            : Run(Sql("SELECT ", kIncidentColumns,
                      " FROM incidents WHERE status = $1 ORDER BY opened_at DESC, id LIMIT $2"),
                  {status, int64_t{limit}});
    if (!rows.ok()) return rows.status();
    return DecodeAll(*rows, DecodeIncident, out);
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<IncidentRecord>> SqlStateStore::IncidentsOverlapping(TimePoint from,
                                                                       TimePoint to) {
  std::vector<IncidentRecord> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows =
        Run(Sql("SELECT ", kIncidentColumns,
                " FROM incidents WHERE opened_at < $2 AND (closed_at IS NULL OR closed_at > $1) "
                "ORDER BY opened_at, id"),
            {TimeCell(from), TimeCell(to)});
    if (!rows.ok()) return rows.status();
    return DecodeAll(*rows, DecodeIncident, out);
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<std::string>> SqlStateStore::IncidentIdsToSweep(const std::string& status, int limit,
                                                                  TimePoint closed_after) {
  DW_RETURN_IF_ERROR(RequirePositive(limit));
  std::vector<std::string> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run(
        "SELECT id FROM incidents WHERE status = $1 AND (closed_at > $2 OR id IN "
        "(SELECT id FROM incidents WHERE status = $1 ORDER BY opened_at DESC, id LIMIT $3)) "
        "ORDER BY opened_at DESC, id",
        {status, TimeCell(closed_after), int64_t{limit}});
    if (!rows.ok()) return rows.status();
    for (const auto& row : *rows) {
      RowReader r(row, "incidents");
      out.push_back(r.Text());
      DW_RETURN_IF_ERROR(r.status());
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

// ---- receipts ----

Result<int64_t> SqlStateStore::AppendReceipt(const std::string& prev_hash, const std::string& hash,
                                             const std::string& body) {
  if (hash.empty()) return InvalidArgument("receipt hash must not be empty");
  // A receipt is stored byte for byte as it was hashed, so it cannot be redacted here: the writer
  // redacts its content before hashing (actions/receipt_chain.cc), and a body that still holds a
  // secret is refused rather than kept in clear.
  if (RedactSecrets(body) != body)
    return InvalidArgument("a receipt body holds a secret (a connection-string password or a registered "
                           "secret); redact its content before hashing it; nothing was appended");
  int64_t seq = 0;
  Status s = Do(true, [&]() -> Status {
    Result<Rows> head = Run("SELECT seq, hash FROM receipts ORDER BY seq DESC LIMIT 1", {});
    if (!head.ok()) return head.status();
    int64_t last_seq = 0;
    std::string last_hash;
    if (!head->empty()) {
      RowReader r((*head)[0], "receipts");
      last_seq = r.Int();
      last_hash = r.Text();
      DW_RETURN_IF_ERROR(r.status());
    }
    if (prev_hash != last_hash) {
      return FailedPrecondition("receipt chain moved: the last receipt's hash is '" + last_hash +
                                "', not '" + prev_hash + "'");
    }
    seq = last_seq + 1;
    return Run("INSERT INTO receipts (seq, prev_hash, hash, body, written_at) "
               "VALUES ($1, $2, $3, $4, $5)",
               {seq, prev_hash, hash, body, TimeCell(clock_.Now())})
        .status();
  });
  if (!s.ok()) return s;
  return seq;
}

Result<std::vector<ReceiptRecord>> SqlStateStore::Receipts() {
  std::vector<ReceiptRecord> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows =
        Run("SELECT seq, prev_hash, hash, body, written_at FROM receipts ORDER BY seq", {});
    if (!rows.ok()) return rows.status();
    return DecodeAll(*rows, DecodeReceipt, out);
  });
  if (!s.ok()) return s;
  return out;
}

Status SqlStateStore::ScanReceipts(const std::function<Status(const ReceiptRecord&)>& fn) {
  return Do(false, [&]() -> Status {
    return conn_->QueryEach(
        "SELECT seq, prev_hash, hash, body, written_at FROM receipts ORDER BY seq", {},
        [&](const SqlRow& row) -> Status {
          Result<ReceiptRecord> rec = DecodeReceipt(row);
          if (!rec.ok()) return rec.status();
          return fn(*rec);
        });
  });
}

Result<std::optional<ReceiptRecord>> SqlStateStore::GetReceipt(int64_t seq) {
  std::optional<ReceiptRecord> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows =
        seq == 0 ? Run("SELECT seq, prev_hash, hash, body, written_at FROM receipts "
                       "ORDER BY seq DESC LIMIT 1",
                       {})
                 : Run("SELECT seq, prev_hash, hash, body, written_at FROM receipts WHERE seq = $1",
                       {seq});
    if (!rows.ok()) return rows.status();
    if (rows->empty()) return Status::Ok();
    Result<ReceiptRecord> rec = DecodeReceipt((*rows)[0]);
    if (!rec.ok()) return rec.status();
    out = std::move(rec).value();
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace dw::store

namespace dw::store {

Result<std::optional<TimePoint>> SqlStateStore::ServerNow() {
  if (conn_->backend() != "postgresql") return std::optional<TimePoint>();
  std::optional<TimePoint> out;
  Status s = Do(false, [&]() -> Status {
    // clock_timestamp(), not now(): now() is the start of the transaction, which may be old.
    Result<Rows> rows = Run("SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)", {});
    if (!rows.ok()) return rows.status();
    if (rows->size() != 1 || rows->at(0).size() != 1 || !std::holds_alternative<int64_t>(rows->at(0)[0]))
      return Internal("the state store answered its clock query with an unexpected row");
    out = FromUnixMillis(std::get<int64_t>(rows->at(0)[0]));
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace dw::store
