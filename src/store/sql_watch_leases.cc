// WatchLeases over the PostgreSQL backend (store/watch_leases.h). Every time is the database's
// clock_timestamp() in Unix milliseconds, so replicas with different clocks agree on expiry.
#include <optional>

#include "store/sql_cells.h"
#include "store/sql_state_store.h"
#include "store/watch_leases.h"

namespace dw::store {
namespace {

using Rows = std::vector<SqlRow>;

// The database's now, in Unix milliseconds.
constexpr const char* kDbNow = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)";

std::string WithNow(const std::string& sql) {
  std::string out = sql;
  const std::string token = "{NOW}";
  for (size_t p = out.find(token); p != std::string::npos; p = out.find(token, p)) out.replace(p, token.size(), kDbNow);
  return out;
}

std::optional<int64_t> OptionalMs(RowReader& r) {
  std::optional<TimePoint> t = r.OptionalTime();
  if (!t) return std::nullopt;
  return ToUnixMillis(*t);
}

// FNV-1a of the mutex name: the advisory lock key (a 64-bit integer), stable across replicas.
int64_t MutexKey(const std::string& name) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : "dw-watch-mutex:" + name) h = (h ^ c) * 1099511628211ULL;
  return static_cast<int64_t>(h);
}

// Selects a row when slot ($1 job, $2 due) was pruned: no lease row, due before the prune
// horizon, and a later slot of the job has a row (the prune never deletes a job's newest slot).
constexpr const char* kPrunedSlot =
    "SELECT 1 FROM watch_prune_horizon h WHERE CAST($2 AS BIGINT) < h.before_ms "
    "AND NOT EXISTS (SELECT 1 FROM watch_leases x WHERE x.job = $1 AND x.due_ms = CAST($2 AS BIGINT)) "
    "AND EXISTS (SELECT 1 FROM watch_leases y WHERE y.job = $1 AND y.due_ms > CAST($2 AS BIGINT))";

Status RequireClaimArgs(const std::string& job, const std::string& replica) {
  if (job.empty()) return InvalidArgument("a lease needs a job name");
  if (replica.empty()) return InvalidArgument("a lease needs a replica id");
  return Status::Ok();
}

}  // namespace

WatchLeases* WatchLeasesOf(StateStore& store) {
  if (store.backend() != "postgresql") return nullptr;
  return dynamic_cast<WatchLeases*>(&store);
}

Result<int64_t> SqlStateStore::DatabaseNowMs() {
  int64_t now = 0;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run(WithNow("SELECT {NOW}"), {});
    if (!rows.ok()) return rows.status();
    RowReader r(rows->at(0), "now()");
    now = r.Int();
    return r.status();
  });
  if (!s.ok()) return s;
  return now;
}

Result<int64_t> SqlStateStore::Heartbeat(const WatchReplica& self) {
  if (self.id.empty()) return InvalidArgument("a replica needs an id");
  if (self.lease_ms <= 0) return InvalidArgument("replica " + self.id + ": the lease time must be positive");
  int64_t now = 0;
  Status s = Do(true, [&]() -> Status {
    Result<Rows> rows = Run(
        WithNow("INSERT INTO watch_replicas (replica_id, host, pid, started_at, heartbeat_at, lease_ms, "
                "clock_offset_ms, refusing, stopped_at) VALUES ($1, $2, CAST($3 AS BIGINT), CAST($4 AS BIGINT), "
                "{NOW}, CAST($5 AS BIGINT), CAST($6 AS BIGINT), $7, NULL) "
                "ON CONFLICT (replica_id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at, "
                "lease_ms = EXCLUDED.lease_ms, clock_offset_ms = EXCLUDED.clock_offset_ms, "
                "refusing = EXCLUDED.refusing, stopped_at = NULL RETURNING heartbeat_at"),
        {self.id, self.host, self.pid, self.started_ms, self.lease_ms, self.clock_offset_ms,
         ProseCell(self.refusing)});
    if (!rows.ok()) return rows.status();
    RowReader r(rows->at(0), "watch_replicas");
    now = r.Int();
    DW_RETURN_IF_ERROR(r.status());
    // Leases of a job still running here stay ours: a run longer than the lease time is not taken
    // over while its replica is alive.
    return Run("UPDATE watch_leases SET expires_at = CAST($2 AS BIGINT) + CAST($3 AS BIGINT) "
               "WHERE holder = $1 AND finished_at IS NULL AND expires_at > CAST($2 AS BIGINT)",
               {self.id, now, self.lease_ms})
        .status();
  });
  if (!s.ok()) return s;
  return now;
}

