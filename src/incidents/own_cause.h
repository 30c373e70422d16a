// A damaged asset's own cause: a change, in the window before the asset's first bad point, on the
// asset itself (a statement the warehouse recorded writing it) or on a job that writes it, that
// explains the asset's damage on its own (issue 35: the flow that inserted marts.daily_revenue
// twice explains the mart's duplicates, whatever raw.orders above it holds). A writer that also
// feeds other damage (other than through the asset) is a shared cause, not the asset's own.
// Grouping keeps an asset with an own cause apart from the damage upstream of it; diagnosis never
// rules such a writer out as "downstream of the damaged table".
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/graph_index.h"
#include "incidents/incidents.h"
#include "store/records.h"

namespace dw::incidents {

// Whether the change's time is only an upper bound: its platform keeps no time of it, so it is dated
// when a collection pass saw it, and its evidence says the change happened at or before then
// (`time_bound: at_or_before`, e.g. a connector found unhealthy).
bool TimeIsUpperBound(const store::ChangeEvent& event);

// Whether the change may have come before damage first bad at `first_bad`, within `window` of it:
// dated at most `window` before it; or dated after it, by at most `window`, with a time that is only
// an upper bound (TimeIsUpperBound). A change its platform dates after the damage cannot be its cause.
bool MayPrecede(const store::ChangeEvent& event, TimePoint first_bad, std::chrono::milliseconds window);

// A change explains damage on its own when its shape fit (FitShape) is at least this: the fits that
// name the mechanism (a duplicated run and a doubling, an append and a rise, a delete and a drop,
// a rewrite in place and new nulls, a stale input, a failed run and a drop). A generic "a deploy
// can change what a job writes" (0.5) or a green run (0.3) does not.
inline constexpr double kOwnCauseFit = 0.7;

// Whether `event` explains damage of `shapes` on its own (FitShape >= kOwnCauseFit). `others` are
// the other events on the same asset (for a duplicated run); `index` may be null. False when
// `shapes` holds no data shape (no signal of the asset's own to judge against).
bool ExplainsOnItsOwn(const store::ChangeEvent& event, const std::vector<SignalShape>& shapes,
                      const std::vector<store::ChangeEvent>& others, const graph::GraphIndex* index);

// The events of a pass, by the asset they happened on.
using EventsByAsset = std::unordered_map<std::string, std::vector<store::ChangeEvent>>;

// Whether `writer`, walked downstream (`max_depth` hops, a bounded visit budget) without passing
// through `asset`, reaches a damaged asset (`is_damaged`): then it is a cause it may share with
// that damage, not `asset`'s own. True when the walk was cut short (it may).
bool FeedsOtherDamage(const graph::GraphIndex& index, graph::AssetIndex writer, graph::AssetIndex asset,
                      const std::function<bool(const std::string&)>& is_damaged, int max_depth);

// The own causes of damaged `asset` whose signals have `shapes`, first bad at `first_bad`: the
// writers among the asset itself and every asset with a live edge into it (not itself damaged, and
// not feeding other damage: FeedsOtherDamage) with an event in `events` at or before `first_bad`
// and at most `window` before it that explains `shapes` on its own. Sorted; empty when none, or
// when `shapes` holds no data shape. `index` may be null (only the asset itself is looked at).
std::vector<std::string> OwnCauseWriters(const graph::GraphIndex* index, const std::string& asset,
                                         const std::vector<SignalShape>& shapes, TimePoint first_bad,
                                         std::chrono::milliseconds window, const EventsByAsset& events,
                                         const std::function<bool(const std::string&)>& is_damaged, int max_depth);

}  // namespace dw::incidents
