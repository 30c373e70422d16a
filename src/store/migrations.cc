#include "store/migrations.h"

#include <array>

#include "store/state_store.h"

namespace dw::store {
namespace {

// Version 1: the observations and decisions of the data path. Conventions for both dialects:
// times are Unix milliseconds (BIGINT), JSON is stored as text, ids are database-assigned.
// The two dialects differ only in how an auto-increment id and a double are spelled, so the DDL
// is written once with {ID} and {DOUBLE} placeholders (see migrate.cc, which renders them).

constexpr std::string_view kV1 = R"sql(
CREATE TABLE check_results (
  id           {ID},
  run_id       TEXT NOT NULL CHECK (run_id <> ''),
  table_ref    TEXT NOT NULL CHECK (table_ref <> ''),
  check_name   TEXT NOT NULL CHECK (check_name <> ''),
  status       TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'error')),
  observed     TEXT NOT NULL,
  threshold    TEXT NOT NULL,
  rows_scanned BIGINT NOT NULL,
  duration_ms  BIGINT NOT NULL,
  message      TEXT NOT NULL,
  observed_at  BIGINT NOT NULL
);
CREATE INDEX check_results_by_table ON check_results (table_ref, observed_at);
CREATE INDEX check_results_by_run ON check_results (run_id);

CREATE TABLE metric_points (
  metric TEXT NOT NULL CHECK (metric <> ''),
  ts     BIGINT NOT NULL,
  value  {DOUBLE} NOT NULL,
  PRIMARY KEY (metric, ts)
);

CREATE TABLE change_events (
  id          {ID},
  dedup_key   TEXT NOT NULL UNIQUE CHECK (dedup_key <> ''),
  asset_id    TEXT NOT NULL,
  kind        TEXT NOT NULL,
  happened_at BIGINT NOT NULL,
  observed_at BIGINT NOT NULL,
  evidence    TEXT NOT NULL,
  risk        {DOUBLE} NOT NULL,
  reason      TEXT NOT NULL
);
CREATE INDEX change_events_by_asset ON change_events (asset_id, happened_at);
CREATE INDEX change_events_by_time ON change_events (happened_at);

CREATE TABLE kv_cursors (
  name       TEXT PRIMARY KEY CHECK (name <> ''),
  value      TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE graph_assets (
  id         TEXT PRIMARY KEY CHECK (id <> ''),
  kind       TEXT NOT NULL,
  domain     TEXT NOT NULL,
  owner      TEXT NOT NULL,
  attrs      TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE graph_edges (
  src        TEXT NOT NULL CHECK (src <> ''),
  dst        TEXT NOT NULL CHECK (dst <> ''),
  relation   TEXT NOT NULL,
  origin     TEXT NOT NULL,
  attrs      TEXT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (src, dst, relation)
);
CREATE INDEX graph_edges_by_dst ON graph_edges (dst);

CREATE TABLE incidents (
  id         TEXT PRIMARY KEY CHECK (id <> ''),
  status     TEXT NOT NULL,
  title      TEXT NOT NULL,
  asset_id   TEXT NOT NULL,
  opened_at  BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  closed_at  BIGINT,
  body       TEXT NOT NULL
);
CREATE INDEX incidents_by_opened ON incidents (opened_at);

CREATE TABLE receipts (
  seq        BIGINT PRIMARY KEY CHECK (seq > 0),
  prev_hash  TEXT NOT NULL,
  hash       TEXT NOT NULL UNIQUE CHECK (hash <> ''),
  body       TEXT NOT NULL,
  written_at BIGINT NOT NULL
);
)sql";

// Version 2: ranges of metric points a person marked expected (learnt, not judged).
constexpr std::string_view kV2 = R"sql(
CREATE TABLE metric_marks (
  id         {ID},
  metric     TEXT NOT NULL CHECK (metric <> ''),
  from_ts    BIGINT NOT NULL,
  to_ts      BIGINT NOT NULL,
  note       TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  CHECK (from_ts <= to_ts)
);
CREATE INDEX metric_marks_by_metric ON metric_marks (metric, from_ts);
)sql";

