#include "store/sqlite_connection.h"

#include <sqlite3.h>

#include "store/sql_operation.h"
#include "store/sqlite_status.h"
#include "store/sqlite_values.h"
#include "store/sqlite_wal_checkpointer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <vector>
#include <thread>
#include <unordered_map>

namespace dw::store {
namespace {

// What an I/O failure below SQLite was, for the extended codes a disk gives ("disk I/O error"
// alone does not say whether a write or an fsync failed).
const char* IoFailure(int code) {
  switch (code) {
    case SQLITE_IOERR_WRITE: return " (a write to the disk failed)";
    case SQLITE_IOERR_FSYNC: return " (an fsync failed: the disk did not confirm what was written)";
    case SQLITE_IOERR_READ: return " (a read from the disk failed)";
    case SQLITE_IOERR_SHORT_READ: return " (a read from the disk came back short)";
    case SQLITE_IOERR_TRUNCATE: return " (truncating a file failed)";
    case SQLITE_IOERR_DIR_FSYNC: return " (an fsync of the folder failed)";
    default: return "";
  }
}

// The Status of a failed call on the state store (store/sqlite_status.h decides the code).
Status SqliteError(int code, const std::string& what, sqlite3* db) {
  std::string detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  std::string message = what + ": " + detail + IoFailure(code);
  const int primary = code & 0xff;
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) message += " (another process holds the state store lock)";
  if (primary == SQLITE_FULL) message += " (free space on the disk; nothing of this write was kept, and the store carries on once there is room)";
  if (primary == SQLITE_IOERR) message += " (nothing of this write was kept; the next write tries again)";
  return Status(SqliteStatusCode(code, /*user_sql=*/false), message);
}

class SqliteConnection final : public SqlConnection {
 public:
  SqliteConnection(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteConnection() override {
    checkpointer_.reset();  // before the connection whose WAL hook it holds
    for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt.stmt);
    sqlite3_close_v2(db_);
  }
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  std::string backend() const override { return "sqlite"; }
  const std::string& display_location() const override { return path_; }

  Result<std::vector<SqlRow>> Query(const std::string& sql,
                                    const std::vector<SqlValue>& params) override {
    std::vector<SqlRow> rows;
    DW_RETURN_IF_ERROR(QueryEach(sql, params, [&](const SqlRow& row) {
      rows.push_back(row);
      return Status::Ok();
    }));
    return rows;
  }

  Status QueryEach(const std::string& sql, const std::vector<SqlValue>& params,
                   const std::function<Status(const SqlRow&)>& on_row) override {
    Result<const Prepared*> prepared = Prepare(sql);
    if (!prepared.ok()) return prepared.status();
    sqlite3_stmt* stmt = (*prepared)->stmt;
    // Reset on every exit so the cached statement releases its read snapshot.
    struct ResetGuard {
      sqlite3_stmt* s;
      ~ResetGuard() {
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
      }
    } guard{stmt};
    DW_RETURN_IF_ERROR(Bind(**prepared, params));
    SqlRow row;
    for (;;) {
      int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW)
        return SqliteError(sqlite3_extended_errcode(db_),
                           "state store " + path_ + ": " + SqlOperation(sql) + " failed", db_);
      const int n = sqlite3_column_count(stmt);
      row.resize(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) row[static_cast<size_t>(i)] = ReadSqliteCell(stmt, i);
      DW_RETURN_IF_ERROR(on_row(row));
    }
    return Status::Ok();
  }

  Status ExecScript(const std::string& sql) override {
    char* err = nullptr;
    int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    if (err != nullptr) sqlite3_free(err);  // the same text is available from sqlite3_errmsg
    if (rc != SQLITE_OK)
      return SqliteError(sqlite3_extended_errcode(db_),
                         "state store " + path_ + ": " + SqlOperation(sql) + " failed", db_);
    return Status::Ok();
  }

  Status Begin() override { return Exec("BEGIN IMMEDIATE"); }
  Status Commit() override { return Exec("COMMIT"); }
  Status Rollback() override {
    // SQLite may already have rolled back by itself (e.g. after SQLITE_FULL); that is not an error.
    if (sqlite3_get_autocommit(db_)) return Status::Ok();
    return Exec("ROLLBACK");
  }
  Status LockForMigration() override { return Status::Ok(); }

