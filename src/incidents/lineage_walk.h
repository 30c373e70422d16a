// Breadth-first walks of the context graph index for grouping, the release guard and diagnosis:
// upstream or downstream from several start assets, each asset visited once (so cycles end),
// bounded by depth and by a visit budget, with the parent of every step kept so a path from any
// reached asset back to its start can be told. Edges every source stopped asserting are not
// followed. The visited marks are stamped, so one walker serves many walks for the cost of what
// each visits, not of the graph's size.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "graph/graph_index.h"

namespace dw::incidents {

enum class WalkDirection { kUpstream, kDownstream };

class LineageWalker {
 public:
  struct Step {
    graph::AssetIndex asset = graph::kNone;
    uint32_t depth = 0;           // 0 for a start
    uint32_t parent = graph::kNone;  // index of the step it was reached from; kNone for a start
  };

  // REQUIRES: `index` outlives the walker and does not change while it walks.
  explicit LineageWalker(const graph::GraphIndex& index) : index_(index) {}

  // Walks from `starts` in `direction`, at most `max_depth` hops and `max_visits` steps (starts
  // included). `expand(asset)` is asked for every reached asset other than a start: false keeps
  // the asset as a step but does not walk past it. Returns the steps in breadth-first order
  // (valid until the next Walk); truncated() tells whether the budget cut the walk short.
  template <typename Expand>
  const std::vector<Step>& Walk(const std::vector<graph::AssetIndex>& starts, WalkDirection direction,
                                int max_depth, size_t max_visits, Expand&& expand) {
    Begin();
    for (graph::AssetIndex s : starts)
      if (s < index_.asset_count() && Mark(s)) steps_.push_back({s, 0, graph::kNone});
    for (size_t i = 0; i < steps_.size(); ++i) {
      const Step step = steps_[i];
      if (static_cast<int>(step.depth) >= max_depth) continue;
      if (step.depth > 0 && !expand(step.asset)) continue;
      const auto& edges = direction == WalkDirection::kUpstream ? index_.in(step.asset) : index_.out(step.asset);
      for (graph::EdgeIndex e : edges) {
        const graph::EdgeEntry& edge = index_.edge(e);
        if (edge.IsStale()) continue;
        graph::AssetIndex next = direction == WalkDirection::kUpstream ? edge.src : edge.dst;
        if (!Mark(next)) continue;
        if (steps_.size() >= max_visits) {
          truncated_ = true;
          return steps_;
        }
        steps_.push_back({next, step.depth + 1, static_cast<uint32_t>(i)});
      }
    }
    return steps_;
  }

  // Walk without a stop: every reached asset is walked past.
  const std::vector<Step>& WalkAll(const std::vector<graph::AssetIndex>& starts, WalkDirection direction,
                                   int max_depth, size_t max_visits) {
    return Walk(starts, direction, max_depth, max_visits, [](graph::AssetIndex) { return true; });
  }

  bool truncated() const { return truncated_; }

  // The assets from step `i` of the last walk back to its start: [asset_i, ..., start].
  std::vector<graph::AssetIndex> PathToStart(size_t i) const {
    std::vector<graph::AssetIndex> path;
    for (uint32_t at = static_cast<uint32_t>(i); at != graph::kNone; at = steps_[at].parent)
      path.push_back(steps_[at].asset);
    return path;
  }

 private:
  void Begin() {
    steps_.clear();
    truncated_ = false;
    if (mark_.size() < index_.asset_count()) mark_.resize(index_.asset_count(), 0);
    if (++stamp_ == 0) {  // wrapped: clear once every 4 billion walks
      std::fill(mark_.begin(), mark_.end(), 0);
      stamp_ = 1;
    }
  }
  // True iff `a` was not yet visited in this walk (and marks it).
  bool Mark(graph::AssetIndex a) {
    if (mark_[a] == stamp_) return false;
    mark_[a] = stamp_;
    return true;
  }

  const graph::GraphIndex& index_;
  std::vector<uint32_t> mark_;
  uint32_t stamp_ = 0;
  std::vector<Step> steps_;
  bool truncated_ = false;
};

}  // namespace dw::incidents
