// The one seam between the state store and a database driver: run a parameterised statement, get
// typed cells back. The store's SQL is written once, with $1..$N placeholders, for both backends.
// Not thread-safe: the store serialises access.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "base/status.h"

namespace dw::store {

// A bound parameter or a result cell: NULL, integer, floating point or text.
using SqlValue = std::variant<std::monostate, int64_t, double, std::string>;
using SqlRow = std::vector<SqlValue>;

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;

  // "sqlite" or "postgresql".
  virtual std::string backend() const = 0;
  // Where the connection points, safe to print (passwords redacted).
  virtual const std::string& display_location() const = 0;

  // Runs one statement whose parameters are $1..$N, bound to params[0..N-1], and returns the rows
  // it produced (none for statements without a result). Values are never spliced into `sql`.
  virtual Result<std::vector<SqlRow>> Query(const std::string& sql,
                                            const std::vector<SqlValue>& params = {}) = 0;
  // Query, handing each row to `on_row` as it is read instead of collecting them all (scans of
  // millions of rows). Returns the first error of the statement or of `on_row` (which stops the
  // scan). The default collects the rows with Query first.
  virtual Status QueryEach(const std::string& sql, const std::vector<SqlValue>& params,
                           const std::function<Status(const SqlRow&)>& on_row) {
    Result<std::vector<SqlRow>> rows = Query(sql, params);
    if (!rows.ok()) return rows.status();
    for (const SqlRow& row : *rows) DW_RETURN_IF_ERROR(on_row(row));
    return Status::Ok();
  }
  // Runs `sql`, one or more ';'-separated statements without parameters (migration DDL).
  virtual Status ExecScript(const std::string& sql) = 0;

  // Starts a transaction that will write (SQLite takes the write lock now, so two writers never
  // deadlock upgrading read locks).
  virtual Status Begin() = 0;
  virtual Status Commit() = 0;
  // Rolls back the open transaction; safe to call when the transaction already failed.
  virtual Status Rollback() = 0;
  // Inside a transaction, blocks other processes' migrations until it ends (PostgreSQL: a
  // transaction-level advisory lock; SQLite: nothing to do, Begin already holds the write lock).
  virtual Status LockForMigration() = 0;
};

}  // namespace dw::store
