// `dw watch --status`: who watches a workspace's state store. On PostgreSQL, each replica (id,
// host, pid, started, last heartbeat, alive or silent, clock offset, why it refuses leases), the
// leases it holds now and its recent job runs (replicas that stopped over a day ago are only
// counted), plus leases nobody holds (expired, waiting to be taken over). On SQLite, the single `dw watch` holding the store's watch lock, if any.
#pragma once

#include <string>

#include "base/json.h"
#include "base/status.h"
#include "store/state_store.h"

namespace dw::observe::watch {

// The status as JSON (docs/watch.md describes the fields). `state_location` is the store's
// location (the SQLite lock file sits beside it); `runs_per_replica` caps each replica's recent
// runs. The store's error when it cannot be read.
Result<Json> ReadWatchStatus(store::StateStore& store, const std::string& state_location, int runs_per_replica);

// The same status as lines for a person.
std::string FormatWatchStatus(const Json& status);

}  // namespace dw::observe::watch