// Version 3: the action stage: people's public keys, immutable proposal versions, and the
// append-only log of requests, decisions, refusals, expiries, escalations and the stop switch.
constexpr std::string_view kV3 = R"sql(
CREATE TABLE person_keys (
  email      TEXT PRIMARY KEY CHECK (email <> ''),
  public_key TEXT NOT NULL,
  issued_at  BIGINT NOT NULL
);
CREATE TABLE proposals (
  id          TEXT NOT NULL CHECK (id <> ''),
  version     BIGINT NOT NULL CHECK (version > 0),
  incident_id TEXT NOT NULL,
  kind        TEXT NOT NULL,
  body        TEXT NOT NULL,
  created_at  BIGINT NOT NULL,
  PRIMARY KEY (id, version)
);
CREATE INDEX proposals_by_incident ON proposals (incident_id, id, version);
CREATE TABLE action_events (
  seq     {ID},
  at      BIGINT NOT NULL,
  kind    TEXT NOT NULL,
  subject TEXT NOT NULL,
  actor   TEXT NOT NULL,
  nonce   TEXT UNIQUE,
  body    TEXT NOT NULL
);
CREATE INDEX action_events_by_subject ON action_events (subject, seq);
)sql";

// Version 4: the notification outbox. Every notification is written here before it is sent;
// (incident_id, channel, event) is unique so a decision taken twice never notifies twice.
constexpr std::string_view kV4 = R"sql(
CREATE TABLE notify_outbox (
  id              {ID},
  incident_id     TEXT NOT NULL CHECK (incident_id <> ''),
  channel         TEXT NOT NULL CHECK (channel <> ''),
  event           TEXT NOT NULL CHECK (event <> ''),
  payload         TEXT NOT NULL,
  state           TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'failed')),
  attempts        BIGINT NOT NULL,
  next_attempt_at BIGINT NOT NULL,
  last_error      TEXT NOT NULL,
  answer          TEXT NOT NULL,
  created_at      BIGINT NOT NULL,
  updated_at      BIGINT NOT NULL,
  UNIQUE (incident_id, channel, event)
);
CREATE INDEX notify_outbox_due ON notify_outbox (state, next_attempt_at);
)sql";

// Version 5: detector snapshots. metric_history counts rewrites of a metric's past points (a
// snapshot learnt under an older revision is stale); metric_snapshots keeps one snapshot per
// metric, its state as base64 text (PostgreSQL text cannot hold every byte).
constexpr std::string_view kV5 = R"sql(
CREATE TABLE metric_history (
  metric   TEXT PRIMARY KEY CHECK (metric <> ''),
  revision BIGINT NOT NULL
);
CREATE TABLE metric_snapshots (
  metric     TEXT PRIMARY KEY CHECK (metric <> ''),
  revision   BIGINT NOT NULL,
  from_ts    BIGINT NOT NULL,
  through_ts BIGINT NOT NULL,
  state      TEXT NOT NULL,
  written_at BIGINT NOT NULL
);
)sql";

// Version 6: a snapshot's state as bytes (BLOB / BYTEA) instead of base64 text, a quarter less
// stored. Snapshots are a cache of what the points say, so the old ones are dropped rather than
// converted: each metric replays its history once and snapshots again.
constexpr std::string_view kV6 = R"sql(
DROP TABLE metric_snapshots;
CREATE TABLE metric_snapshots (
  metric     TEXT PRIMARY KEY CHECK (metric <> ''),
  revision   BIGINT NOT NULL,
  from_ts    BIGINT NOT NULL,
  through_ts BIGINT NOT NULL,
  state      {BYTES} NOT NULL,
  written_at BIGINT NOT NULL
);
)sql";

