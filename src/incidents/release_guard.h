// The release guard: a restore that skipped operator state, on a job whose writes reach a
// customer-facing consumer, is an incident the moment the collector sees it, before any metric
// moves. "Skipping empty savepoint state" lines never become such an event (the Flink collector
// drops them), and a restore from a checkpoint (the job recovering after a failure) is not one.
#pragma once

#include <string>
#include <vector>

#include "graph/graph_index.h"
#include "store/records.h"

namespace dw::incidents {

// True iff `event` is a restore that dropped state from a savepoint (kind restore_skipped_state,
// not from a checkpoint after a failure).
bool IsReleaseGuardKind(const store::ChangeEvent& event);

struct GuardVerdict {
  bool known = false;  // the job is in the graph
  bool customer_facing_reached = false;
  std::string consumer;  // the first customer-facing asset reached (breadth first)
  // What the job writes, down to (and including) the first warehouse tables; sorted.
  std::vector<std::string> damaged;
};

// What the guard says of a state-dropping restore on `job` (a canonical id). Terminates on cycles.
GuardVerdict JudgeRestore(const graph::GraphIndex& index, const std::string& job, int max_depth);

// True iff assets of this kind run code (jobs, flows, connectors) rather than hold data.
bool IsProcessKind(const std::string& kind);

}  // namespace dw::incidents
