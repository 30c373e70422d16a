#include "incidents/grouping.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>


namespace dw::incidents {

namespace {

class UnionFind {
 public:
  size_t Add() {
    parent_.push_back(parent_.size());
    return parent_.size() - 1;
  }
  size_t Find(size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void Union(size_t a, size_t b) {
    a = Find(a), b = Find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);  // the smaller token stays the root
  }

 private:
  std::vector<size_t> parent_;
};

// Tokens: one per distinct damaged asset, per open incident, per change.
struct Token {
  enum Kind { kDamage, kIncident, kChange } kind;
  size_t ref;  // damaged asset number, incident index or change index
};

}  // namespace

std::vector<SignalGroup> GroupSignals(const graph::GraphIndex* index, const GroupingInput& in) {
  const auto w = in.window;
  // Distinct damaged assets, each with the earliest time it was seen bad in this pass.
  std::vector<std::string> assets;
  std::vector<TimePoint> first_at;
  std::unordered_map<std::string, size_t> asset_no;
  std::vector<size_t> damage_asset(in.damage.size());
  for (size_t i = 0; i < in.damage.size(); ++i) {
    auto [it, added] = asset_no.emplace(in.damage[i].asset, assets.size());
    if (added) {
      assets.push_back(in.damage[i].asset);
      first_at.push_back(in.damage[i].at);
    } else {
      first_at[it->second] = std::min(first_at[it->second], in.damage[i].at);
    }
    damage_asset[i] = it->second;
  }

  UnionFind uf;
  std::vector<Token> tokens;
  std::vector<size_t> asset_token(assets.size()), incident_token(in.open.size()), change_token(in.changes.size());
  for (size_t a = 0; a < assets.size(); ++a) asset_token[a] = uf.Add(), tokens.push_back({Token::kDamage, a});
  for (size_t i = 0; i < in.open.size(); ++i) incident_token[i] = uf.Add(), tokens.push_back({Token::kIncident, i});
  for (size_t c = 0; c < in.changes.size(); ++c) change_token[c] = uf.Add(), tokens.push_back({Token::kChange, c});

  // Whether two tokens may join, given that `down` is `up` or downstream of it.
  auto within = [&](const Token& up, const Token& down) -> bool {
    auto time_of_damage = [&](const Token& t) { return first_at[t.ref]; };
    if (up.kind == Token::kChange) {
      TimePoint c = in.changes[up.ref].at;
      if (down.kind == Token::kDamage) {
        // As diagnosis judges a change (MayPrecede): dated within the window before the damage, or
        // dated after it by at most the window when that date is only when a pass saw it.
        const TimePoint d = time_of_damage(down);
        return c <= d ? d - c <= w : in.changes[up.ref].time_is_upper_bound && c - d <= w;
      }
      if (down.kind == Token::kIncident) {
        TimePoint f = in.open[down.ref].first_bad_at;
        return c <= f + w && f - c <= w;
      }
      return false;  // two changes never join by themselves
    }
    if (up.kind == Token::kIncident && down.kind == Token::kIncident) return false;  // never merge incidents
    if (down.kind == Token::kChange) {
      // Damage upstream of a change says nothing by itself: walks go on past a change's asset, so
      // damage below the change finds the damage above it directly.
      return false;
    }
    auto t_of = [&](const Token& t) { return t.kind == Token::kDamage ? time_of_damage(t) : in.open[t.ref].first_bad_at; };
    TimePoint a = t_of(up), b = t_of(down);
    if (up.kind == Token::kDamage && down.kind == Token::kDamage) return true;  // the same pass
    return (a > b ? a - b : b - a) <= w;
  };

  // The anchors at each asset id.
  std::unordered_map<std::string, std::vector<size_t>> at_asset;
  for (size_t a = 0; a < assets.size(); ++a) at_asset[assets[a]].push_back(asset_token[a]);
  for (size_t i = 0; i < in.open.size(); ++i)
    for (const std::string& a : in.open[i].assets) at_asset[a].push_back(incident_token[i]);
  for (size_t c = 0; c < in.changes.size(); ++c) at_asset[in.changes[c].asset].push_back(change_token[c]);

  // Tokens on the same asset are related (the asset is upstream of itself).
  auto relate = [&](const std::vector<size_t>& ups, const std::vector<size_t>& downs) {
    for (size_t u : ups)
      for (size_t d : downs)
        if (u != d && within(tokens[u], tokens[d])) uf.Union(u, d);
  };
  for (const auto& [asset, toks] : at_asset) relate(toks, toks);

  std::vector<std::string> notes;
  // For the most-upstream choice: damaged assets reached upstream of another damaged asset.
  std::vector<bool> has_damage_upstream(assets.size(), false);
  if (index != nullptr) {
    // 1: an asset with tokens; 2: a barrier too (damage or an incident: its own walk goes on
    // from there). A change's asset is not a barrier, so damage on both sides of it meets.
    std::vector<char> is_anchor(index->asset_count(), 0);
    for (const auto& [asset, toks] : at_asset) {
      graph::AssetIndex n = index->Find(asset);
      if (n == graph::kNone) continue;
      is_anchor[n] = 1;
      for (size_t t : toks)
        if (tokens[t].kind != Token::kChange) is_anchor[n] = 2;
    }
    // What lies upstream of each asset, computed once per asset for the whole pass (memoised,
    // iterative depth-first): Up(n) is the tokens of the anchors upstream of n, stopping at
    // barriers (whose own upstream is theirs to relate). Damage and incident tokens are kept one
    // per union-find component (they all join whatever reaches them, so one stands for all);
    // change tokens are kept each, since each has its own time.
    constexpr uint8_t kUnseen = 0, kOpen = 1, kDone = 2;
    constexpr size_t kMaxSet = 32;
    std::vector<uint8_t> state(index->asset_count(), kUnseen);
    std::vector<uint32_t> set_of(index->asset_count(), graph::kNone);
    std::vector<std::vector<size_t>> sets;
    auto tokens_of = [&](graph::AssetIndex n) -> const std::vector<size_t>& { return at_asset[index->id(n)]; };
    auto merge_into = [&](std::vector<size_t>& out, const std::vector<size_t>& from) {
      for (size_t t : from) {
        bool dup = false;
        for (size_t o : out)
          if (o == t || (tokens[t].kind != Token::kChange && tokens[o].kind != Token::kChange && uf.Find(o) == uf.Find(t))) {
            dup = true;
            break;
          }
        if (!dup && out.size() < kMaxSet) out.push_back(t);
      }
    };
    // The upstream set of a predecessor `m` as seen from below: a barrier contributes itself.
    auto contribution = [&](graph::AssetIndex m, std::vector<size_t>& out) {
      if (is_anchor[m] == 2) {
        merge_into(out, tokens_of(m));
        return;
      }
      if (state[m] == kDone && set_of[m] != graph::kNone) merge_into(out, sets[set_of[m]]);
    };
    size_t visited = 0;
    bool truncated = false;
    struct Frame {
      graph::AssetIndex node;
      size_t next_edge;
    };
    std::vector<Frame> stack;
    // Computes Up(n) for every non-barrier ancestor of `start` not computed yet.
    auto compute = [&](graph::AssetIndex start) {
      stack.push_back({start, 0});
      state[start] = kOpen;
      while (!stack.empty()) {
        Frame& f = stack.back();
        const auto& in_edges = index->in(f.node);
        if (f.next_edge < in_edges.size()) {
          const graph::EdgeEntry& e = index->edge(in_edges[f.next_edge++]);
          if (e.IsStale()) continue;
          graph::AssetIndex m = e.src;
          if (state[m] != kUnseen || is_anchor[m] == 2) continue;  // done, on the stack (a cycle), or a barrier
          if (++visited > in.walk_budget) {
            truncated = true;
            continue;
          }
          state[m] = kOpen;
          stack.push_back({m, 0});
          continue;
        }
        std::vector<size_t> up;
        if (is_anchor[f.node] == 1) merge_into(up, tokens_of(f.node));  // a change's own asset
        for (graph::EdgeIndex ei : in_edges) {
          const graph::EdgeEntry& e = index->edge(ei);
          if (!e.IsStale()) contribution(e.src, up);
        }
        if (!up.empty()) {
          set_of[f.node] = static_cast<uint32_t>(sets.size());
          sets.push_back(std::move(up));
        }
        state[f.node] = kDone;
        stack.pop_back();
      }
    };
    std::vector<std::string> ordered;
    ordered.reserve(at_asset.size());
    for (const auto& [asset, toks] : at_asset) {
      graph::AssetIndex n = index->Find(asset);
      if (n == graph::kNone || is_anchor[n] == 2) ordered.push_back(asset);
    }
    std::sort(ordered.begin(), ordered.end());
    for (const std::string& asset : ordered) {
      graph::AssetIndex start = index->Find(asset);
      if (start == graph::kNone) {
        if (asset_no.count(asset))
          notes.push_back(asset + " is not in the context graph: its signals stand on that asset alone");
        continue;
      }
      const std::vector<size_t>& downs = at_asset[asset];
      std::vector<size_t> ups;
      for (graph::EdgeIndex ei : index->in(start)) {
        const graph::EdgeEntry& e = index->edge(ei);
        if (e.IsStale()) continue;
        graph::AssetIndex m = e.src;
        if (state[m] == kUnseen && is_anchor[m] != 2) compute(m);
        contribution(m, ups);
      }
      auto own = in.own_cause.find(asset);
      if (own != in.own_cause.end()) {
        // A cause of its own: nothing above it shares it but its own writers' changes.
        std::erase_if(ups, [&](size_t u) {
          return tokens[u].kind != Token::kChange ||
                 std::find(own->second.begin(), own->second.end(), in.changes[tokens[u].ref].asset) == own->second.end();
        });
      }
      relate(ups, downs);
      for (size_t u : ups)
        for (size_t d : downs)
          if (tokens[u].kind == Token::kDamage && tokens[d].kind == Token::kDamage) has_damage_upstream[tokens[d].ref] = true;
    }
    if (truncated)
      notes.push_back("grouping visited its budget of " + std::to_string(in.walk_budget) +
                      " upstream assets: it looked no further");
  } else if (!assets.empty()) {
    notes.push_back("no context graph: every asset stands alone");
  }

  // Collect groups by the root token of each damaged asset.
  std::map<size_t, size_t> group_of_root;  // uf root -> group number
  std::vector<SignalGroup> groups;
  for (size_t i = 0; i < in.damage.size(); ++i) {
    size_t root = uf.Find(asset_token[damage_asset[i]]);
    auto [it, added] = group_of_root.emplace(root, groups.size());
    if (added) groups.emplace_back();
    groups[it->second].damage.push_back(i);
  }
  for (auto& [root, g] : group_of_root) {
    SignalGroup& group = groups[g];
    std::set<std::string> names;
    for (size_t i : group.damage) names.insert(assets[damage_asset[i]]);
    group.assets.assign(names.begin(), names.end());
    // The oldest open incident in the same set is the one joined.
    TimePoint best = TimePoint::max();
    for (size_t i = 0; i < in.open.size(); ++i)
      if (uf.Find(incident_token[i]) == root && in.open[i].first_bad_at < best) {
        best = in.open[i].first_bad_at;
        group.incident_id = in.open[i].id;
      }
    for (size_t c = 0; c < in.changes.size(); ++c)
      if (uf.Find(change_token[c]) == root) group.changes.push_back(c);
    for (const std::string& a : group.assets)
      if (!has_damage_upstream[asset_no[a]]) {
        group.most_upstream = a;
        break;
      }
    if (group.most_upstream.empty() && !group.assets.empty()) group.most_upstream = group.assets.front();
    for (const std::string& n : notes)
      for (const std::string& a : group.assets)
        if (n.rfind(a + " ", 0) == 0) group.notes.push_back(n);
  }
  if (!groups.empty())
    for (const std::string& n : notes)
      if (n.rfind("grouping visited", 0) == 0 || n.rfind("no context graph", 0) == 0) groups.front().notes.push_back(n);
  return groups;
}

}  // namespace dw::incidents