// Version 7: several `dw watch` replicas on one PostgreSQL store (store/watch_leases.h). One lease
// per (job, due time): the durable record that a job's slot ran once, whichever replica ran it;
// watch_runs keeps every attempt (a replica killed mid-run leaves an unfinished one); replicas
// keep their heartbeat. Times are the database's clock (PostgreSQL now()), in Unix milliseconds.
constexpr std::string_view kV7 = R"sql(
CREATE TABLE watch_replicas (
  replica_id      TEXT PRIMARY KEY CHECK (replica_id <> ''),
  host            TEXT NOT NULL,
  pid             BIGINT NOT NULL,
  started_at      BIGINT NOT NULL,
  heartbeat_at    BIGINT NOT NULL,
  lease_ms        BIGINT NOT NULL,
  clock_offset_ms BIGINT NOT NULL,
  refusing        TEXT NOT NULL,
  stopped_at      BIGINT
);
CREATE TABLE watch_leases (
  job         TEXT NOT NULL CHECK (job <> ''),
  due_ms      BIGINT NOT NULL,
  holder      TEXT NOT NULL,
  run_id      BIGINT NOT NULL,
  attempts    BIGINT NOT NULL,
  taken_at    BIGINT NOT NULL,
  expires_at  BIGINT NOT NULL,
  finished_at BIGINT,
  PRIMARY KEY (job, due_ms)
);
CREATE INDEX watch_leases_open ON watch_leases (holder, finished_at);
CREATE TABLE watch_runs (
  id          {ID},
  job         TEXT NOT NULL CHECK (job <> ''),
  due_ms      BIGINT NOT NULL,
  replica_id  TEXT NOT NULL,
  started_at  BIGINT NOT NULL,
  finished_at BIGINT,
  outcome     TEXT NOT NULL CHECK (outcome IN ('running', 'ok', 'failed', 'lost')),
  message     TEXT NOT NULL
);
CREATE INDEX watch_runs_by_slot ON watch_runs (job, due_ms);
CREATE INDEX watch_runs_by_start ON watch_runs (started_at);
CREATE INDEX watch_leases_by_due ON watch_leases (due_ms);
)sql";

// Version 8: the outbox's line per incident and channel. next_in_line is 1 on exactly the pending
// message that is oldest of its (incident, channel) (the store keeps it so on every write), so the
// due query reads only messages that may go now, through a small partial index, instead of
// skipping every message queued behind an earlier pending one on each round (which made a drain of
// 10,000 messages quadratic). notify_outbox_pending finds a line's oldest pending message.
constexpr std::string_view kV8 = R"sql(
ALTER TABLE notify_outbox ADD COLUMN next_in_line BIGINT NOT NULL DEFAULT 0;
CREATE INDEX notify_outbox_pending ON notify_outbox (incident_id, channel, id) WHERE state = 'pending';
UPDATE notify_outbox SET next_in_line = 1 WHERE state = 'pending' AND id = (
  SELECT min(e.id) FROM notify_outbox e WHERE e.incident_id = notify_outbox.incident_id
    AND e.channel = notify_outbox.channel AND e.state = 'pending');
DROP INDEX notify_outbox_due;
CREATE INDEX notify_outbox_next ON notify_outbox (next_attempt_at, id) WHERE next_in_line = 1;
)sql";

// Version 9 (PostgreSQL only): a snapshot's state stored out of line without compression. The
// codec's bytes barely compress (timestamps as deltas of deltas, exact values), so the server's
// attempt to compress every 14.5 kB state on each save was a third of its CPU in a `dw watch` pass
// (docs/PERFORMANCE.md). Rows written before keep their form until next saved. SQLite stores a BLOB
// as it is anyway.
constexpr std::string_view kV9 = R"sql(
ALTER TABLE metric_snapshots ALTER COLUMN state SET STORAGE EXTERNAL;
)sql";

// Version 10: how far the watch history was pruned (store/watch_leases.h, PruneWatchHistory). A
// claim of a slot older than before_ms that has no lease row while a later slot of its job has one
// was pruned (or skipped) long ago: it is answered kPruned, never inserted and run again.
constexpr std::string_view kV10 = R"sql(
CREATE TABLE watch_prune_horizon (
  id        INTEGER PRIMARY KEY CHECK (id = 1),
  before_ms BIGINT NOT NULL
);
INSERT INTO watch_prune_horizon (id, before_ms) VALUES (1, 0);
)sql";

// Version 11: the unfinished leases, found without reading the finished history, for a replica to
// take over the slots of one that died holding them (store/watch_leases.h, AbandonedLeases).
constexpr std::string_view kV11 = R"sql(
CREATE INDEX watch_leases_abandoned ON watch_leases (expires_at) WHERE finished_at IS NULL;
)sql";