Result<LeaseClaim> SqlStateStore::ClaimLease(const std::string& job, int64_t due_ms, const std::string& replica,
                                             int64_t lease_ms) {
  DW_RETURN_IF_ERROR(RequireClaimArgs(job, replica));
  if (lease_ms <= 0) return InvalidArgument("the lease time of " + job + " must be positive");
  LeaseClaim claim;
  Status s = Do(true, [&]() -> Status {
    Result<Rows> now_row = Run(WithNow("SELECT {NOW}"), {});
    if (!now_row.ok()) return now_row.status();
    RowReader nr(now_row->at(0), "now()");
    claim.db_now_ms = nr.Int();
    DW_RETURN_IF_ERROR(nr.status());
    const int64_t now = claim.db_now_ms;
    // Reserve the attempt's row id first; it is only kept (and filled) when the lease is taken.
    auto start_run = [&]() -> Status {
      Result<Rows> run = Run("INSERT INTO watch_runs (job, due_ms, replica_id, started_at, outcome, message) "
                             "VALUES ($1, CAST($2 AS BIGINT), $3, CAST($4 AS BIGINT), 'running', '') RETURNING id",
                             {job, due_ms, replica, now});
      if (!run.ok()) return run.status();
      RowReader rr(run->at(0), "watch_runs");
      claim.run_id = rr.Int();
      return rr.status();
    };
    // A new slot: the first replica to insert it holds it (a concurrent insert of the same slot
    // waits for this one and then does nothing). Only a slot this statement sees no row of and
    // that was not pruned: a row a prune is deleting this instant is still seen (so never
    // inserted again behind the prune's back), and once deleted, the horizon says it was pruned.
    Result<Rows> inserted = Run(
        "INSERT INTO watch_leases (job, due_ms, holder, run_id, attempts, taken_at, expires_at) "
        "SELECT $1, CAST($2 AS BIGINT), $3, 0, 1, CAST($4 AS BIGINT), CAST($4 AS BIGINT) + CAST($5 AS BIGINT) "
        "WHERE NOT EXISTS (SELECT 1 FROM watch_leases WHERE job = $1 AND due_ms = CAST($2 AS BIGINT)) "
        "AND NOT EXISTS (" + std::string(kPrunedSlot) + ") "
        "ON CONFLICT (job, due_ms) DO NOTHING RETURNING due_ms",
        {job, due_ms, replica, now, lease_ms});
    if (!inserted.ok()) return inserted.status();
    if (!inserted->empty()) {
      DW_RETURN_IF_ERROR(start_run());
      claim.answer = LeaseAnswer::kTaken;
      claim.expires_ms = now + lease_ms;
      return Run("UPDATE watch_leases SET run_id = CAST($3 AS BIGINT) WHERE job = $1 AND due_ms = CAST($2 AS BIGINT)",
                 {job, due_ms, claim.run_id})
          .status();
    }
    // The slot exists. Another replica taking it over this instant has the row locked: skip it
    // (it is held) rather than queue behind that replica.
    Result<Rows> row = Run("SELECT holder, expires_at, finished_at FROM watch_leases "
                           "WHERE job = $1 AND due_ms = CAST($2 AS BIGINT) FOR UPDATE SKIP LOCKED",
                           {job, due_ms});
    if (!row.ok()) return row.status();
    if (row->empty()) {
      // Locked by a replica taking it over (held), or pruned (no row, below the horizon).
      Result<Rows> pruned = Run("SELECT count(*) FROM (" + std::string(kPrunedSlot) + ") p", {job, due_ms});
      if (!pruned.ok()) return pruned.status();
      RowReader pr(pruned->at(0), "watch_prune_horizon");
      const bool was_pruned = pr.Int() > 0;
      DW_RETURN_IF_ERROR(pr.status());
      claim.answer = was_pruned ? LeaseAnswer::kPruned : LeaseAnswer::kHeld;
      claim.expires_ms = now;
      return Status::Ok();
    }
    RowReader r(row->at(0), "watch_leases");
    claim.holder = r.Text();
    claim.expires_ms = r.Int();
    std::optional<int64_t> finished = OptionalMs(r);
    DW_RETURN_IF_ERROR(r.status());
    if (finished) {
      claim.answer = LeaseAnswer::kDone;
      return Status::Ok();
    }
    if (claim.expires_ms > now) {
      claim.answer = LeaseAnswer::kHeld;
      return Status::Ok();
    }
    // Expired unfinished: its holder died, stalled or gave the slot back after a failure.
    DW_RETURN_IF_ERROR(start_run());
    claim.answer = LeaseAnswer::kTaken;
    claim.holder = replica;
    claim.expires_ms = now + lease_ms;
    return Run("UPDATE watch_leases SET holder = $3, run_id = CAST($4 AS BIGINT), attempts = attempts + 1, "
               "taken_at = CAST($5 AS BIGINT), expires_at = CAST($6 AS BIGINT) "
               "WHERE job = $1 AND due_ms = CAST($2 AS BIGINT)",
               {job, due_ms, replica, claim.run_id, now, claim.expires_ms})
        .status();
  });
  if (!s.ok()) return s;
  return claim;
}

