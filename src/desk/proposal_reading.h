// Internal to desk/: a proposal as a person reads it before deciding: what will happen in
// sentences (a hold's exact steps and undo, a flow or deployment change as its unified diff, a run
// plan as a numbered list, a verification plan's checks), the blast radius in one line, and the
// undo. Never a dump of its JSON.
#pragma once

#include <string>

#include "base/json.h"
#include "config/time_zone.h"

namespace dw::desk {

// `content` is a stored proposal's content (untrusted: any field may be missing or of another
// type, which is then left out); `kind` its proposal kind.
std::string ProposalReadingHtml(const std::string& kind, const Json& content, const config::TimeZone& zone);

}  // namespace dw::desk
