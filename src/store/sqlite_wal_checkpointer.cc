#include "store/sqlite_wal_checkpointer.h"

#include <spdlog/spdlog.h>

#include <system_error>

namespace dw::store {

WalCheckpointer::WalCheckpointer(sqlite3* db, std::string path) : writer_(db), path_(std::move(path)) {
  // Replaces SQLite's automatic checkpoint, which is itself a WAL hook.
  sqlite3_wal_hook(writer_, &WalCheckpointer::OnCommit, this);
}

WalCheckpointer::~WalCheckpointer() {
  sqlite3_wal_hook(writer_, nullptr, nullptr);
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

int WalCheckpointer::checkpoints() const {
  std::lock_guard<std::mutex> lock(mu_);
  return checkpoints_;
}

// Runs on the committing thread, after each commit, with the WAL's size in frames.
int WalCheckpointer::OnCommit(void* self, sqlite3* db, const char* schema, int wal_pages) {
  auto* me = static_cast<WalCheckpointer*>(self);
  if (wal_pages < kCheckpointPages) return SQLITE_OK;
  bool inline_checkpoint = wal_pages >= kInlinePages;
  {
    std::lock_guard<std::mutex> lock(me->mu_);
    if (!me->failed_ && !me->thread_.joinable() && !me->stop_) {
      // No exception may cross SQLite's C frames: a thread that cannot start means commits
      // checkpoint themselves, as SQLite would.
      try {
        me->thread_ = std::thread([me] { me->Run(); });
      } catch (const std::system_error& e) {
        spdlog::warn("state store: no thread for background checkpoints ({}); commits will checkpoint", e.what());
        me->failed_ = true;
      }
    }
    inline_checkpoint |= me->failed_;
    if (!inline_checkpoint && !me->stop_) me->due_ = true;
  }
  if (inline_checkpoint) {
    // What SQLite's automatic checkpoint would have done; SQLITE_BUSY (a reader, or the thread
    // mid-checkpoint) is fine, the next commit tries again.
    sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    return SQLITE_OK;
  }
  me->cv_.notify_one();
  return SQLITE_OK;
}

void WalCheckpointer::Run() {
  sqlite3* db = nullptr;
  // Read-write (a checkpoint writes the database file), never create: the writer made the file.
  int rc = sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  std::string mode;
  if (rc == SQLITE_OK) {
    sqlite3_busy_timeout(db, 1000);
    // A connection learns that the file is in WAL mode when it first reads it; until then a
    // checkpoint does nothing, and says so with SQLITE_OK.
    rc = sqlite3_exec(
        db, "PRAGMA journal_mode",
        [](void* out, int, char** values, char**) {
          if (values[0] != nullptr) *static_cast<std::string*>(out) = values[0];
          return 0;
        },
        &mode, nullptr);
  }
  if (rc != SQLITE_OK || mode != "wal") {
    spdlog::warn("state store: cannot checkpoint {} in the background ({}); commits will checkpoint",
                 path_, rc != SQLITE_OK ? (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)) : "journal mode " + mode);
    sqlite3_close_v2(db);
    std::lock_guard<std::mutex> lock(mu_);
    failed_ = true;  // the writer's hook checkpoints inline, as SQLite would
    return;
  }
  std::unique_lock<std::mutex> lock(mu_);
  int failures = 0;  // in a row: a disk that fails is said once, and again when it recovers
  for (;;) {
    cv_.wait(lock, [&] { return due_ || stop_; });
    if (stop_) break;
    lock.unlock();
    int wal = 0, copied = 0;
    rc = sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &wal, &copied);
    if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) {
      if (failures++ == 0)
        spdlog::warn("state store: background checkpoint of {} failed: {} (code {}); commits still go to "
                     "the write-ahead log, and the checkpoint is retried after every commit",
                     path_, sqlite3_errmsg(db), sqlite3_extended_errcode(db));
    } else if (rc == SQLITE_OK && failures > 0) {
      spdlog::warn("state store: background checkpoint of {} succeeded again after {} failure(s)", path_, failures);
      failures = 0;
    }
    lock.lock();
    ++checkpoints_;
    due_ = false;
  }
  lock.unlock();
  sqlite3_close_v2(db);
}

}  // namespace dw::store