// Version 12: the commit sequence. A pass of the incident desk consumes what was committed since
// the last pass, never what is stamped later than a time: a check result stamped before a pass
// began and committed after it, or an hourly bucket's point written an hour after its bucket, was
// skipped by every later pass when the cursor was a time (issue 35, "lost alarms"). Every row of
// check_results, change_events and metric_points (a point when written or its value changed)
// carries the sequence of the transaction that committed it; commit_seq.n is the last one
// committed. Rows from before this version keep seq 0 and are read once more by time.
constexpr std::string_view kV12 = R"sql(
CREATE TABLE commit_seq (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  n  BIGINT NOT NULL
);
INSERT INTO commit_seq (id, n) VALUES (1, 0);
ALTER TABLE check_results ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE change_events ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE metric_points ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;
CREATE INDEX check_results_by_seq ON check_results (seq);
CREATE INDEX change_events_by_seq ON change_events (seq);
CREATE INDEX metric_points_by_seq ON metric_points (seq);
)sql";

// Version 13 (SQLite): the sequence stamped by triggers, so every writer stamps it whatever its
// code path. SQLite runs one writing transaction at a time, so a number taken inside one is in
// commit order. One number per row (SQLite has no per-transaction state a trigger can keep).
constexpr std::string_view kV13Sqlite = R"sql(
CREATE TRIGGER check_results_commit_seq AFTER INSERT ON check_results BEGIN
  UPDATE commit_seq SET n = n + 1 WHERE id = 1;
  UPDATE check_results SET seq = (SELECT n FROM commit_seq WHERE id = 1) WHERE id = NEW.id;
END;
CREATE TRIGGER change_events_commit_seq AFTER INSERT ON change_events BEGIN
  UPDATE commit_seq SET n = n + 1 WHERE id = 1;
  UPDATE change_events SET seq = (SELECT n FROM commit_seq WHERE id = 1) WHERE id = NEW.id;
END;
CREATE TRIGGER metric_points_commit_seq AFTER INSERT ON metric_points BEGIN
  UPDATE commit_seq SET n = n + 1 WHERE id = 1;
  UPDATE metric_points SET seq = (SELECT n FROM commit_seq WHERE id = 1)
    WHERE metric = NEW.metric AND ts = NEW.ts;
END;
CREATE TRIGGER metric_points_commit_seq_rewrite AFTER UPDATE OF value ON metric_points
  WHEN OLD.value IS NOT NEW.value BEGIN
  UPDATE commit_seq SET n = n + 1 WHERE id = 1;
  UPDATE metric_points SET seq = (SELECT n FROM commit_seq WHERE id = 1)
    WHERE metric = NEW.metric AND ts = NEW.ts;
END;
)sql";

// Version 14 (PostgreSQL): the same stamp, in commit order although transactions overlap. The
// first stamped row of a transaction increments commit_seq's one row and so holds its row lock
// until the transaction ends: the next stamping transaction waits for it, so a number is only
// taken after every smaller one committed, and a reader that sees n sees every row stamped <= n.
// A sequence (nextval) would not do: numbers are taken in start order, not commit order. The
// transaction's number is kept in a transaction-local setting (one increment per transaction).
// A value rewritten unchanged (a monitor re-reading its last buckets) keeps its number.
constexpr std::string_view kV14Postgres = R"sql(
CREATE FUNCTION dw_commit_seq() RETURNS BIGINT LANGUAGE plpgsql AS $fn$
DECLARE
  taken BIGINT;
BEGIN
  IF current_setting('dw.commit_seq_txid', true) = txid_current()::text THEN
    RETURN current_setting('dw.commit_seq')::bigint;
  END IF;
  UPDATE commit_seq SET n = n + 1 WHERE id = 1 RETURNING n INTO taken;
  PERFORM set_config('dw.commit_seq_txid', txid_current()::text, true);
  PERFORM set_config('dw.commit_seq', taken::text, true);
  RETURN taken;
END
$fn$;
CREATE FUNCTION dw_stamp_commit_seq() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  NEW.seq := dw_commit_seq();
  RETURN NEW;
END
$fn$;
CREATE TRIGGER check_results_commit_seq BEFORE INSERT ON check_results
  FOR EACH ROW EXECUTE FUNCTION dw_stamp_commit_seq();
