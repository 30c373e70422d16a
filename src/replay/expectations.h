// Each expectation of a scenario checked against what the product concluded: its incidents and
// their diagnosis (the desk), its change timeline (the store), an MCP tool's answer (through the
// product's MCP dispatch), the messages its notification receivers accepted. Never against the
// scenario itself.
#pragma once

#include "net/http_client.h"
#include "replay/notify_receivers.h"
#include "replay/product_timeline.h"
#include "replay/replay.h"

namespace dw::replay {

// The verdict on `x` at the end of the replay. `timeline` holds what was seen during it.
Verdict CheckExpectation(const Expectation& x, store::StateStore& store, ReplayProduct& product,
                         const ProductTimeline& timeline);

// The verdict on a message or alert expectation, read from what the receivers recorded (never
// from the product's outbox). REQUIRES: x.message or x.alert.
Verdict CheckReceived(const Expectation& x, NotifyReceivers& receivers, net::HttpClient& http);

}  // namespace dw::replay
