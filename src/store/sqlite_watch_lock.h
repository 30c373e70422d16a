// SQLite keeps ONE `dw watch`: its leases would need a server clock and row locks across machines
// that a file does not offer, so a second `dw watch` on the same SQLite file is refused instead of
// silently running every job twice. The lock is an exclusive flock(2) on "<state file>.watch.lock",
// which the kernel releases when the process ends however it ends (a SIGKILLed watcher never
// leaves a stale lock); the file says who holds it, for the refusal and `dw watch --status`.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/status.h"

namespace dw::store {

// Who holds the watch lock, as written in the lock file.
struct SqliteWatcher {
  int64_t pid = 0;
  std::string host;
  std::string started;  // RFC 3339, by the watcher's clock
};

// Held for as long as the object lives.
class SqliteWatchLock {
 public:
  ~SqliteWatchLock();
  SqliteWatchLock(const SqliteWatchLock&) = delete;
  SqliteWatchLock& operator=(const SqliteWatchLock&) = delete;

  // Takes the watch lock of the SQLite store at `state_path` for `self`. FailedPrecondition naming
  // the holder (pid, host, since) when another `dw watch` has it; Unavailable when the lock file
  // cannot be created.
  static Result<std::unique_ptr<SqliteWatchLock>> Take(const std::string& state_path, const SqliteWatcher& self);

 private:
  explicit SqliteWatchLock(int fd) : fd_(fd) {}
  int fd_;
};

// Who holds the watch lock of `state_path` now, or nullopt when no `dw watch` runs on it.
Result<std::optional<SqliteWatcher>> CurrentSqliteWatcher(const std::string& state_path);

// The lock file of `state_path`.
std::string SqliteWatchLockPath(const std::string& state_path);

}  // namespace dw::store
