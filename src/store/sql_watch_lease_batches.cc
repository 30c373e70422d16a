// The batch statements of the watch leases (store/watch_leases.h): many slots claimed, or many
// runs finished, in ONE PostgreSQL statement each, so a pass's lease traffic is a few round trips
// however many slots it has (one statement per slot cost 1.7-2 ms, 17-20 s for 10,000 monitors).
//
// The slots travel as one JSON parameter expanded by jsonb_to_recordset (an array parameter, never
// SQL built from values), and the statement is a chain of data-modifying CTEs run as one atomic
// statement outside any transaction:
//   pruned   the slots whose record was pruned (store/watch_leases.h, kPruned): never inserted
//   cand     the free slots asked for (no lease and not pruned, or expired unfinished): every
//            overdue one and the first max_take of the others
//   fresh    INSERT … ON CONFLICT DO NOTHING of the new ones, in (job, due) order: a concurrent
//            replica inserting the same slot waits for this statement and then does nothing, and
//            since every replica inserts in the same order, two batches never deadlock
//   stale    SELECT … FOR UPDATE SKIP LOCKED of the expired ones (as ClaimLease: a slot another
//            replica is taking over this instant is skipped, never queued behind)
//   retaken  their takeover by this replica
//   runs     one watch_runs row per slot taken
// Run ids come from watch_runs' identity sequence inside the statement (nextval), because a lease
// row must carry its run id when it is written and one statement cannot write a row twice.
// Every time is the database's clock_timestamp(), as in sql_watch_leases.cc.
#include <map>
#include <set>
#include <utility>

#include "store/sql_cells.h"
#include "store/sql_state_store.h"
#include "store/watch_leases.h"

namespace dw::store {
namespace {

using Rows = std::vector<SqlRow>;

constexpr const char* kClaimBatchSql = R"sql(
WITH now_ AS (SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT) AS ms),
horizon_ AS (SELECT COALESCE(max(before_ms), 0) AS ms FROM watch_prune_horizon),
want AS (
  SELECT w.job, w.due_ms, w.ord, w.overdue
  FROM jsonb_to_recordset(CAST($1 AS jsonb)) AS w(job text, due_ms bigint, ord bigint, overdue boolean)
),
pruned AS MATERIALIZED (
  SELECT w.job, w.due_ms FROM want w CROSS JOIN horizon_
  WHERE w.due_ms < horizon_.ms
    AND NOT EXISTS (SELECT 1 FROM watch_leases x WHERE x.job = w.job AND x.due_ms = w.due_ms)
    AND EXISTS (SELECT 1 FROM watch_leases y WHERE y.job = w.job AND y.due_ms > w.due_ms)
),
cand AS MATERIALIZED (
  SELECT f.job, f.due_ms, f.ord, f.is_new FROM (
    SELECT w.job, w.due_ms, w.ord, w.overdue, (l.job IS NULL) AS is_new,
           row_number() OVER (PARTITION BY w.overdue ORDER BY w.ord) AS rn
    FROM want w CROSS JOIN now_ CROSS JOIN horizon_ LEFT JOIN watch_leases l ON l.job = w.job AND l.due_ms = w.due_ms
    WHERE (l.job IS NULL AND NOT (w.due_ms < horizon_.ms AND EXISTS (
             SELECT 1 FROM watch_leases y WHERE y.job = w.job AND y.due_ms > w.due_ms)))
       OR (l.finished_at IS NULL AND l.expires_at <= now_.ms)
  ) f
  WHERE f.overdue OR f.rn <= CAST($4 AS BIGINT)
),
fresh AS (
  INSERT INTO watch_leases (job, due_ms, holder, run_id, attempts, taken_at, expires_at)
  SELECT c.job, c.due_ms, $2, nextval(pg_get_serial_sequence('watch_runs', 'id')), 1, now_.ms,
         now_.ms + CAST($3 AS BIGINT)
  FROM cand c CROSS JOIN now_ WHERE c.is_new ORDER BY c.job, c.due_ms
  ON CONFLICT (job, due_ms) DO NOTHING
  RETURNING job, due_ms, run_id
),
stale AS (
  SELECT l.job, l.due_ms FROM watch_leases l JOIN cand c ON l.job = c.job AND l.due_ms = c.due_ms CROSS JOIN now_
  WHERE NOT c.is_new AND l.finished_at IS NULL AND l.expires_at <= now_.ms
  FOR UPDATE OF l SKIP LOCKED
),
retaken AS (
  UPDATE watch_leases l SET holder = $2, run_id = nextval(pg_get_serial_sequence('watch_runs', 'id')),
         attempts = l.attempts + 1, taken_at = now_.ms, expires_at = now_.ms + CAST($3 AS BIGINT)
  FROM stale s CROSS JOIN now_ WHERE l.job = s.job AND l.due_ms = s.due_ms
  RETURNING l.job, l.due_ms, l.run_id
),
taken AS (SELECT job, due_ms, run_id FROM fresh UNION ALL SELECT job, due_ms, run_id FROM retaken),
runs AS (
  INSERT INTO watch_runs (id, job, due_ms, replica_id, started_at, outcome, message) OVERRIDING SYSTEM VALUE
  SELECT t.run_id, t.job, t.due_ms, $2, now_.ms, 'running', '' FROM taken t CROSS JOIN now_
  RETURNING id
)
-- Three kinds of rows, merged by slot in C++: a CTE joined to a CTE is planned as a nested loop
-- (jsonb_to_recordset is estimated at 100 rows), quadratic for 10,000 slots.
SELECT 0, t.job, t.due_ms, t.run_id, '', 0, CAST(NULL AS BIGINT), now_.ms FROM taken t CROSS JOIN now_
UNION ALL
SELECT 1, c.job, c.due_ms, 0, '', 0, CAST(NULL AS BIGINT), now_.ms FROM cand c CROSS JOIN now_
UNION ALL
SELECT 2, l.job, l.due_ms, 0, l.holder, l.expires_at, l.finished_at, now_.ms
FROM want w CROSS JOIN now_ JOIN watch_leases l ON l.job = w.job AND l.due_ms = w.due_ms
UNION ALL
SELECT 3, p.job, p.due_ms, 0, '', 0, CAST(NULL AS BIGINT), now_.ms FROM pruned p CROSS JOIN now_
)sql";

