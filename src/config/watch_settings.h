// The `watch:` settings of a workspace file (docs/workspace.md, `watch`), for `dw watch`.
//
// They are read from the workspace's file beside config::Workspace rather than kept in it: the
// loader has already checked them (their type, the 10-minute minimum, with file:line errors), and
// config/workspace.h is included by most of the tree, which a new field would recompile whole.
// Move them into Workspace when that header changes anyway.
#pragma once

#include <chrono>

#include "base/status.h"
#include "config/workspace.h"

namespace dw::config {

// `watch.lease_history` and the defaults and minimum it is held to.
inline constexpr std::chrono::milliseconds kDefaultLeaseHistory{24LL * 3600 * 1000};
inline constexpr std::chrono::milliseconds kMinLeaseHistory{10LL * 60 * 1000};

// The workspace's `watch.lease_history`, or kDefaultLeaseHistory when the file sets none (or
// `ws` was not loaded from a file). InvalidArgument naming the file when it cannot be read again
// or holds a value the loader would have refused.
Result<std::chrono::milliseconds> LeaseHistoryOf(const Workspace& ws);

}  // namespace dw::config