Result<bool> SqlStateStore::FinishLease(const std::string& job, int64_t due_ms, const std::string& replica,
                                        int64_t run_id, bool ok, const std::string& message) {
  DW_RETURN_IF_ERROR(RequireClaimArgs(job, replica));
  bool held = false;
  Status s = Do(true, [&]() -> Status {
    Result<Rows> now_row = Run(WithNow("SELECT {NOW}"), {});
    if (!now_row.ok()) return now_row.status();
    RowReader nr(now_row->at(0), "now()");
    const int64_t now = nr.Int();
    DW_RETURN_IF_ERROR(nr.status());
    // Still ours only if no other replica took the slot over (same holder and attempt).
    Result<Rows> updated =
        ok ? Run("UPDATE watch_leases SET finished_at = CAST($5 AS BIGINT) WHERE job = $1 AND due_ms = CAST($2 AS BIGINT) "
                 "AND holder = $3 AND run_id = CAST($4 AS BIGINT) AND finished_at IS NULL RETURNING due_ms",
                 {job, due_ms, replica, run_id, now})
           : Run("UPDATE watch_leases SET expires_at = CAST($5 AS BIGINT) WHERE job = $1 AND due_ms = CAST($2 AS BIGINT) "
                 "AND holder = $3 AND run_id = CAST($4 AS BIGINT) AND finished_at IS NULL RETURNING due_ms",
                 {job, due_ms, replica, run_id, now});
    if (!updated.ok()) return updated.status();
    held = !updated->empty();
    std::string outcome = !held ? "lost" : ok ? "ok" : "failed";
    return Run("UPDATE watch_runs SET finished_at = CAST($2 AS BIGINT), outcome = $3, message = $4 "
               "WHERE id = CAST($1 AS BIGINT)",
               {run_id, now, outcome, ProseCell(message)})
        .status();
  });
  if (!s.ok()) return s;
  return held;
}

Status SqlStateStore::StopReplica(const std::string& replica) {
  return Do(true, [&]() -> Status {
    DW_RETURN_IF_ERROR(Run(WithNow("UPDATE watch_replicas SET stopped_at = {NOW} WHERE replica_id = $1"), {replica})
                           .status());
    return Run(WithNow("UPDATE watch_leases SET expires_at = {NOW} WHERE holder = $1 AND finished_at IS NULL"),
               {replica})
        .status();
  });
}