CREATE TRIGGER change_events_commit_seq BEFORE INSERT ON change_events
  FOR EACH ROW EXECUTE FUNCTION dw_stamp_commit_seq();
CREATE TRIGGER metric_points_commit_seq BEFORE INSERT ON metric_points
  FOR EACH ROW EXECUTE FUNCTION dw_stamp_commit_seq();
CREATE TRIGGER metric_points_commit_seq_rewrite BEFORE UPDATE OF value ON metric_points
  FOR EACH ROW WHEN (OLD.value IS DISTINCT FROM NEW.value) EXECUTE FUNCTION dw_stamp_commit_seq();
)sql";

// Version 15: the approval-request sweep finds the proposals still awaiting a decision from the
// kinds of their events alone (StateStore::ActionEventsOfOpenRequests), never decoding the log.
constexpr std::string_view kV15 = R"sql(
CREATE INDEX action_events_by_subject_kind ON action_events (subject, kind, seq);
)sql";

// Version 16: a metric mark names the person who made it. A mark silences its monitor over its
// range, so who said the points are expected is part of the record (earlier marks keep '').
constexpr std::string_view kV16 = R"sql(
ALTER TABLE metric_marks ADD COLUMN author TEXT NOT NULL DEFAULT '';
)sql";

// Version 17: what the automatic monitors learnt about each table of a warehouse (observe/
// auto_monitor): its first sighting, last counters and columns, the times it was seen to change.
// One row per table, the state an opaque text the observe stage owns.
constexpr std::string_view kV17 = R"sql(
CREATE TABLE table_watch_states (
  asset_id   TEXT PRIMARY KEY CHECK (asset_id <> ''),
  warehouse  TEXT NOT NULL,
  state      TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX table_watch_states_by_warehouse ON table_watch_states (warehouse, asset_id);
)sql";

constexpr std::array kMigrations = {
    Migration{1, "check results, metric points, change events, cursors, graph, incidents, receipts",
              kV1},
    Migration{2, "metric marks (ranges marked expected)", kV2},
    Migration{3, "action stage: person keys, proposals, action events", kV3},
    Migration{4, "notification outbox", kV4},
    Migration{5, "detector snapshots and metric history revisions", kV5},
    Migration{6, "detector snapshot state as bytes", kV6},
    Migration{7, "dw watch replicas, job leases and job runs", kV7},
    Migration{8, "notification outbox: the next message of each incident and channel", kV8},
    Migration{9, "detector snapshot state stored uncompressed (PostgreSQL)", kV9, "postgresql"},
    Migration{10, "dw watch: how far the lease and run history was pruned", kV10},
    Migration{11, "dw watch: the unfinished leases, for taking over a dead replica's slots", kV11},
    Migration{12, "the commit sequence of check results, change events and metric points", kV12},
    Migration{13, "the commit sequence stamped on write (SQLite)", kV13Sqlite, "sqlite"},
    Migration{14, "the commit sequence stamped on write in commit order (PostgreSQL)", kV14Postgres,
              "postgresql"},
    Migration{15, "action events by subject and kind (the approval-request sweep)", kV15},
    Migration{16, "metric marks name their author", kV16},
    Migration{17, "what the automatic monitors learnt per table", kV17},
    // Add version 18 here.
};

}  // namespace

std::span<const Migration> AllMigrations() { return kMigrations; }

std::string RenderDdl(std::string_view ddl, std::string_view backend) {
  const bool postgres = backend == "postgresql";
  const std::pair<std::string_view, std::string_view> spellings[] = {
      {"{ID}", postgres ? "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
                        : "INTEGER PRIMARY KEY AUTOINCREMENT"},
      {"{DOUBLE}", postgres ? "DOUBLE PRECISION" : "REAL"},
      {"{BYTES}", postgres ? "BYTEA" : "BLOB"},
  };
  std::string out(ddl);
  for (const auto& [token, spelled] : spellings)
    for (size_t pos = out.find(token); pos != std::string::npos; pos = out.find(token, pos)) {
      out.replace(pos, token.size(), spelled);
      pos += spelled.size();
    }
  return out;
}

int CurrentSchemaVersion() { return kMigrations.back().version; }

}  // namespace dw::store
