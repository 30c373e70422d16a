#include "incidents/own_cause.h"

#include <algorithm>

#include "incidents/cause_shape.h"
#include "incidents/lineage_walk.h"

namespace dw::incidents {

namespace {

constexpr size_t kWriterWalkBudget = 20000;  // assets one writer's downstream walk may visit

bool AnyDataShape(const std::vector<SignalShape>& shapes) {
  return std::any_of(shapes.begin(), shapes.end(),
                     [](SignalShape s) { return s != SignalShape::kUnknown && s != SignalShape::kStateDropped; });
}

// Whether an event of `events` on `writer` in the window explains `shapes` on its own.
bool HasExplainingChange(const graph::GraphIndex* index, const std::string& writer, const std::vector<SignalShape>& shapes,
                         TimePoint first_bad, std::chrono::milliseconds window, const EventsByAsset& events) {
  auto it = events.find(writer);
  if (it == events.end()) return false;
  std::vector<store::ChangeEvent> mine;
  for (const store::ChangeEvent& e : it->second)
    if (MayPrecede(e, first_bad, window)) mine.push_back(e);
  for (const store::ChangeEvent& e : mine)
    if (ExplainsOnItsOwn(e, shapes, mine, index)) return true;
  return false;
}

}  // namespace

bool TimeIsUpperBound(const store::ChangeEvent& event) {
  const Json& ev = event.evidence;
  auto it = ev.is_object() ? ev.find("time_bound") : ev.end();
  return it != ev.end() && it->is_string() && it->get_ref<const std::string&>() == "at_or_before";
}

bool MayPrecede(const store::ChangeEvent& event, TimePoint first_bad, std::chrono::milliseconds window) {
  if (event.happened_at <= first_bad) return first_bad - event.happened_at <= window;
  return TimeIsUpperBound(event) && event.happened_at - first_bad <= window;
}

bool ExplainsOnItsOwn(const store::ChangeEvent& event, const std::vector<SignalShape>& shapes,
                      const std::vector<store::ChangeEvent>& others, const graph::GraphIndex* index) {
  if (!AnyDataShape(shapes)) return false;
  return FitShape(event, shapes, others, index).fit >= kOwnCauseFit;
}

bool FeedsOtherDamage(const graph::GraphIndex& index, graph::AssetIndex writer, graph::AssetIndex asset,
                      const std::function<bool(const std::string&)>& is_damaged, int max_depth) {
  LineageWalker walker(index);
  const auto& down = walker.Walk({writer}, WalkDirection::kDownstream, max_depth, kWriterWalkBudget,
                                 [asset](graph::AssetIndex a) { return a != asset; });
  for (const LineageWalker::Step& s : down)
    if (s.depth > 0 && s.asset != asset && is_damaged(index.id(s.asset))) return true;
  return walker.truncated();
}

std::vector<std::string> OwnCauseWriters(const graph::GraphIndex* index, const std::string& asset,
                                         const std::vector<SignalShape>& shapes, TimePoint first_bad,
                                         std::chrono::milliseconds window, const EventsByAsset& events,
                                         const std::function<bool(const std::string&)>& is_damaged, int max_depth) {
  std::vector<std::string> found;
  if (!AnyDataShape(shapes)) return found;
  if (HasExplainingChange(index, asset, shapes, first_bad, window, events)) found.push_back(asset);
  graph::AssetIndex b = index ? index->Find(asset) : graph::kNone;
  if (b != graph::kNone) {
    for (graph::EdgeIndex ei : index->in(b)) {
      const graph::EdgeEntry& e = index->edge(ei);
      if (e.IsStale() || e.src == b) continue;
      const std::string& w = index->id(e.src);
      if (is_damaged(w)) continue;  // damage above: the upstream side, not a writer of its own
      // The walk last: only a writer with an explaining change pays for it.
      if (HasExplainingChange(index, w, shapes, first_bad, window, events) &&
          !FeedsOtherDamage(*index, e.src, b, is_damaged, max_depth))
        found.push_back(w);
    }
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

}  // namespace dw::incidents
