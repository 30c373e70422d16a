// The change timeline as the surfaces ask for it (`dw changes`, the get_change_timeline tool):
// what the collectors stored, read through observe/changes, in the workspace's zone.
#pragma once

#include "base/json.h"
#include "observe/changes/timeline.h"
#include "workspace/services.h"

namespace dw::workspace {

// {events: [ChangeEventJson, each with "happened_local": the time in the workspace's zone with
// its offset], total, next_offset (when more follow), from, to, timezone} for `query`.
// InvalidArgument for a bad query (see observe::changes::ReadTimeline); Unavailable naming the
// store when it cannot be opened.
Result<Json> ChangeTimelineAnswer(Services& services, const observe::changes::TimelineQuery& query);

}  // namespace dw::workspace
