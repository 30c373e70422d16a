#include "observe/changes/timeline.h"

#include <algorithm>

#include "observe/changes/change_kinds.h"

namespace dw::observe::changes {

Result<TimelinePage> ReadTimeline(store::StateStore& store, const TimelineQuery& q) {
  if (q.from >= q.to) return InvalidArgument("the time range is empty: 'from' must be before 'to'");
  if (q.limit < 1 || q.limit > 500) return InvalidArgument("limit must be between 1 and 500");
  if (q.offset < 0) return InvalidArgument("offset must not be negative");
  for (const auto& k : q.kinds)
    if (!IsChangeKind(k)) {
      std::string all;
      for (const auto& x : AllChangeKinds()) all += (all.empty() ? "" : ", ") + x;
      return InvalidArgument("unknown change kind '" + k + "'; kinds are: " + all);
    }
  auto events = q.asset_id.empty() ? store.ChangeEventsBetween(q.from, q.to)
                                   : store.ChangeEventsFor(q.asset_id, q.from, q.to);
  if (!events.ok()) return events.status();
  std::vector<store::ChangeEvent> hits;
  for (auto& e : *events)
    if (q.kinds.empty() || std::find(q.kinds.begin(), q.kinds.end(), e.kind) != q.kinds.end())
      hits.push_back(std::move(e));
  std::stable_sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) {
    return a.happened_at != b.happened_at ? a.happened_at > b.happened_at : a.id > b.id;
  });
  TimelinePage page;
  page.total = static_cast<int>(hits.size());
  size_t first = std::min(hits.size(), static_cast<size_t>(q.offset));
  size_t last = std::min(hits.size(), first + static_cast<size_t>(q.limit));
  for (size_t i = first; i < last; ++i) page.events.push_back(std::move(hits[i]));
  if (last < hits.size()) page.next_offset = static_cast<int>(last);
  return page;
}

Json ChangeEventJson(const store::ChangeEvent& e) {
  return {{"asset_id", e.asset_id}, {"kind", e.kind}, {"happened_at", FormatRfc3339(e.happened_at)},
          {"observed_at", FormatRfc3339(e.observed_at)}, {"risk", e.risk}, {"reason", e.reason},
          {"evidence", e.evidence}, {"dedup_key", e.dedup_key}};
}

}  // namespace dw::observe::changes