  // Applies the connection settings every state file relies on.
  Status Configure() {
    sqlite3_busy_timeout(db_, kSqliteBusyTimeoutMs);
    // journal_mode is the first statement to read the file, so it is where a file that is not a
    // database is detected.
    // Switching a fresh file to WAL needs an exclusive lock, and SQLite answers SQLITE_BUSY at once
    // (without the busy handler) when another connection opens the same new file at that moment:
    // retry within the busy timeout.
    Result<std::vector<SqlRow>> mode = Query("PRAGMA journal_mode=WAL", {});
    for (int waited_ms = 0; !mode.ok() && (sqlite3_extended_errcode(db_) & 0xff) == SQLITE_BUSY &&
                            waited_ms < kSqliteBusyTimeoutMs;
         waited_ms += 10) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      mode = Query("PRAGMA journal_mode=WAL", {});
    }
    if (!mode.ok()) return mode.status();
    DW_RETURN_IF_ERROR(Exec("PRAGMA foreign_keys=ON"));
    DW_RETURN_IF_ERROR(Exec("PRAGMA synchronous=NORMAL"));
    // Checkpoints run on a thread of their own (see WalCheckpointer), never inside a commit.
    checkpointer_ = std::make_unique<WalCheckpointer>(db_, path_);
    return Status::Ok();
  }

 private:
  Status Exec(const std::string& sql) {
    Result<std::vector<SqlRow>> r = Query(sql, {});
    return r.status();
  }

  // A prepared statement and, for each parameter "$<i+1>" in order, its SQLite index (named
  // parameters are numbered by first appearance, which need not be $1, $2, ...).
  struct Prepared {
    sqlite3_stmt* stmt = nullptr;
    std::vector<int> index_of;
  };

  // Returns the cached prepared statement for `sql`, preparing it on first use. The cache is
  // unbounded because the store's statements are a fixed set of constants.
  Result<const Prepared*> Prepare(const std::string& sql) {
    auto it = statements_.find(sql);
    if (it != statements_.end()) return &it->second;
    Prepared p;
    int rc = sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size()),
                                SQLITE_PREPARE_PERSISTENT, &p.stmt, nullptr);
    if (rc != SQLITE_OK) {
      sqlite3_finalize(p.stmt);
      return SqliteError(sqlite3_extended_errcode(db_), "SQLite could not prepare a statement",
                         db_);
    }
    const int count = sqlite3_bind_parameter_count(p.stmt);
    for (int i = 1; i <= count; ++i) {
      const std::string name = "$" + std::to_string(i);
      const int index = sqlite3_bind_parameter_index(p.stmt, name.c_str());
      if (index == 0) {
        sqlite3_finalize(p.stmt);
        return Internal("statement has no parameter " + name);
      }
      p.index_of.push_back(index);
    }
    return &statements_.emplace(sql, std::move(p)).first->second;
  }

  // Binds params[i] to the parameter named "$<i+1>", wherever it appears in the statement.
  Status Bind(const Prepared& p, const std::vector<SqlValue>& params) {
    if (p.index_of.size() != params.size()) {
      return Internal("statement expects " + std::to_string(p.index_of.size()) +
                      " parameters, got " + std::to_string(params.size()));
    }
    for (size_t i = 0; i < params.size(); ++i) {
      int rc = BindSqliteValue(p.stmt, p.index_of[i], params[i]);
      if (rc != SQLITE_OK) return SqliteError(rc, "SQLite could not bind $" + std::to_string(i + 1), db_);
    }
    return Status::Ok();
  }


  sqlite3* db_;
  std::string path_;
  std::unordered_map<std::string, Prepared> statements_;
  std::unique_ptr<WalCheckpointer> checkpointer_;
};

// Creates what is missing of the state store's folder and file, readable by their owner only: the
// store holds incidents, evidence, approvals and the people's keys, and a folder or file another
// user of the machine can read gives them all of it. What already exists keeps its permissions.
Status CreatePrivately(const std::string& path) {
  namespace fs = std::filesystem;
  if (path == ":memory:" || path.rfind("file:", 0) == 0) return Status::Ok();
  fs::path p(path);
  std::error_code ec;
  std::vector<fs::path> missing;
  for (fs::path dir = p.parent_path(); !dir.empty() && !fs::exists(dir, ec); dir = dir.parent_path()) {
    missing.push_back(dir);
    if (dir == dir.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST)
      return Unavailable("could not create the folder of the state store at " + path + ": " +
                         it->string() + ": " + std::strerror(errno));
  }
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);  // an empty file is a new SQLite database; its -wal and -shm take its mode
  } else if (errno != EEXIST) {
    return Unavailable("could not create the state store at " + path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<SqlConnection>> OpenSqliteConnection(const std::string& path) {
  DW_RETURN_IF_ERROR(CreatePrivately(path));
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    Status s = SqliteError(rc, "could not open the state store at " + path, db);
    sqlite3_close_v2(db);
    return s;
  }
  sqlite3_extended_result_codes(db, 1);
  auto conn = std::make_unique<SqliteConnection>(db, path);
  Status configured = conn->Configure();
  if (!configured.ok()) {
    if (configured.code() == StatusCode::kDataLoss) {
      return DataLoss("the state store at " + path + " is not a readable SQLite database (" +
                      configured.message() + "); move it aside or point state: elsewhere");
    }
    return Status(configured.code(),
                  "could not open the state store at " + path + ": " + configured.message());
  }
  return std::unique_ptr<SqlConnection>(std::move(conn));
}

}  // namespace dw::store