Result<std::vector<WatchReplica>> SqlStateStore::Replicas() {
  std::vector<WatchReplica> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run("SELECT replica_id, host, pid, started_at, heartbeat_at, lease_ms, clock_offset_ms, "
                            "refusing, stopped_at FROM watch_replicas ORDER BY heartbeat_at DESC, replica_id",
                            {});
    if (!rows.ok()) return rows.status();
    for (const SqlRow& row : *rows) {
      RowReader r(row, "watch_replicas");
      WatchReplica w;
      w.id = r.Text();
      w.host = r.Text();
      w.pid = r.Int();
      w.started_ms = r.Int();
      w.heartbeat_ms = r.Int();
      w.lease_ms = r.Int();
      w.clock_offset_ms = r.Int();
      w.refusing = r.Text();
      w.stopped_ms = OptionalMs(r);
      DW_RETURN_IF_ERROR(r.status());
      out.push_back(std::move(w));
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<WatchLease>> SqlStateStore::OpenLeases() {
  std::vector<WatchLease> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run("SELECT job, due_ms, holder, run_id, attempts, taken_at, expires_at, finished_at "
                            "FROM watch_leases WHERE finished_at IS NULL ORDER BY holder, job, due_ms",
                            {});
    if (!rows.ok()) return rows.status();
    for (const SqlRow& row : *rows) {
      RowReader r(row, "watch_leases");
      WatchLease l;
      l.job = r.Text();
      l.due_ms = r.Int();
      l.holder = r.Text();
      l.run_id = r.Int();
      l.attempts = r.Int();
      l.taken_ms = r.Int();
      l.expires_ms = r.Int();
      l.finished_ms = OptionalMs(r);
      DW_RETURN_IF_ERROR(r.status());
      out.push_back(std::move(l));
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<LeaseSlot>> SqlStateStore::AbandonedLeases(int limit) {
  if (limit <= 0) return InvalidArgument("limit must be positive, got " + std::to_string(limit));
  std::vector<LeaseSlot> out;
  Status s = Do(false, [&]() -> Status {
    // watch_leases_abandoned (migration 11) holds only the unfinished leases: this reads the few
    // in flight, not the day of finished history.
    Result<Rows> rows = Run(
        WithNow("SELECT l.job, l.due_ms FROM watch_leases l LEFT JOIN watch_replicas r ON r.replica_id = l.holder "
                "WHERE l.finished_at IS NULL AND l.expires_at <= {NOW} AND (r.replica_id IS NULL OR "
                "r.stopped_at IS NOT NULL OR r.heartbeat_at < {NOW} - r.lease_ms) "
                "ORDER BY l.expires_at, l.job, l.due_ms LIMIT CAST($1 AS BIGINT)"),
        {int64_t{limit}});
    if (!rows.ok()) return rows.status();
    for (const SqlRow& row : *rows) {
      RowReader r(row, "watch_leases");
      LeaseSlot l;
      l.job = r.Text();
      l.due_ms = r.Int();
      DW_RETURN_IF_ERROR(r.status());
      out.push_back(std::move(l));
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<WatchRun>> SqlStateStore::RecentRuns(int limit) {
  if (limit <= 0) return InvalidArgument("limit must be positive, got " + std::to_string(limit));
  std::vector<WatchRun> out;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run("SELECT id, job, due_ms, replica_id, started_at, finished_at, outcome, message "
                            "FROM watch_runs ORDER BY id DESC LIMIT CAST($1 AS BIGINT)",
                            {int64_t{limit}});
    if (!rows.ok()) return rows.status();
    for (const SqlRow& row : *rows) {
      RowReader r(row, "watch_runs");
      WatchRun w;
      w.id = r.Int();
      w.job = r.Text();
      w.due_ms = r.Int();
      w.replica_id = r.Text();
      w.started_ms = r.Int();
      w.finished_ms = OptionalMs(r);
      w.outcome = r.Text();
      w.message = r.Text();
      DW_RETURN_IF_ERROR(r.status());
      out.push_back(std::move(w));
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Result<WatchPrune> SqlStateStore::PruneWatchHistory(int64_t keep_ms, int64_t max_rows) {
  if (keep_ms <= 0) return InvalidArgument("the watch history to keep must be positive");
  if (max_rows <= 0) return InvalidArgument("a prune step must be allowed to delete at least one row");
  WatchPrune out;
  Result<int64_t> now = DatabaseNowMs();
  if (!now.ok()) return now.status();
  out.before_ms = *now - keep_ms;
  // The horizon first, in its own statement: once any row below it is gone, every claim sees it.
  Status s = Do(true, [&]() -> Status {
    return Run("UPDATE watch_prune_horizon SET before_ms = GREATEST(before_ms, CAST($1 AS BIGINT)) WHERE id = 1",
               {out.before_ms})
        .status();
  });
  if (!s.ok()) return s;
  // Short statements, each its own transaction (the store lock is let go between them). A slot's
  // lease and its runs go together, in one statement: the runs are found through the slots
  // deleted (index lookups), never by scanning the runs for slots without a lease (a merge anti
  // join over both tables: over a second a step at 300,000 rows, growing with the history).
  s = Do(true, [&]() -> Status {
    Result<Rows> rows = Run(
        // Finished slots, never a job's newest (so a pruned slot always has a later one: kPruned).
        "WITH gone AS (DELETE FROM watch_leases d USING ("
        "SELECT l.job, l.due_ms FROM watch_leases l WHERE l.due_ms < CAST($1 AS BIGINT) AND l.finished_at IS NOT NULL "
        "AND EXISTS (SELECT 1 FROM watch_leases n WHERE n.job = l.job AND n.due_ms > l.due_ms) "
        "ORDER BY l.due_ms LIMIT CAST($2 AS BIGINT) FOR UPDATE OF l SKIP LOCKED) o "
        "WHERE d.job = o.job AND d.due_ms = o.due_ms RETURNING d.job, d.due_ms), "
        "runs_gone AS (DELETE FROM watch_runs r USING gone g WHERE r.job = g.job AND r.due_ms = g.due_ms RETURNING 1) "
        "SELECT (SELECT count(*) FROM gone), (SELECT count(*) FROM runs_gone)",
        {out.before_ms, max_rows});
    if (!rows.ok()) return rows.status();
    RowReader r(rows->at(0), "watch history");
    out.leases = r.Int();
    out.runs = r.Int();
    return r.status();
  });
  if (!s.ok()) return s;
  s = Do(true, [&]() -> Status {
    Result<Rows> rows = Run(
        "WITH gone AS (DELETE FROM watch_replicas d USING ("
        "SELECT replica_id FROM watch_replicas WHERE heartbeat_at < CAST($1 AS BIGINT) "
        "ORDER BY heartbeat_at LIMIT CAST($2 AS BIGINT) FOR UPDATE SKIP LOCKED) o "
        "WHERE d.replica_id = o.replica_id RETURNING 1) SELECT count(*) FROM gone",
        {out.before_ms, max_rows});
    if (!rows.ok()) return rows.status();
    RowReader r(rows->at(0), "watch_replicas");
    out.replicas = r.Int();
    return r.status();
  });
  if (!s.ok()) return s;
  return out;
}

Result<bool> SqlStateStore::TryHoldMutex(const std::string& name) {
  bool held = false;
  Status s = Do(false, [&]() -> Status {
    Result<Rows> rows = Run("SELECT CASE WHEN pg_try_advisory_lock(CAST($1 AS BIGINT)) THEN 1 ELSE 0 END",
                            {MutexKey(name)});
    if (!rows.ok()) return rows.status();
    RowReader r(rows->at(0), "pg_try_advisory_lock");
    held = r.Int() == 1;
    return r.status();
  });
  if (!s.ok()) return s;
  return held;
}

Status SqlStateStore::ReleaseMutex(const std::string& name) {
  return Do(false, [&]() -> Status {
    return Run("SELECT pg_advisory_unlock(CAST($1 AS BIGINT))", {MutexKey(name)}).status();
  });
}

}  // namespace dw::store
