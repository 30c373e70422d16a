// Checkpoints a SQLite file's write-ahead log on a thread and connection of its own.
//
// SQLite's automatic checkpoint runs inside the COMMIT that takes the WAL past
// wal_autocheckpoint pages: that one commit copies every page changed since the last checkpoint
// into the database file and waits for two fsyncs. The state store commits from one thread at a
// time (the graph's group commit, every writer of `dw serve`), so each such wait stalls every
// writer queued behind it. With a WalCheckpointer the committing connection only notes the WAL's
// size (its WAL hook) and this thread does the copying, as a PASSIVE checkpoint, which never
// blocks writers or readers.
#pragma once

#include <sqlite3.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace dw::store {

class WalCheckpointer {
 public:
  // WAL size (frames, as SQLite's WAL hook counts) at which a checkpoint is due: SQLite's own
  // default for automatic ones.
  static constexpr int kCheckpointPages = 1000;
  // WAL size at which the committing connection checkpoints by itself after all: the thread has
  // fallen far behind, and the WAL must not grow without bound. (When the thread cannot open the
  // file, commits checkpoint from kCheckpointPages on, as SQLite's automatic checkpoint does.)
  static constexpr int kInlinePages = 16 * kCheckpointPages;

  // Takes over the checkpoints of `db` (a connection to the WAL-mode file at `path`) by installing
  // its WAL hook. REQUIRES: `db` outlives this object; `path` is a file, not ":memory:".
  WalCheckpointer(sqlite3* db, std::string path);
  // Stops the thread (finishing a checkpoint it has begun) and closes its connection.
  ~WalCheckpointer();
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

  // Checkpoints done by the thread so far (complete or partial); for tests.
  int checkpoints() const;

 private:
  static int OnCommit(void* self, sqlite3* db, const char* schema, int wal_pages);
  void Run();

  sqlite3* writer_;
  const std::string path_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool due_ = false;
  bool stop_ = false;
  bool failed_ = false;  // the thread could not open the file: commits checkpoint themselves
  int checkpoints_ = 0;
  std::thread thread_;  // started at the first due checkpoint
};

}  // namespace dw::store
