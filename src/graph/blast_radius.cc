#include "graph/blast_radius.h"

#include <algorithm>
#include <map>

#include "graph/asset_lookup.h"
#include "graph/next_act.h"

namespace dw::graph {

void DownstreamWalker::Walk(const std::vector<AssetIndex>& roots, const WalkOptions& o, WalkResult* out) {
  out->reached.clear();
  out->edges.clear();
  out->stale_skipped = 0;
  out->truncated = false;
  thread_local std::vector<uint32_t> mark_;
  thread_local uint32_t stamp_ = 0;
  if (mark_.size() < index_.asset_count()) mark_.resize(index_.asset_count(), 0);
  if (++stamp_ == 0) {  // wrapped: clear the marks once every 4 billion walks
    std::fill(mark_.begin(), mark_.end(), 0);
    stamp_ = 1;
  }
  for (AssetIndex r : roots) mark_[r] = stamp_;
  // The frontier lives in out->reached itself: [begin, end) is the current depth.
  std::vector<AssetIndex> frontier(roots.begin(), roots.end()), next;
  for (uint32_t depth = 1; depth <= static_cast<uint32_t>(o.max_depth) && !frontier.empty(); ++depth) {
    next.clear();
    for (AssetIndex a : frontier) {
      for (EdgeIndex ei : index_.out(a)) {
        const EdgeEntry& e = index_.edge(ei);
        if (!o.include_stale && e.IsStale()) {
          ++out->stale_skipped;
          continue;
        }
        if (mark_[e.dst] == stamp_) continue;
        if (out->reached.size() >= o.limit) {
          out->truncated = true;
          return;
        }
        mark_[e.dst] = stamp_;
        out->reached.push_back({e.dst, depth});
        out->edges.push_back(ei);
        next.push_back(e.dst);
      }
    }
    frontier.swap(next);
  }
}

std::string HumanDuration(std::chrono::milliseconds d) {
  int64_t s = d.count() / 1000;
  if (s < 0) s = 0;
  int64_t days = s / 86400, h = s % 86400 / 3600, m = s % 3600 / 60, sec = s % 60;
  if (days > 0) return std::to_string(days) + "d " + std::to_string(h) + "h";
  if (h > 0) return std::to_string(h) + "h " + std::to_string(m) + "m";
  if (m > 0) return std::to_string(m) + "m " + std::to_string(sec) + "s";
  return std::to_string(sec) + "s";
}

Result<BlastRadiusReport> BlastRadius(const GraphIndex& index, const std::vector<std::string>& assets,
                                      const BlastRadiusOptions& o, TimePoint now) {
  if (assets.empty()) return InvalidArgument("name at least one asset");
  if (o.walk.max_depth < 1 || o.walk.max_depth > kMaxBlastDepth)
    return InvalidArgument("depth must be from 1 to " + std::to_string(kMaxBlastDepth));
  std::vector<AssetIndex> roots;
  for (const std::string& name : assets) {
    auto a = FindAsset(index, name);
    if (!a.ok()) return a.status();
    if (std::find(roots.begin(), roots.end(), *a) == roots.end()) roots.push_back(*a);
  }
  DownstreamWalker walker(index);
  WalkResult walk;
  walker.Walk(roots, o.walk, &walk);

  BlastRadiusReport report;
  Json roots_json = Json::array();
  for (AssetIndex r : roots) roots_json.push_back(AssetJson(index, r));

  struct KindGroup {
    size_t count = 0;
    Json assets = Json::array();
  };
  struct OwnerGroup {
    size_t count = 0;
    std::vector<std::string> assets;
  };
  std::map<std::string, KindGroup> by_kind;
  std::map<uint32_t, size_t> by_depth;
  std::map<std::string, OwnerGroup> owners;
  Json consumers = Json::array(), customer_facing = Json::array(), placeholders = Json::array();
  std::vector<std::pair<int64_t, Json>> timed;
  std::map<std::string, NextAct> next_acts;
  for (const Reached& r : walk.reached) {
    const std::string& id = index.id(r.asset);
    const AssetEntry& e = index.asset(r.asset);
    const AssetDetails& d = index.details(r.asset);
    // Listed in full up to the per-kind limit (breadth-first, so the nearest first); counted always.
    KindGroup& group = by_kind[index.kind_name(r.asset)];
    if (++group.count <= o.list_per_kind) {
      Json a = AssetJson(index, r.asset);
      a["depth"] = r.depth;
      group.assets.push_back(std::move(a));
    }
    ++by_depth[r.depth];
    if (e.owner != 0) {
      OwnerGroup& og = owners[index.str(e.owner)];
      if (++og.count <= o.list_per_kind) og.assets.push_back(id);
    }
    if (e.flags & kCustomerFacing) customer_facing.push_back(id);
    if (e.flags & kPlaceholder) placeholders.push_back(id);
    if (!d.impact_sql.empty()) report.impact_queries.push_back({id, d.impact_sql});
    if (d.schedule.empty()) continue;
    // Many consumers share a schedule: compute each one's next run once.
    std::string key = d.schedule + '\n' + d.schedule_timezone + (d.schedule_disabled ? "\nD" + d.disabled_since : "");
    auto cached = next_acts.find(key);
    if (cached == next_acts.end()) cached = next_acts.emplace(key, *NextActOf(d, now, o.timezone)).first;
    const NextAct* act = &cached->second;
    Json c{{"id", id},
           {"kind", index.kind_name(r.asset)},
           {"owner", index.str(e.owner)},
           {"domain", index.str(e.domain)},
           {"depth", r.depth},
           {"customer_facing", (e.flags & kCustomerFacing) != 0},
           {"schedule", d.schedule}};
    WriteNextAct(*act, now, &c);
    timed.emplace_back(NextActOrder(*act), std::move(c));
  }
  std::stable_sort(timed.begin(), timed.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  for (auto& [t, c] : timed) consumers.push_back(std::move(c));

  Json kinds = Json::object();
  for (auto& [k, g] : by_kind)
    kinds[k] = Json{{"count", g.count}, {"assets", std::move(g.assets)}, {"listed_all", g.count <= o.list_per_kind}};
  Json depths = Json::array();
  for (auto& [d, n] : by_depth) depths.push_back(Json{{"depth", d}, {"count", n}});
  Json owner_list = Json::array();
  for (auto& [owner, g] : owners)
    owner_list.push_back(Json{{"owner", owner}, {"count", g.count}, {"assets", g.assets}});

  // Where the walked edges came from, and how fresh each source's view is.
  Json provenance = Json::object();
  for (int i = 0; i < kOriginCount; ++i) {
    size_t n = 0;
    uint32_t oldest = UINT32_MAX, newest = 0;
    for (EdgeIndex ei : walk.edges) {
      const EdgeEntry& e = index.edge(ei);
      if (!(e.origins & (1u << i))) continue;
      ++n;
      oldest = std::min(oldest, e.seen_s[i]);
      newest = std::max(newest, e.seen_s[i]);
    }
    if (n == 0) continue;
    provenance[OriginName(static_cast<Origin>(i))] =
        Json{{"edges", n},
             {"kind", i == static_cast<int>(Origin::kOpenLineage) ? "observed" : "declared"},
             {"oldest_seen", FormatRfc3339(FromUnixMillis(int64_t{oldest} * 1000))},
             {"newest_seen", FormatRfc3339(FromUnixMillis(int64_t{newest} * 1000))}};
  }

  report.body = Json{{"roots", roots_json},
                     {"now", FormatRfc3339(now)},
                     {"total", walk.reached.size()},
                     {"truncated", walk.truncated},
                     {"by_kind", kinds},
                     {"by_depth", depths},
                     {"consumers", consumers},
                     {"customer_facing", customer_facing},
                     {"owners", owner_list},
                     {"placeholders", placeholders},
                     {"impact", Json::array()},
                     {"provenance", provenance},
                     {"stale_edges_skipped", walk.stale_skipped}};
  return report;
}

void FillImpactCounts(BlastRadiusReport* report, std::optional<TimePoint> since, const ImpactCounter& count) {
  Json impact = Json::array();
  for (const ImpactQuery& q : report->impact_queries) {
    Json j{{"asset", q.asset}};
    if (!since) {
      j["note"] = "pass since to run this asset's impact_sql";
    } else {
      j["since"] = FormatRfc3339(*since);
      auto n = count(q.asset, q.sql, *since);
      if (n.ok()) {
        j["count"] = *n;
      } else {
        j["error"] = n.status().message();
      }
    }
    impact.push_back(std::move(j));
  }
  report->body["impact"] = std::move(impact);
}

}  // namespace dw::graph
