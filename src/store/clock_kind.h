// Whose time a state store holds. A store is a real-clock store unless it was created as a
// simulated-clock store (a test's or a replay's scratch store): only there may a command record a
// decision, a resolution or a receipt at a --now instant (docs/cli.md, "--now"). The mark is one
// kv_cursors row written in the transaction that creates the store (ApplyMigrations) and refused
// to SetCursor afterwards, so an existing store never becomes simulated.
#pragma once

#include "base/status.h"
#include "store/state_store.h"

namespace dw::store {

inline constexpr const char* kStoreClockCursor = "store.clock";
inline constexpr const char* kSimulatedClock = "simulated";
// A store created (OpenStateStore on a location with no schema yet) while the environment has
// this variable set to "1" is a simulated-clock store; the variable is never read for a store that
// already exists.
inline constexpr const char* kSimulatedClockEnv = "DW_SIMULATED_CLOCK_STORE";

// Whether `store` was created as a simulated-clock store; the store's error if it cannot be read.
Result<bool> IsSimulatedClockStore(StateStore& store);

}  // namespace dw::store
