// The `dw watch` scheduler: runs jobs (monitor evaluations today; checks and platform collection
// register here too, through AddJob) on their `every:` with a fixed per-job jitter, at most one
// job at a time per group (a warehouse) and at most `max_parallel` groups at once, one catch-up
// run after downtime instead of every missed one, failures recorded and retried with backoff, and
// a stop flag checked between runs (SIGTERM sets it). Time comes only from the Clock, and waiting
// is a function the caller gives, so tests drive days of schedule in milliseconds. With
// WatchOptions::leases (several replicas on one store) each slot is asked for before it runs, and
// runs here only when this replica holds it: the slots of one wake-up are asked for in one batch
// (JobLeases::ClaimBatch, one store statement) and their ends reported in one batch per run.
//
// How a batch is formed. A job starts up to jitter_fraction of `every` after its slot. At a
// wake-up at time t the batch is every slot whose start (slot + jitter) is at or before t, and,
// with leases and claim_ahead_ms > 0, also every slot whose slot time has come (<= t) and whose
// start falls within claim_ahead_ms after t: those run now, early within their own jitter window
// (still after their slot, still within 10% of `every`), so that 10,000 monitors spread over a
// minute's first 6 s are claimed in a few statements rather than a few slots each wake-up. A slot
// whose time has not come is never claimed ahead. Without leases (SQLite, the replay) nothing is
// claimed ahead: the single watcher's schedule is unchanged.
//
// Batch runners. Jobs that name a batch runner (WatchJob::batch) and are due at one wake-up in one
// group are run by that runner in ONE call (the monitors of a warehouse judged through one batched
// store call), instead of one by one through their own `run`.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace dw::observe::watch {

struct WatchJob {
  std::string name;       // unique, e.g. "monitor:avg_active_balance"
  std::string group;      // jobs of one group never run at the same time (e.g. "warehouse:main")
  int64_t every_ms = 0;   // > 0
  // Does the work for the slot due at `due_ms`; `missed` is how many earlier slots were skipped
  // (downtime), so a job can backfill them in one go. An error is recorded and retried.
  std::function<Status(int64_t due_ms, int missed)> run;
  // Non-empty: the name of a batch runner (WatchLoop::AddBatchRunner, added first) that runs this
  // job's slots together with the other due jobs of its group naming it; `run` is then unused by
  // the loop (the runner may call it).
  std::string batch = {};
};

// One due slot handed to a batch runner.
struct BatchItem {
  std::string job;
  int64_t due_ms = 0;
  int missed = 0;
};
// Runs many due slots in one call; returns one Status per item, in the order given.
using BatchRunner = std::function<std::vector<Status>(const std::vector<BatchItem>& items)>;

// Who runs a job's slot when several `dw watch` replicas share one store (observe/watch/
// replica_leases.h implements it over the store's leases). Without one, every slot runs here.
class JobLeases {
 public:
  enum class Verdict {
    kRun,            // this replica holds the slot: run it, then Finish
    kDoneElsewhere,  // the slot already ran (here or on another replica): nothing to do
    kHeldElsewhere,  // another replica runs it now: ask again in retry_in_ms (it may die)
    kRefused,        // this replica may not take leases now (`why`): ask again in retry_in_ms
  };
  struct Answer {
    Verdict verdict = Verdict::kRun;
    int64_t retry_in_ms = 0;
    std::string why;
  };
  struct SlotRef {
    std::string job;
    int64_t due_ms = 0;
  };
  struct SlotEnd {
    std::string job;
    int64_t due_ms = 0;
    Status outcome;
  };
  virtual ~JobLeases() = default;
  // Asks for job `job`'s slot due at `due_ms` (every replica names slots alike: multiples of the
  // job's `every` on its clock). Store errors are answered kRefused with the reason.
  virtual Answer Claim(const std::string& job, int64_t due_ms) = 0;
  // Reports the end of a run Claim answered kRun, with its outcome.
  virtual void Finish(const std::string& job, int64_t due_ms, const Status& outcome) = 0;
  // Claim for many slots at once: one Answer per slot, in the order given. The default asks one
  // by one; ReplicaLeases asks the store in one statement.
  virtual std::vector<Answer> ClaimBatch(const std::vector<SlotRef>& slots);
  // Finish for many runs at once. The default reports one by one.
  virtual void FinishBatch(const std::vector<SlotEnd>& ends);
  // Slots of any job that a replica took and left unfinished when it died or stopped, for the loop
  // to ask for as held slots: a replica whose schedule had already moved past such a slot when
  // the other took it would otherwise never ask for it, and nobody would run it. May answer
  // nothing between sweeps. The default: none.
  virtual std::vector<SlotRef> Abandoned() { return {}; }
};

