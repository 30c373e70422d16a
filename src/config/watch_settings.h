// The bounds of the `watch:` settings of a workspace file (docs/workspace.md, `watch`). The value
// itself is `Workspace::watch_lease_history`, set by the loader, which holds it to these bounds
// with a file:line error; `dw watch --lease-history` is held to the same minimum.
#pragma once

#include <chrono>

namespace dw::config {

// `watch.lease_history` when the file sets none, and the least it may be: `dw watch --status` and
// the accounting of each job slot's run read the recent lease history.
inline constexpr std::chrono::milliseconds kDefaultLeaseHistory{24LL * 3600 * 1000};
inline constexpr std::chrono::milliseconds kMinLeaseHistory{10LL * 60 * 1000};

}  // namespace dw::config
