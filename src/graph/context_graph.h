// The context graph: assets and edges from every lineage source, persisted in the state store and
// held in a compact in-memory index for queries. Writers (ingestion) are serialised and write the
// store first, in one transaction, then update the index under a short exclusive lock; readers
// share the index and are blocked only for that update.
#pragma once

#include <array>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "graph/graph_index.h"
#include "graph/source_batch.h"
#include "store/state_store.h"

namespace dw::graph {

// What one Apply changed.
struct ApplySummary {
  int assets_described = 0;  // assets the batch described (new or updated)
  int placeholders_added = 0;  // unknown assets an edge named, added as placeholders
  int edges_added = 0;
  int edges_refreshed = 0;  // already known; last-seen moved to now
  int edges_marked_stale = 0;
  int runs_recorded = 0;
};

class ContextGraph {
 public:
  // Loads every asset and edge from `store` into a new index. `store` and `clock` must outlive
  // the graph. Fails when the store cannot be read or holds a record that is not a valid graph row
  // (kDataLoss naming it).
  static Result<std::unique_ptr<ContextGraph>> Load(store::StateStore* store, const Clock& clock);

  // Stores what `batch` asserts: assets (facts merged per origin), edges (last-seen set to now,
  // a stale mark cleared), placeholders for unknown endpoints, stale marks per batch.stale_scope,
  // runs as change events. Fails with kInvalidArgument (nothing written) when an id is not
  // canonical or a relation is unknown; with the store's error (nothing written) when it fails.
  Result<ApplySummary> Apply(const SourceBatch& batch);

  // Apply for several batches in one store transaction, ending as if they were applied one after
  // another (each batch's stale marks see the batches before it). REQUIRES: each batch passed
  // ValidateSourceBatch. Fails with the store's error, nothing written.
  Result<ApplySummary> ApplyInOrder(const std::vector<const SourceBatch*>& batches);

  // Group commit for many concurrent small writers (the OpenLineage HTTP route): validates
  // `batches` (kInvalidArgument, nothing queued), queues them and returns once they are stored.
  // One caller at a time commits everything queued so far in one ApplyInOrder; the others wait.
  // On success: the summary of the whole group and how many batches it held. A failed commit is
  // returned to every caller of that group.
  struct GroupSummary {
    ApplySummary applied;  // of the whole group
    size_t group_batches = 0;
  };
  Result<GroupSummary> ApplyGrouped(std::vector<SourceBatch> batches);

  // The checks Apply makes before writing: canonical ids, known relations. kInvalidArgument.
  static Status ValidateSourceBatch(const SourceBatch& batch);

  // Sets the workspace's warehouses the names of intake are placed in (GraphIndex::warehouses);
  // kept across reloads. Call once after Load, before intake.
  void SetWarehouses(std::vector<KnownWarehouse> warehouses);

  // Reloads the index when another process changed the graph since this one loaded or last
  // applied (the store's graph generation moved). Cheap when nothing changed; returns at once when
  // a write of this process is running (that write picks up other processes' writes first).
  Status Refresh();

  // Runs `fn(const GraphIndex&)` under the shared lock and returns what it returns.
  template <typename F>
  auto Read(F&& fn) const {
    std::shared_lock<std::shared_mutex> lock(mu_);
    return fn(index_);
  }

  const Clock& clock() const { return *clock_; }

 private:
  ContextGraph(store::StateStore* store, const Clock& clock) : store_(store), clock_(&clock) {}
  Status LoadFromStore(GraphIndex* index, std::string* generation);
  // Replaces the index with one loaded from the store. REQUIRES: writer_mu_ held.
  Status ReloadIndex();
  // One attempt of ApplyInOrder (REQUIRES: writer_mu_ held). Sets *others_wrote, and writes
  // nothing, when the store's generation is not the index's.
  Result<ApplySummary> TryApply(const std::vector<const SourceBatch*>& batches, bool* others_wrote);
  // How often ApplyInOrder computes a write again after other processes' writes before giving up.
  static constexpr int kApplyAttempts = 5;

  store::StateStore* store_;
  const Clock* clock_;
  std::mutex writer_mu_;  // one writer at a time
  mutable std::shared_mutex mu_;
  GraphIndex index_;
  std::string generation_;  // the store's graph generation the index reflects

  // The stored rows of assets this process read or wrote lately (under writer_mu_), so a source
  // that repeats itself costs no store read; cleared when another process writes.
  struct CachedAsset {
    store::GraphAsset row;
    // Per origin, what this process last merged into `row` for it: the fingerprints of the facts
    // and of the columns the row keeps for it, and the last_seen written. seen_ms 0: not known
    // (the row was read from the store), the row's JSON decides.
    struct Said {
      uint64_t facts = 0;
      uint64_t columns = 0;
      int64_t seen_ms = 0;
    };
    std::array<Said, kOriginCount> said{};
  };
  static constexpr size_t kAssetCacheSize = 50000;
  void RememberAsset(CachedAsset asset);
  StringMap<CachedAsset> asset_cache_;

  // Group commit (context_graph_group.cc).
  struct Queued;
  std::mutex queue_mu_;
  std::vector<std::shared_ptr<Queued>> queue_;
  bool committing_ = false;  // a leader is committing (or has been named to commit) a group
};

// The cursor under which the store records the graph generation (bumped by every Apply).
inline constexpr const char* kGraphGenerationCursor = "graph.generation";

}  // namespace dw::graph
