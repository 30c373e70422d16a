// ContextGraph::ApplyGrouped: group commit. Callers queue their batches; whoever finds no commit
// running takes everything queued, stores it in one transaction (ApplyInOrder) and wakes the
// callers of that group. A transaction's fixed cost (the generation check, the commit and its
// WAL write) is then shared by every event that arrived while the previous one ran.
#include "graph/context_graph.h"

namespace dw::graph {

struct ContextGraph::Queued {
  std::vector<SourceBatch> batches;
  Result<GroupSummary> result = Internal("not committed");
  bool done = false;
};

Result<ContextGraph::GroupSummary> ContextGraph::ApplyGrouped(std::vector<SourceBatch> batches) {
  for (const SourceBatch& b : batches) DW_RETURN_IF_ERROR(ValidateSourceBatch(b));
  Queued me;
  me.batches = std::move(batches);
  std::unique_lock<std::mutex> lock(queue_mu_);
  queue_.push_back(&me);
  while (!me.done) {
    if (committing_) {
      queue_cv_.wait(lock);
      continue;
    }
    committing_ = true;
    std::vector<Queued*> group;
    group.swap(queue_);
    lock.unlock();
    std::vector<const SourceBatch*> all;
    for (Queued* q : group)
      for (const SourceBatch& b : q->batches) all.push_back(&b);
    Result<ApplySummary> applied = ApplyInOrder(all);
    lock.lock();
    for (Queued* q : group) {
      if (applied.ok()) {
        q->result = GroupSummary{*applied, all.size()};
      } else {
        q->result = applied.status();
      }
      q->done = true;
    }
    committing_ = false;
    queue_cv_.notify_all();
  }
  return std::move(me.result);
}

}  // namespace dw::graph
