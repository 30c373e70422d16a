// One `dw watch` replica among several on a PostgreSQL state store: the loop's JobLeases over the
// store's leases (store/watch_leases.h), and the replica's heartbeat. The heartbeat, every third
// of the lease time, keeps the replica's row and the leases of the jobs it is running alive, and
// measures the replica's clock against the database's: a replica whose clock is more than
// `max_clock_skew_ms` away from the store's names its slots differently from the others (slots
// are multiples of `every` on the replica's clock) and so refuses to take leases, saying why, until
// its clock agrees again. Expiry itself is always judged on the database's clock.
//
// A batch of slots (WatchLoop's ClaimBatch) is asked for in one store statement, and this
// replica takes at most its share of it (observe/watch/fair_share.h): of the slots of one due
// time, their number divided by the replicas alive at the last heartbeat (rounded up), counted
// over the whole wake-up rather than what is left. The rest is left for the other replicas, which
// wake for the same slots; what nobody took within the share grace is taken here then.
//
// The lease and run history is kept bounded by a job of its own on the loop
// (AddLeaseHistoryJob): like any job its slot is leased, so one replica at a time prunes, in short
// bounded steps (store::WatchLeases::PruneWatchHistory).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "observe/watch/fair_share.h"
#include "observe/watch/watch_loop.h"
#include "store/watch_leases.h"

namespace dw::observe::watch {

struct ReplicaOptions {
  int64_t lease_ms = 30'000;           // a silent replica's slots are taken over after this
  int64_t max_clock_skew_ms = 30'000;  // further than this from the store's clock: no leases
  // Finished leases and runs older than this are deleted by the lease-history job.
  int64_t keep_history_ms = 24LL * 3600 * 1000;
  // A free slot beyond this replica's share is left for the others this long, then taken here.
  int64_t share_grace_ms = 1000;
  // One prune step deletes at most this many slots (with their runs) and silent replicas; a job
  // run stops after prune_budget_ms.
  int64_t prune_rows = 2000;
  int64_t prune_budget_ms = 2000;
  // The heartbeat's own connection to the store (null: `leases`'). A store connection serves one
  // statement at a time: sharing the jobs' one, a heartbeat waits behind whatever a job is doing
  // with it (a statement slow on a loaded machine, one waiting for a lock), and a live replica
  // loses its leases. Must outlive the ReplicaLeases.
  store::WatchLeases* heartbeat_leases = nullptr;
};

class ReplicaLeases final : public JobLeases {
 public:
  // `self` names the replica (id, host, pid, started); `say` gets one line per change of state
  // (refusing, taking leases again, a lease lost). REQUIRES: `leases` and `clock` outlive this.
  ReplicaLeases(store::WatchLeases& leases, const Clock& clock, store::WatchReplica self, ReplicaOptions options,
                std::function<void(const std::string&)> say);
  ~ReplicaLeases() override;

  // Registers the replica with a first heartbeat and starts the heartbeat thread. The store's
  // error when it cannot be reached (the replica must not start blind).
  Status Start();
  // One heartbeat now: measures the clock offset, decides whether to refuse leases, writes the
  // heartbeat and extends the leases of running jobs. What the thread does; tests call it directly.
  Status Beat();
  // Stops the heartbeat thread, marks the replica stopped and releases its unfinished leases.
  Status Stop();

  // Why this replica refuses leases now ("" when it takes them).
  std::string refusing() const;
  const std::string& id() const { return self_.id; }

  Answer Claim(const std::string& job, int64_t due_ms) override;
  void Finish(const std::string& job, int64_t due_ms, const Status& outcome) override;
  std::vector<Answer> ClaimBatch(const std::vector<SlotRef>& slots) override;
  void FinishBatch(const std::vector<SlotEnd>& ends) override;
  // The store's abandoned slots (store::WatchLeases::AbandonedLeases), swept at most once per
  // poll interval (a tenth of the lease time, 0.1 to 5 s) and never while refusing leases;
  // nothing between sweeps or when the store cannot answer (the next sweep asks again).
  std::vector<SlotRef> Abandoned() override;

  // The replicas alive (heartbeat within their lease time, not stopped, not refusing leases) at
  // the last heartbeat, this one included: what a batch is shared among.
  int live_replicas() const { return live_replicas_.load(); }

  // Prunes the lease and run history older than keep_history_ms in bounded steps until nothing
  // old is left or prune_budget_ms has passed (the rest is for the next run): the rows deleted.
  // The store's error when a step fails (the steps before it stand).
  Result<store::WatchPrune> PruneHistory();

 private:
  int64_t PollMs() const;
  // The loop's answer to the store's, remembering the run id of a slot taken.
  Answer Translate(const std::string& job, int64_t due_ms, const store::LeaseClaim& c);
  // One line about a run's end the store did not accept as this replica's.
  void SayEnd(const std::string& job, int64_t due_ms, const Result<bool>& held);
  void HeartbeatLoop();

  store::WatchLeases& leases_;
  store::WatchLeases& beat_leases_;  // leases_ unless ReplicaOptions::heartbeat_leases
  const Clock& clock_;
  store::WatchReplica self_;
  const ReplicaOptions o_;
  std::function<void(const std::string&)> say_;

  mutable std::mutex mu_;
  std::string refusing_;                    // under mu_
  std::map<std::string, int64_t> run_ids_;  // "job@due" -> its watch_runs id, under mu_
  FairShare share_;                         // under mu_
  int64_t next_sweep_ms_ = 0;               // when Abandoned asks the store again, under mu_
  std::atomic<int> live_replicas_{1};
  std::atomic<int> rank_{0};  // this replica's place among the live ones (by id)
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread heartbeat_;
};

// The id of a replica started now in this process: "<host>:<pid>:<started ms>".
store::WatchReplica ThisReplica(const Clock& clock, int64_t lease_ms);

// The job "prune-lease-history" (group "state", every `every_ms`): replica.PruneHistory(), one
// line through `say` when it deleted anything. REQUIRES: `replica` outlives the loop.
Status AddLeaseHistoryJob(WatchLoop& loop, ReplicaLeases& replica, int64_t every_ms,
                          std::function<void(const std::string&)> say);

}  // namespace dw::observe::watch