struct WatchOptions {
  // Null: a single watcher runs every slot itself (SQLite, the replay, tests). Must outlive the loop.
  JobLeases* leases = nullptr;
  int max_parallel = 2;           // groups running at once
  double jitter_fraction = 0.1;   // each job starts up to this fraction of `every` after its slot
  int64_t retry_min_ms = 30'000;  // first retry after a failure; doubles up to `every`
  // With leases: slots whose time has come and whose jitter ends within this many ms are claimed
  // (and run) with the slots due now, in one batch (see the top of this file). Ignored without.
  int64_t claim_ahead_ms = 0;
};

// What happened to one run, kept for the caller to log or report.
struct RunRecord {
  std::string job;
  int64_t due_ms = 0;
  int64_t started_ms = 0;
  int missed = 0;
  Status status;
  // False when the leases said this replica does not run the slot (done or held elsewhere, or
  // refused: `status` then says why); the job's `run` was not called.
  bool ran = true;
};

class WatchLoop {
 public:
  WatchLoop(const Clock& clock, WatchOptions options);

  // Adds a job; its first slot is the current one (the latest multiple of `every` at or before
  // now), started after its jitter. InvalidArgument for an empty name, a duplicate name, no `run`
  // or `every` <= 0. REQUIRES: not called while RunDue or Run is running.
  Status AddJob(WatchJob job);

  // Adds the batch runner `name` for the jobs whose `batch` names it. InvalidArgument for an empty
  // name, a duplicate or no function. REQUIRES: not called while RunDue or Run is running.
  Status AddBatchRunner(const std::string& name, BatchRunner run);

  // Runs every job due at the clock's now (once each, however many slots it missed), and with
  // leases those claimed ahead, and returns their records. Failed jobs are due again after their
  // backoff.
  std::vector<RunRecord> RunDue();

  // Runs every job once now, whatever its schedule (`dw watch --once`).
  std::vector<RunRecord> RunAllNow();

  // Milliseconds from now until the next job is due (0 if one is due already; -1 with no jobs).
  int64_t MillisUntilNextDue() const;

  // One job's place in the schedule (what `dw watch` announces when it starts).
  struct JobSchedule {
    std::string name;
    std::string group;
    int64_t every_ms = 0;
    int64_t next_start_ms = 0;  // when its next run starts (its slot plus jitter, or its retry)
  };
  // Every job, by next start then name.
  std::vector<JobSchedule> Schedule() const;

  // RunDue, then wait(ms until the next job) until `stop` is set; `wait` may return early (a
  // signal). `on_run` sees every record. Returns the number of runs.
  size_t Run(const std::atomic<bool>& stop, const std::function<void(int64_t)>& wait,
             const std::function<void(const RunRecord&)>& on_run);

 private:
  struct Slot {
    WatchJob job;
    int64_t jitter_ms = 0;
    int64_t next_due_ms = 0;   // the slot time (without jitter)
    int64_t retry_at_ms = -1;  // >= 0 after a failure: when to try again
    int64_t backoff_ms = 0;
    // With leases: this job's slots another replica held when asked (due time -> when to ask
    // again), each asked for again as itself (not folded into a later slot) until it is done or
    // taken over here, so that a replica dying with it has its run taken over, not skipped. The
    // job's schedule (next_due_ms) goes on meanwhile: its later slots, due while one waits for a
    // lease time, are asked for on time, not skipped behind it.
    std::map<int64_t, int64_t> held;
  };
  struct Pick {
    size_t slot = 0;
    RunRecord record;
    bool held = false;  // a slot of Slot::held, asked for again
  };
  int64_t StartAt(const Slot& s) const;
  // The slots to run at `now` (see the top of this file), each with its due time and missed count:
  // at most one per job, a slot another replica held (asked for as itself) when its time to ask
  // again has come, else the job's scheduled slot when its start has come.
  std::vector<Pick> PickDue(int64_t now);
  // With leases: each abandoned slot (JobLeases::Abandoned) of a job of this loop that its
  // schedule has passed becomes a held slot, asked for at `now`.
  void AdoptAbandoned(int64_t now);
  // Records in `s` when to ask again after the leases said this replica does not run r's slot,
  // and in `r` why not.
  void ApplyNotRun(Slot& s, Pick& p, const JobLeases::Answer& a);
  // Runs one group's picks (`members`: indexes into picks), batched jobs through their runner, the
  // others one by one; appends their records.
  void RunGroup(std::vector<Pick>& picks, const std::vector<size_t>& members, std::vector<RunRecord>& out);
  // Runs the n picks unit[0..n) as one unit (one job, or one call of their batch runner), reports
  // their ends to the leases in one batch and reschedules them; appends their records.
  void RunUnit(std::vector<Pick>& picks, const size_t* unit, size_t n, std::vector<RunRecord>& out);
  // After the run of `p`: the next slot on success, the backoff on failure.
  void Reschedule(Slot& s, const Pick& p);
  const Clock& clock_;
  WatchOptions o_;
  mutable std::mutex mu_;
  std::vector<Slot> slots_;
  std::map<std::string, BatchRunner> batch_runners_;
};

}  // namespace dw::observe::watch
