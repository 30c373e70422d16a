// Lineage: what an asset reads from (upstream), feeds (downstream) or both, breadth first to a
// depth limit, each edge with the sources that assert it and when each last saw it. Cycles are
// walked once: an edge back to an asset already reached is listed and flagged, not followed.
#pragma once

#include <string>

#include "base/json.h"
#include "base/status.h"
#include "graph/graph_index.h"

namespace dw::graph {

inline constexpr int kDefaultLineageDepth = 5;
inline constexpr int kMaxLineageDepth = 50;

struct LineageOptions {
  std::string direction = "both";  // "upstream", "downstream" or "both"
  int depth = kDefaultLineageDepth;  // 1..kMaxLineageDepth
  bool include_stale = true;  // stale edges are listed (marked stale) unless false
  bool columns = false;       // include column-level lineage on edges that have it
  size_t max_edges = 10000;   // the answer says truncated when more were reachable
};

// {asset, direction, depth, nodes:[asset json + depth + side], edges:[{src, dst, relation, stale,
// sources:[{origin, last_seen, stale}], columns?, closes_cycle?}], cycles, truncated}.
// kInvalidArgument for a bad direction or depth; kNotFound (with closest ids) for an unknown asset.
Result<Json> TraceLineage(const GraphIndex& index, const std::string& asset, const LineageOptions& options);

// The JSON of edge `e` (sources with RFC 3339 last-seen times).
Json EdgeJson(const GraphIndex& index, EdgeIndex e, bool columns);

}  // namespace dw::graph
