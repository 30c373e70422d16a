#include "store/sqlite_watch_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

namespace dw::store {
namespace {

// Reads "pid host started" from the open lock file.
std::optional<SqliteWatcher> ReadWatcher(int fd) {
  char buf[512];
  ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return std::nullopt;
  buf[n] = '\0';
  std::istringstream in(buf);
  SqliteWatcher w;
  if (!(in >> w.pid >> w.host >> w.started)) return std::nullopt;
  return w;
}

Result<int> OpenLockFile(const std::string& path) {
  std::error_code ec;
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);  // beside the store, as private
  if (fd < 0) return Unavailable("cannot open the dw watch lock file " + path + ": " + std::strerror(errno));
  return fd;
}

std::string Describe(const std::optional<SqliteWatcher>& w) {
  if (!w) return "another dw watch";
  return "dw watch pid " + std::to_string(w->pid) + " on " + w->host + " (since " + w->started + ")";
}

}  // namespace

std::string SqliteWatchLockPath(const std::string& state_path) { return state_path + ".watch.lock"; }

SqliteWatchLock::~SqliteWatchLock() {
  // Emptied first so a reader never names a watcher that has gone; closing releases the flock.
  // A failed truncate is harmless: a reader takes the free lock and ignores what the file says.
  if (ftruncate(fd_, 0) != 0) {
    // nothing to do (see above)
  }
  ::close(fd_);
}

Result<std::unique_ptr<SqliteWatchLock>> SqliteWatchLock::Take(const std::string& state_path,
                                                               const SqliteWatcher& self) {
  const std::string path = SqliteWatchLockPath(state_path);
  Result<int> fd = OpenLockFile(path);
  if (!fd.ok()) return fd.status();
  if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
    std::optional<SqliteWatcher> holder = ReadWatcher(*fd);
    ::close(*fd);
    return FailedPrecondition(
        "the SQLite state store " + state_path + " is already watched by " + Describe(holder) +
        "; SQLite keeps a single dw watch replica (stop that one first, or put the state on PostgreSQL "
        "to run several replicas: docs/watch.md)");
  }
  std::string line = std::to_string(self.pid) + " " + self.host + " " + self.started + "\n";
  if (ftruncate(*fd, 0) != 0 || pwrite(*fd, line.data(), line.size(), 0) != static_cast<ssize_t>(line.size())) {
    std::string why = std::strerror(errno);
    ::close(*fd);
    return Unavailable("cannot write the dw watch lock file " + path + ": " + why);
  }
  return std::unique_ptr<SqliteWatchLock>(new SqliteWatchLock(*fd));
}

Result<std::optional<SqliteWatcher>> CurrentSqliteWatcher(const std::string& state_path) {
  const std::string path = SqliteWatchLockPath(state_path);
  if (!std::filesystem::exists(path)) return std::optional<SqliteWatcher>();
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Unavailable("cannot read the dw watch lock file " + path + ": " + std::strerror(errno));
  // Free to take: nobody watches (the file is a leftover of a watcher that ended).
  if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
    ::close(fd);
    return std::optional<SqliteWatcher>();
  }
  std::optional<SqliteWatcher> w = ReadWatcher(fd);
  ::close(fd);
  if (!w) w = SqliteWatcher{0, "unknown host", "unknown time"};
  return w;
}

}  // namespace dw::store
