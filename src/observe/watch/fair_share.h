// How many of a wake-up's free slots one `dw watch` replica takes (docs/watch.md, "Each replica
// takes its share"). Every replica wakes for the same slots; without a bound the first to ask
// would take them all, and a replica with nothing to run would come back at once for a share of
// what is left, so the spread depended on who asked fastest (4,444 / 0 / 5,556 with no work per
// slot). The bound here is counted from the wake-up, not from what is left: the slots of one due
// time this replica has been asked for, divided by the replicas alive at the last heartbeat
// (rounded up), minus what it took of them already, and never more than the statement's own
// slots divided by the live replicas (so a wake-up of a few slots of different due times is
// shared too). A free slot beyond the share is left for the
// others for `grace_ms`; after that it is overdue and taken here whatever the share (a replica
// counted alive may have died, or be slow), as is a slot whose holder's lease has expired (a
// takeover is never delayed by the share). Each replica starts its claim at its own place in the
// batch (its rank among the live replicas), so replicas asking at once rarely want the same slots.
//
// Not thread-safe: ReplicaLeases calls it under its lock. Times are the replica's clock (Unix ms).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "store/watch_leases.h"

namespace dw::observe::watch {

class FairShare {
 public:
  // REQUIRES: grace_ms >= 0.
  explicit FairShare(int64_t grace_ms) : grace_ms_(grace_ms) {}

  // What to ask the store for `slots` at now_ms with `live` replicas alive, this one ranked `rank`
  // (0-based) among them: the slots in the order to ask (overdue first, then the others from this
  // replica's place round the batch), each marked overdue or not, `order[i]` the index in `slots`
  // of the i-th, and the max_take for the others.
  struct Plan {
    std::vector<store::LeaseSlot> ask;
    std::vector<size_t> order;
    int64_t max_take = 0;
  };
  Plan Before(const std::vector<store::LeaseSlot>& slots, int live, int rank, int64_t now_ms);

  // Records the store's answers to a Plan's `ask` (same order), at now_ms.
  void After(const Plan& plan, const std::vector<store::LeaseClaim>& answers, int64_t now_ms);

  // For a slot just answered kLeft: when to ask again, in ms (soon while this replica still has
  // share left at its due time; else when the slot becomes overdue).
  int64_t RetryLeftMs(const std::string& job, int64_t due_ms, int64_t now_ms) const;

  // How many of the slots due at due_ms this replica has taken, and its share of them now.
  int64_t taken(int64_t due_ms) const;
  int64_t share(int64_t due_ms, int live) const;

 private:
  struct Wake {
    std::set<std::string> jobs;  // the slots of this due time asked for here
    int64_t taken = 0;
    int64_t touched_ms = 0;
  };
  struct Waiting {
    int64_t left_since_ms = -1;   // first answered kLeft
    int64_t held_until_ms = -1;   // answered kHeld by a named holder: its lease's end (our clock)
    int64_t touched_ms = 0;
  };
  bool Overdue(const Waiting& w, int64_t now_ms) const;
  void Forget(int64_t now_ms);

  const int64_t grace_ms_;
  int last_live_ = 1;
  std::map<int64_t, Wake> wakes_;
  std::map<std::pair<std::string, int64_t>, Waiting> waiting_;
  int64_t forgot_ms_ = 0;
};

}  // namespace dw::observe::watch
