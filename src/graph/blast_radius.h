// Blast radius: everything downstream of damaged assets, grouped by kind and depth, with owners;
// the consumers that act (assets with a schedule), each with its next run from the clock and the
// time left, most urgent first; customer-facing assets flagged; and, where an asset defines
// impact_sql, the count it returns for `since` (filled in by FillImpactCounts, outside the graph
// lock, because it runs warehouse SQL).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/json.h"
#include "base/status.h"
#include "graph/graph_index.h"

namespace dw::graph {

inline constexpr int kMaxBlastDepth = 50;

struct Reached {
  AssetIndex asset;
  uint32_t depth;  // 1 = read directly from a root
};

struct WalkOptions {
  int max_depth = kMaxBlastDepth;
  bool include_stale = false;  // follow edges every source has stopped asserting
  size_t limit = 10000;        // stop after this many assets (the answer says truncated)
};

struct WalkResult {
  std::vector<Reached> reached;  // breadth-first order, roots excluded
  std::vector<EdgeIndex> edges;  // edges followed
  size_t stale_skipped = 0;
  bool truncated = false;
};

// Breadth-first walk downstream. The visited marks live in a per-thread scratch array reused by
// every walk on that thread (stamped, so never cleared), so a walk costs what it visits, not the
// size of the graph. REQUIRES: the index is not changed during a walk (hold the graph's read lock).
class DownstreamWalker {
 public:
  explicit DownstreamWalker(const GraphIndex& index) : index_(index) {}
  // Walks from `roots`; roots reached again (a cycle) are not reported.
  void Walk(const std::vector<AssetIndex>& roots, const WalkOptions& options, WalkResult* out);

 private:
  const GraphIndex& index_;
};

struct BlastRadiusOptions {
  WalkOptions walk;
  std::optional<TimePoint> since;  // for impact_sql; without it no counts are run
  std::string timezone = "UTC";    // the workspace's, for schedules
  // Assets listed per kind (and per owner); all are counted. Consumers, customer-facing assets and
  // impact queries are always listed in full.
  size_t list_per_kind = 100;
};

// A query the report needs run: the count of `asset`'s impact_sql for `since`.
struct ImpactQuery {
  std::string asset;
  std::string sql;
};

struct BlastRadiusReport {
  Json body;  // see docs/tools.md, blast_radius_analysis
  std::vector<ImpactQuery> impact_queries;
};

// The report for `assets` (ids or aliases) at `now`. kNotFound (closest ids) for an unknown asset,
// kInvalidArgument for an empty list or a depth outside 1..50.
Result<BlastRadiusReport> BlastRadius(const GraphIndex& index, const std::vector<std::string>& assets,
                                      const BlastRadiusOptions& options, TimePoint now);

// Runs each impact query through `count` (asset id, sql, since) and writes the counts (or the
// error sentence) into report.body["impact"]. Does nothing without options.since.
using ImpactCounter =
    std::function<Result<int64_t>(const std::string& asset, const std::string& sql, TimePoint since)>;
void FillImpactCounts(BlastRadiusReport* report, std::optional<TimePoint> since, const ImpactCounter& count);

// "6h 42m", "3m 10s", "2d 4h": a duration for people.
std::string HumanDuration(std::chrono::milliseconds d);

}  // namespace dw::graph
