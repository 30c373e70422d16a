#include "workspace/change_answers.h"

#include "config/time_zone.h"

namespace dw::workspace {

Result<Json> ChangeTimelineAnswer(Services& services, const observe::changes::TimelineQuery& query) {
  auto store = services.state();
  if (!store.ok()) return Status(store.status().code(), "the state store cannot be opened: " + store.status().message());
  auto page = observe::changes::ReadTimeline(**store, query);
  if (!page.ok()) return page.status();
  const config::TimeZone tz = config::ZoneOrUtc(services.workspace().timezone);
  Json out = {{"events", Json::array()},
              {"total", page->total},
              {"from", FormatRfc3339(query.from)},
              {"to", FormatRfc3339(query.to)},
              {"timezone", tz.name()}};
  for (const auto& e : page->events) {
    Json j = observe::changes::ChangeEventJson(e);
    j["happened_local"] = config::FormatWithOffset(e.happened_at, tz);
    out["events"].push_back(std::move(j));
  }
  if (page->next_offset) out["next_offset"] = *page->next_offset;
  return out;
}

}  // namespace dw::workspace
