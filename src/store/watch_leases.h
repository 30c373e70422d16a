// Several `dw watch` replicas on one PostgreSQL state store: who is watching (replicas and their
// heartbeats), which replica runs a watch job's slot (one lease per job and due time), and every
// run a replica started (docs/watch.md).
//
// Leases are rows, taken with INSERT … ON CONFLICT DO NOTHING and, for a slot whose holder went
// silent, SELECT … FOR UPDATE SKIP LOCKED, rather than advisory locks: a row outlives the session
// that took it, so "this slot ran once" is a durable record `dw watch --status` and tests can read,
// and a lease expires on the database's clock, whoever's process died. Every time here (lease
// expiry, heartbeats) is the database's now(), never a replica's clock: replicas' clocks disagree,
// the database's is one.
//
// A capability beside StateStore (as store/metric_snapshots.h), offered by the PostgreSQL backend
// only: SQLite keeps a single `dw watch` (store/sqlite_watch_lock.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "store/state_store.h"

namespace dw::store {

// One `dw watch` process as it registers itself.
struct WatchReplica {
  std::string id;       // unique per process: "<host>:<pid>:<started ms>"
  std::string host;
  int64_t pid = 0;
  int64_t started_ms = 0;        // by the replica's clock
  int64_t lease_ms = 0;          // the lease time it takes leases for
  int64_t clock_offset_ms = 0;   // its clock minus the database's, at its last heartbeat
  std::string refusing;          // why it takes no leases now ("" when it does)
  // Read back only:
  int64_t heartbeat_ms = 0;      // the database's time of its last heartbeat
  std::optional<int64_t> stopped_ms;  // set when it stopped cleanly
};

// A job's slot: who holds it and until when; finished once it ran to success.
struct WatchLease {
  std::string job;
  int64_t due_ms = 0;
  std::string holder;
  int64_t run_id = 0;
  int64_t attempts = 0;
  int64_t taken_ms = 0;
  int64_t expires_ms = 0;
  std::optional<int64_t> finished_ms;
};

// One attempt at a slot: outcome "running" (or a replica that died in it), "ok", "failed", or
// "lost" (its lease expired and another replica took the slot before it finished).
struct WatchRun {
  int64_t id = 0;
  std::string job;
  int64_t due_ms = 0;
  std::string replica_id;
  int64_t started_ms = 0;
  std::optional<int64_t> finished_ms;
  std::string outcome;
  std::string message;
};

enum class LeaseAnswer {
  kTaken,  // this replica holds it now: run the job
  kDone,   // the slot already ran to success (here or elsewhere)
  kHeld,   // another replica holds it, not expired (or is taking it this instant)
  kLeft,   // ClaimLeases only: free, but beyond this claim's max_take (left for other replicas)
  // No lease row, older than the history the store pruned, and a later slot of the job has a row:
  // the slot was accounted for (or skipped) long ago and its record pruned. Never run now (a
  // replica that stalled longer than the kept history would otherwise run it a second time).
  kPruned,
};

struct LeaseClaim {
  LeaseAnswer answer = LeaseAnswer::kHeld;
  std::string holder;       // kHeld: who holds it
  int64_t run_id = 0;       // kTaken: the watch_runs row of this attempt
  int64_t expires_ms = 0;   // kTaken/kHeld: when the lease expires (database time)
  int64_t db_now_ms = 0;    // the database's time when answering
};

// One slot of a batch claim.
struct LeaseSlot {
  std::string job;
  int64_t due_ms = 0;
  // ClaimLeases: taken whenever it is free, outside the claim's max_take (a slot the replica has
  // left for the others long enough, or whose holder's lease has expired).
  bool overdue = false;
};

// What one PruneWatchHistory call deleted, and the time before which it deleted.
struct WatchPrune {
  int64_t before_ms = 0;  // the database's now minus keep_ms
  int64_t leases = 0;
  int64_t runs = 0;
  int64_t replicas = 0;
  int64_t total() const { return leases + runs + replicas; }
};

// The end of one run a batch claim answered kTaken, for FinishLeases.
struct LeaseFinish {
  std::string job;
  int64_t due_ms = 0;
  int64_t run_id = 0;
  bool ok = false;
  std::string message;
};

// Thread-safe like StateStore. Every error is the store's (kUnavailable when the server is gone).
class WatchLeases {
 public:
  virtual ~WatchLeases() = default;

