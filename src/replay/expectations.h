// Each expectation of a scenario checked against what the product concluded: its incidents and
// their diagnosis (the desk), its change timeline (the store), an MCP tool's answer (through the
// product's MCP dispatch). Never against the scenario itself.
#pragma once

#include "replay/product_timeline.h"
#include "replay/replay.h"

namespace dw::replay {

// The verdict on `x` at the end of the replay. `timeline` holds what was seen during it.
Verdict CheckExpectation(const Expectation& x, store::StateStore& store, ReplayProduct& product,
                         const ProductTimeline& timeline);

}  // namespace dw::replay
