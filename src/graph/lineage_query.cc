#include "graph/lineage_query.h"

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "graph/asset_lookup.h"

namespace dw::graph {
namespace {

// The strongly connected components (with more than one asset, or a self-loop) of the subgraph
// made of `edges`: each is a cycle the walk went round. Iterative Tarjan.
std::vector<std::vector<AssetIndex>> Cycles(const GraphIndex& index, const std::vector<EdgeIndex>& edges) {
  std::unordered_map<AssetIndex, std::vector<AssetIndex>> adj;
  std::vector<AssetIndex> nodes;
  for (EdgeIndex ei : edges) {
    const EdgeEntry& e = index.edge(ei);
    if (!adj.count(e.src)) nodes.push_back(e.src);
    adj[e.src].push_back(e.dst);
    if (!adj.count(e.dst)) {
      adj[e.dst];
      nodes.push_back(e.dst);
    }
  }
  std::unordered_map<AssetIndex, int> num, low;
  std::unordered_set<AssetIndex> on_stack;
  std::vector<AssetIndex> stack;
  std::vector<std::vector<AssetIndex>> out;
  int counter = 0;
  for (AssetIndex start : nodes) {
    if (num.count(start)) continue;
    std::vector<std::pair<AssetIndex, size_t>> call{{start, 0}};
    num[start] = low[start] = counter++;
    stack.push_back(start);
    on_stack.insert(start);
    while (!call.empty()) {
      auto& [v, i] = call.back();
      const auto& next = adj[v];
      if (i < next.size()) {
        AssetIndex w = next[i++];
        if (!num.count(w)) {
          num[w] = low[w] = counter++;
          stack.push_back(w);
          on_stack.insert(w);
          call.push_back({w, 0});
        } else if (on_stack.count(w)) {
          low[v] = std::min(low[v], num[w]);
        }
        continue;
      }
      AssetIndex done = v;
      call.pop_back();
      if (!call.empty()) low[call.back().first] = std::min(low[call.back().first], low[done]);
      if (low[done] != num[done]) continue;
      std::vector<AssetIndex> comp;
      AssetIndex w;
      do {
        w = stack.back();
        stack.pop_back();
        on_stack.erase(w);
        comp.push_back(w);
      } while (w != done);
      bool self_loop = false;
      for (AssetIndex x : adj[done]) self_loop |= x == done;
      if (comp.size() > 1 || self_loop) out.push_back(std::move(comp));
    }
  }
  return out;
}

}  // namespace

Json EdgeJson(const GraphIndex& index, EdgeIndex ei, bool columns) {
  const EdgeEntry& e = index.edge(ei);
  Json sources = Json::array();
  for (int i = 0; i < kOriginCount; ++i) {
    if (!(e.origins & (1u << i))) continue;
    sources.push_back(Json{{"origin", OriginName(static_cast<Origin>(i))},
                           {"last_seen", FormatRfc3339(FromUnixMillis(int64_t{e.seen_s[i]} * 1000))},
                           {"stale", (e.stale & (1u << i)) != 0}});
  }
  Json j{{"src", index.id(e.src)}, {"dst", index.id(e.dst)}, {"relation", RelationName(e.relation)},
         {"stale", e.IsStale()}, {"sources", sources}};
  if (columns && !index.edge_columns(ei).is_null()) j["columns"] = index.edge_columns(ei);
  return j;
}

Result<Json> TraceLineage(const GraphIndex& index, const std::string& asset, const LineageOptions& o) {
  if (o.direction != "upstream" && o.direction != "downstream" && o.direction != "both")
    return InvalidArgument("direction must be upstream, downstream or both, not '" + o.direction + "'");
  if (o.depth < 1 || o.depth > kMaxLineageDepth)
    return InvalidArgument("depth must be from 1 to " + std::to_string(kMaxLineageDepth) + ", not " +
                           std::to_string(o.depth));
  auto root = FindAsset(index, asset);
  if (!root.ok()) return root.status();

  Json nodes = Json::array(), edges = Json::array();
  bool truncated = false;
  std::unordered_set<EdgeIndex> listed;
  std::vector<EdgeIndex> order;
  nodes.push_back(AssetJson(index, *root));
  nodes.back()["depth"] = 0;
  nodes.back()["side"] = "root";

  for (const char* side : {"upstream", "downstream"}) {
    if (o.direction != "both" && o.direction != side) continue;
    const bool down = std::string(side) == "downstream";
    std::unordered_map<AssetIndex, int> depth_of{{*root, 0}};
    std::deque<AssetIndex> queue{*root};
    while (!queue.empty() && !truncated) {
      AssetIndex a = queue.front();
      queue.pop_front();
      int d = depth_of[a];
      if (d >= o.depth) continue;
      for (EdgeIndex ei : down ? index.out(a) : index.in(a)) {
        const EdgeEntry& e = index.edge(ei);
        if (!o.include_stale && e.IsStale()) continue;
        AssetIndex next = down ? e.dst : e.src;
        bool seen = depth_of.count(next) > 0;
        if (!listed.count(ei)) {
          if (listed.size() >= o.max_edges) {
            truncated = true;
            break;
          }
          listed.insert(ei);
          order.push_back(ei);
        }
        if (seen) continue;
        depth_of[next] = d + 1;
        Json n = AssetJson(index, next);
        n["depth"] = d + 1;
        n["side"] = side;
        nodes.push_back(std::move(n));
        queue.push_back(next);
      }
    }
  }
  // Edges inside a cycle are flagged; each cycle is listed once, by its assets' ids.
  auto cycles = Cycles(index, order);
  std::unordered_map<AssetIndex, size_t> cycle_of;
  Json cycle_json = Json::array();
  for (size_t c = 0; c < cycles.size(); ++c) {
    Json ids = Json::array();
    std::sort(cycles[c].begin(), cycles[c].end(),
              [&](AssetIndex x, AssetIndex y) { return index.id(x) < index.id(y); });
    for (AssetIndex a : cycles[c]) {
      cycle_of[a] = c;
      ids.push_back(index.id(a));
    }
    cycle_json.push_back(ids);
  }
  for (EdgeIndex ei : order) {
    Json ej = EdgeJson(index, ei, o.columns);
    const EdgeEntry& e = index.edge(ei);
    auto s = cycle_of.find(e.src), d = cycle_of.find(e.dst);
    if (s != cycle_of.end() && d != cycle_of.end() && s->second == d->second) ej["in_cycle"] = true;
    edges.push_back(std::move(ej));
  }
  return Json{{"asset", index.id(*root)}, {"direction", o.direction}, {"depth", o.depth},
              {"nodes", nodes},           {"edges", edges},           {"cycles", cycle_json},
              {"truncated", truncated}};
}

}  // namespace dw::graph
