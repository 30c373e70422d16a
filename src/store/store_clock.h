// The state store's own clock. Approval expiry, signed statements and watch leases are compared
// across processes; when the store runs on another machine (PostgreSQL), a process whose clock is
// off decides against times the others do not share. `dw doctor` compares the two.
//
// A capability beside StateStore (like MetricSnapshots): a store that does not offer it has no
// clock of its own to compare.
#pragma once

#include <optional>

#include "base/clock.h"
#include "base/status.h"

namespace dw::store {

class StoreClock {
 public:
  virtual ~StoreClock() = default;
  // The store server's current time; nullopt where the store is a file read with this process's
  // own clock (SQLite), so there is nothing to compare.
  virtual Result<std::optional<TimePoint>> ServerNow() = 0;
};

}  // namespace dw::store
