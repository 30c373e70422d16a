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

// Bytes bound as a parameter in their own form, never as text: a BLOB on SQLite, a BYTEA sent in
// PostgreSQL's binary form (no hex, no escaping; any byte values).
struct SqlBytes {
  std::string bytes;
  bool operator==(const SqlBytes&) const = default;
};
// Many byte strings bound as one array parameter: a BYTEA[] in PostgreSQL's binary form (for the
// batch statements' unnest). SQLite has no arrays: binding one there fails.
struct SqlBytesArray {
  std::vector<std::string> items;
  bool operator==(const SqlBytesArray&) const = default;
};

// A bound parameter or a result cell: NULL, integer, floating point or text; a parameter may also
// be bytes. Result cells are never SqlBytes: a bytes column reads as a std::string of its bytes
// through QueryBytes (below).
using SqlValue = std::variant<std::monostate, int64_t, double, std::string, SqlBytes, SqlBytesArray>;
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
  // Query for a statement that selects a bytes column: such a cell is a std::string of the bytes
  // themselves (PostgreSQL sends the whole result in its binary form, so a BYTEA costs its size
  // and no hex either way). Only integer, floating point, boolean, text and bytes columns can be
  // read so: InvalidArgument naming the column otherwise (select other types through Query). The
  // default is Query (SQLite reads a BLOB as its bytes already).
  virtual Result<std::vector<SqlRow>> QueryBytes(const std::string& sql, const std::vector<SqlValue>& params) {
    return Query(sql, params);
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
