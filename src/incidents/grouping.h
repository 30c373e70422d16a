// Grouping: which of one pass's bad signals belong together, and with which open incident.
// Two damaged assets are one incident when one is upstream of the other, or when the same change
// upstream of both happened within the window before them (or, when the change's time is only an
// upper bound, may have: dated at most a window after them); a damaged asset joins an open incident
// that holds it or an asset upstream/downstream of it, within the window of the incident's first
// bad point. Two tables that merely share a source with no change behind them stay apart.
//
// Every asset that matters (a damaged asset, an open incident's asset, a risky change's asset) is
// an anchor. What lies upstream of each asset is computed once per pass and shared by every anchor
// below it, and stops at damaged and incident assets (their own upstream is theirs to relate), so
// a storm of 10,000 signals costs one pass over their common upstream, not one walk each. Cycles
// are cut where they close. Upstream is followed without a depth limit, to a visit budget.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "base/clock.h"
#include "graph/graph_index.h"

namespace dw::incidents {

struct GroupingInput {
  struct Damage {  // one bad signal
    std::string asset;  // canonical id, or the signal key when it names no asset
    TimePoint at;
  };
  struct OpenIncident {
    std::string id;
    std::vector<std::string> assets;  // damaged assets and root
    TimePoint first_bad_at;
  };
  struct Change {  // a change that could explain damage (risky enough)
    std::string asset;
    std::string key;
    TimePoint at;
    std::string kind;  // the change kind, for the incident's first cause
    // `at` is only an upper bound (time_bound: at_or_before, own_cause.h TimeIsUpperBound): the
    // change may have come before damage dated up to a window before `at`, as diagnosis judges it.
    bool time_is_upper_bound = false;
  };
  std::vector<Damage> damage;
  std::vector<OpenIncident> open;
  std::vector<Change> changes;
  // Damaged assets with a cause of their own (OwnCauseWriters): asset -> those writers. Such an
  // asset is related upstream only to changes on these writers (and to what is on the asset
  // itself); whatever lies below it still joins it.
  std::map<std::string, std::vector<std::string>> own_cause;
  std::chrono::milliseconds window{std::chrono::hours(6)};
  size_t walk_budget = 5000000;  // upstream assets one pass may visit
};

struct SignalGroup {
  std::vector<size_t> damage;        // indexes into GroupingInput::damage
  std::string incident_id;           // the open incident it joins, "" for a new one
  std::vector<size_t> changes;       // indexes of the changes that tie it together
  std::vector<std::string> assets;   // the damaged assets, sorted
  std::string most_upstream;         // the damaged asset nothing else of the group is upstream of
  std::vector<std::string> notes;    // assets not in the graph, truncated walks
};

// Groups `in.damage`. `index` may be null (no graph: an asset groups only with itself). Groups
// are in order of their first damage index; deterministic.
std::vector<SignalGroup> GroupSignals(const graph::GraphIndex* index, const GroupingInput& in);

}  // namespace dw::incidents