constexpr const char* kFinishBatchSql = R"sql(
WITH now_ AS (SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT) AS ms),
done AS (
  SELECT d.job, d.due_ms, d.run_id, d.ok, d.message, d.ord
  FROM jsonb_to_recordset(CAST($1 AS jsonb)) AS d(job text, due_ms bigint, run_id bigint, ok boolean, message text,
                                                  ord bigint)
),
held AS (
  UPDATE watch_leases l SET finished_at = CASE WHEN d.ok THEN now_.ms ELSE NULL END,
         expires_at = CASE WHEN d.ok THEN l.expires_at ELSE now_.ms END
  FROM done d CROSS JOIN now_
  WHERE l.job = d.job AND l.due_ms = d.due_ms AND l.holder = $2 AND l.run_id = d.run_id AND l.finished_at IS NULL
  RETURNING l.run_id
),
ended AS (
  UPDATE watch_runs r SET finished_at = now_.ms, message = d.message,
         outcome = CASE WHEN d.run_id NOT IN (SELECT run_id FROM held) THEN 'lost' WHEN d.ok THEN 'ok' ELSE 'failed' END
  FROM done d CROSS JOIN now_
  WHERE r.id = d.run_id
  RETURNING r.id
)
-- The runs still held, matched to the input in C++ (a CTE joined to a CTE would be a nested loop).
SELECT run_id FROM held
)sql";

// A text PostgreSQL's jsonb can hold: no NUL (jsonb refuses \u0000), valid UTF-8 (JsonCell
// replaces what is not).
bool FitsJsonb(const std::string& s) { return s.find('\0') == std::string::npos; }

Status CheckBatch(size_t n, const std::string& replica) {
  if (replica.empty()) return InvalidArgument("a lease needs a replica id");
  if (n > kMaxLeaseBatch)
    return InvalidArgument("a lease batch of " + std::to_string(n) + " slots is over the limit of " +
                           std::to_string(kMaxLeaseBatch) + " (split it)");
  return Status::Ok();
}

Status CheckSlot(const std::string& job, int64_t due_ms, std::set<std::pair<std::string, int64_t>>& seen) {
  if (job.empty()) return InvalidArgument("a lease needs a job name");
  if (!FitsJsonb(job)) return InvalidArgument("lease job name contains a NUL character");
  if (!seen.insert({job, due_ms}).second)
    return InvalidArgument("the lease batch names slot " + job + "@" + std::to_string(due_ms) + " twice");
  return Status::Ok();
}

}  // namespace