  // Registers or refreshes `self` (host, pid, started, lease time, clock offset, refusal), sets its
  // heartbeat to the database's now, and extends every unfinished lease it holds to now + its
  // lease_ms, in one transaction. Returns the database's now (Unix ms).
  virtual Result<int64_t> Heartbeat(const WatchReplica& self) = 0;
  // The database's now (Unix ms), for a replica to measure its clock against.
  virtual Result<int64_t> DatabaseNowMs() = 0;
  // Claims the slot (job, due_ms) for `replica` for lease_ms: kTaken when nobody had it, or its
  // holder's lease expired unfinished (the attempt is counted and a watch_runs row started);
  // kDone when it finished; kHeld otherwise. InvalidArgument for an empty job or replica, a
  // lease_ms <= 0.
  virtual Result<LeaseClaim> ClaimLease(const std::string& job, int64_t due_ms, const std::string& replica,
                                        int64_t lease_ms) = 0;
  // Ends `replica`'s attempt `run_id` at (job, due_ms): on success the slot is finished; on
  // failure the lease is released (expired now) so any replica retries the slot. Returns false,
  // marking the run "lost" and leaving the lease alone, when the replica no longer holds it.
  virtual Result<bool> FinishLease(const std::string& job, int64_t due_ms, const std::string& replica,
                                   int64_t run_id, bool ok, const std::string& message) = 0;
  // ClaimLease for many slots in ONE statement: one answer per slot, in the order given. Of the
  // free slots (no lease yet, or expired unfinished) every `overdue` one is taken, and at most
  // `max_take` of the others, the first ones in the order given; the other free ones are answered
  // kLeft and left untouched, so a replica takes its share of a batch and the other replicas
  // theirs. A slot another replica is inserting or taking over this instant is answered kHeld
  // (holder "" and expires_ms = db_now_ms: ask again shortly). InvalidArgument for an empty job or
  // replica, a job twice, a lease_ms <= 0, a max_take < 0, or more than kMaxLeaseBatch slots.
  virtual Result<std::vector<LeaseClaim>> ClaimLeases(const std::vector<LeaseSlot>& slots, const std::string& replica,
                                                      int64_t lease_ms, int64_t max_take) = 0;
  // FinishLease for many runs of `replica` in ONE statement: one answer per run, in the order
  // given (false: the lease was lost, the run is marked "lost"). InvalidArgument as ClaimLeases.
  virtual Result<std::vector<bool>> FinishLeases(const std::vector<LeaseFinish>& runs, const std::string& replica) = 0;
  // Marks `replica` stopped and releases the leases it still holds unfinished.
  virtual Status StopReplica(const std::string& replica) = 0;

  // For `dw watch --status`: every replica, latest heartbeat first; the unfinished leases; the
  // newest `limit` runs, newest first.
  virtual Result<std::vector<WatchReplica>> Replicas() = 0;
  virtual Result<std::vector<WatchLease>> OpenLeases() = 0;
  // The slots whose lease expired unfinished while their holder is gone (stopped, or silent for
  // its lease time: it died holding them, or stopped before running what it had claimed), by the
  // database's clock, longest expired first, at most `limit`: slots a replica's schedule may
  // never ask for again (it had moved past them when the holder took them), for the live
  // replicas to take over. A live holder's failed run is not among them: it retries it itself,
  // after its backoff. InvalidArgument for limit <= 0.
  virtual Result<std::vector<LeaseSlot>> AbandonedLeases(int limit) = 0;
  virtual Result<std::vector<WatchRun>> RecentRuns(int limit) = 0;

  // One bounded step of pruning what is older than `keep_ms` by the database's clock: at most
  // `max_rows` finished slots due before then (never a job's newest slot), each with its runs in
  // the same statement, and at most `max_rows` replicas silent since then, in short statements
  // whose rows are locked SKIP LOCKED (two pruners at once share the work, neither waits; a claim,
  // a finish or a heartbeat never waits for a prune). Before deleting, records how far history was
  // pruned, so a pruned slot is answered kPruned and never inserted again. A lease still
  // unfinished, and the runs of its slot, are kept whatever their age (the slot is owed a run).
  // Call again while `leases` or `replicas` reaches max_rows. InvalidArgument for a keep_ms or
  // max_rows <= 0.
  virtual Result<WatchPrune> PruneWatchHistory(int64_t keep_ms, int64_t max_rows) = 0;

  // A mutex across replicas for work that must not overlap (the incidents stage's signal pass):
  // true when this store's session now holds `name`, false when another session does. Held
  // until ReleaseMutex or the end of the session (a replica that dies lets go at once).
  virtual Result<bool> TryHoldMutex(const std::string& name) = 0;
  virtual Status ReleaseMutex(const std::string& name) = 0;
};

// The most slots one ClaimLeases or FinishLeases takes (a larger batch is split by the caller):
// bounds the statement's parameter (about 100 bytes a slot) and the time its row locks are held.
inline constexpr size_t kMaxLeaseBatch = 20'000;

// The leases of `store`, or nullptr when it offers none (SQLite, test doubles).
WatchLeases* WatchLeasesOf(StateStore& store);

}  // namespace dw::store
