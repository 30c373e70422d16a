// ContextGraph::ApplyGrouped: group commit. Callers queue their batches; whoever finds no commit
// running leads: it takes everything queued, stores it in one transaction (ApplyInOrder) and
// wakes the callers of that group. A transaction's fixed cost (the generation check, the commit and
// its WAL write) is then shared by every event that arrived while the previous one ran.
//
// Wakeups are per caller: the leader wakes each caller of its group (their results are ready) and
// exactly one waiting caller to lead the next group. One condition variable for everyone would
// wake all waiters after every commit, and all but one of them would go back to sleep: with 32
// connections that is dozens of useless context switches per transaction.
#include "graph/context_graph.h"

namespace dw::graph {

// One caller's batches and its wakeup. Shared with the leader, which may still be notifying it
// after the caller has seen `done` (under the lock) and returned.
struct ContextGraph::Queued {
  std::vector<SourceBatch> batches;
  Result<GroupSummary> result = Internal("not committed");
  bool done = false;  // result is set (under queue_mu_)
  bool lead = false;  // this caller leads the next group (under queue_mu_)
  std::condition_variable cv;
};

Result<ContextGraph::GroupSummary> ContextGraph::ApplyGrouped(std::vector<SourceBatch> batches) {
  for (const SourceBatch& b : batches) DW_RETURN_IF_ERROR(ValidateSourceBatch(b));
  auto me = std::make_shared<Queued>();
  me->batches = std::move(batches);
  std::unique_lock<std::mutex> lock(queue_mu_);
  queue_.push_back(me);
  if (committing_) {
    me->cv.wait(lock, [&] { return me->done || me->lead; });
    if (me->done) return std::move(me->result);
  }
  committing_ = true;  // ours until handed on (or released) below
  std::vector<std::shared_ptr<Queued>> group;
  group.swap(queue_);
  lock.unlock();
  std::vector<const SourceBatch*> all;
  for (const auto& q : group)
    for (const SourceBatch& b : q->batches) all.push_back(&b);
  Result<ApplySummary> applied = ApplyInOrder(all);
  lock.lock();
  for (const auto& q : group) {
    if (applied.ok()) {
      q->result = GroupSummary{*applied, all.size()};
    } else {
      q->result = applied.status();
    }
    q->done = true;
  }
  // Whoever queued meanwhile waits for a leader: hand the next group to the first of them.
  std::shared_ptr<Queued> next;
  if (!queue_.empty()) {
    next = queue_.front();
    next->lead = true;
  } else {
    committing_ = false;
  }
  lock.unlock();
  // Notified outside the lock so a woken caller does not block on it at once; the shared_ptrs
  // keep each Queued alive until its notification is done.
  if (next) next->cv.notify_one();
  for (const auto& q : group)
    if (q != me) q->cv.notify_one();
  return std::move(me->result);
}

}  // namespace dw::graph