Result<std::vector<LeaseClaim>> SqlStateStore::ClaimLeases(const std::vector<LeaseSlot>& slots,
                                                           const std::string& replica, int64_t lease_ms,
                                                           int64_t max_take) {
  DW_RETURN_IF_ERROR(CheckBatch(slots.size(), replica));
  if (lease_ms <= 0) return InvalidArgument("the lease time of a lease batch must be positive");
  if (max_take < 0) return InvalidArgument("a lease batch cannot take a negative number of slots");
  std::vector<LeaseClaim> out;
  if (slots.empty()) return out;
  std::set<std::pair<std::string, int64_t>> seen;
  Json want = Json::array();
  for (size_t i = 0; i < slots.size(); ++i) {
    DW_RETURN_IF_ERROR(CheckSlot(slots[i].job, slots[i].due_ms, seen));
    want.push_back({{"job", slots[i].job},
                    {"due_ms", slots[i].due_ms},
                    {"ord", static_cast<int64_t>(i)},
                    {"overdue", slots[i].overdue}});
  }
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run(kClaimBatchSql, {JsonCell(want), replica, lease_ms, max_take});
    if (!rows.ok()) return rows.status();
    // Per slot asked: the run id when taken, whether it was a candidate, and the lease as the
    // statement found it.
    struct Seen {
      int64_t run_id = 0;
      bool asked = false;
      bool has_lease = false;
      std::string holder;
      int64_t expires_ms = 0;
      bool finished = false;
      bool pruned = false;
    };
    std::map<std::pair<std::string, int64_t>, Seen> seen_of;
    int64_t db_now = 0;
    for (const SqlRow& row : *rows) {
      RowReader r(row, "watch_leases");
      const int64_t kind = r.Int();
      std::pair<std::string, int64_t> key;
      key.first = r.Text();
      key.second = r.Int();
      const int64_t run_id = r.Int();
      std::string holder = r.Text();
      const int64_t expires = r.Int();
      const bool finished = r.OptionalTime().has_value();
      db_now = r.Int();
      DW_RETURN_IF_ERROR(r.status());
      Seen& v = seen_of[key];
      if (kind == 0) v.run_id = run_id;
      if (kind == 1) v.asked = true;
      if (kind == 3) v.pruned = true;
      if (kind == 2) {
        v.has_lease = true;
        v.holder = std::move(holder);
        v.expires_ms = expires;
        v.finished = finished;
      }
    }
    if (rows->empty()) return Internal("the lease batch answered nothing for " + std::to_string(slots.size()) + " slots");
    out.reserve(slots.size());
    for (const LeaseSlot& slot : slots) {
      const Seen& v = seen_of[{slot.job, slot.due_ms}];
      LeaseClaim c;
      c.db_now_ms = db_now;
      c.run_id = v.run_id;
      c.holder = v.holder;
      c.expires_ms = v.has_lease ? v.expires_ms : db_now;
      if (c.run_id != 0) {
        c.answer = LeaseAnswer::kTaken;
        c.holder = replica;
        c.expires_ms = db_now + lease_ms;
      } else if (v.finished) {
        c.answer = LeaseAnswer::kDone;
      } else if (v.pruned) {
        c.answer = LeaseAnswer::kPruned;
        c.holder.clear();
      } else if (v.asked) {
        // Free when the statement began, but another replica inserted or took it over meanwhile.
        c.answer = LeaseAnswer::kHeld;
        c.holder.clear();
        c.expires_ms = db_now;
      } else if (v.has_lease && c.expires_ms > db_now) {
        c.answer = LeaseAnswer::kHeld;
      } else {
        c.answer = LeaseAnswer::kLeft;
        c.holder.clear();
      }
      out.push_back(std::move(c));
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<bool>> SqlStateStore::FinishLeases(const std::vector<LeaseFinish>& runs,
                                                      const std::string& replica) {
  DW_RETURN_IF_ERROR(CheckBatch(runs.size(), replica));
  std::vector<bool> out;
  if (runs.empty()) return out;
  std::set<std::pair<std::string, int64_t>> seen;
  std::set<int64_t> run_ids;
  Json done = Json::array();
  for (size_t i = 0; i < runs.size(); ++i) {
    const LeaseFinish& f = runs[i];
    DW_RETURN_IF_ERROR(CheckSlot(f.job, f.due_ms, seen));
    if (!run_ids.insert(f.run_id).second)
      return InvalidArgument("the lease batch finishes run " + std::to_string(f.run_id) + " twice");
    // The message is prose (an error may quote a secret): redacted as every stored message is.
    std::string message = std::get<std::string>(ProseCell(f.message));
    for (char& ch : message)
      if (ch == '\0') ch = ' ';
    done.push_back({{"job", f.job},
                    {"due_ms", f.due_ms},
                    {"run_id", f.run_id},
                    {"ok", f.ok},
                    {"message", message},
                    {"ord", static_cast<int64_t>(i)}});
  }
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run(kFinishBatchSql, {JsonCell(done), replica});
    if (!rows.ok()) return rows.status();
    std::set<int64_t> held;
    for (const SqlRow& row : *rows) {
      RowReader r(row, "watch_leases");
      held.insert(r.Int());
      DW_RETURN_IF_ERROR(r.status());
    }
    for (const LeaseFinish& f : runs) out.push_back(held.count(f.run_id) > 0);
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace dw::store
