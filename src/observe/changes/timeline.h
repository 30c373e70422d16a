// Reading the change timeline: events for one asset or all, in a time range, of some kinds,
// newest first, paged.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/json.h"
#include "store/state_store.h"

namespace dw::observe::changes {

struct TimelineQuery {
  std::string asset_id;            // empty: every asset
  std::vector<std::string> kinds;  // empty: every kind
  TimePoint from;                  // inclusive
  TimePoint to;                    // exclusive
  int limit = 50;                  // 1..500
  int offset = 0;                  // events to skip (newest first)
};

struct TimelinePage {
  std::vector<store::ChangeEvent> events;  // newest first
  int total = 0;                           // matching events in the range
  std::optional<int> next_offset;          // set when more events follow
};

// Runs `query` against `store`. InvalidArgument when from >= to, the limit is out of range or a
// kind is unknown; store failures as they come.
Result<TimelinePage> ReadTimeline(store::StateStore& store, const TimelineQuery& query);

// The JSON form of an event (times RFC 3339).
Json ChangeEventJson(const store::ChangeEvent& event);

}  // namespace dw::observe::changes
