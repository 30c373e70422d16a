// The Warehouse interface: where checks and monitors push their SQL down. One implementation per
// engine (SQLite, PostgreSQL, BigQuery, Snowflake); each knows its dialect and reads table metadata from the
// engine's own catalog, so names from users are validated against what exists before any SQL is
// built.
// Connections are read-only: a warehouse is observed, never changed.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/http.h"
#include "base/status.h"
#include "config/workspace.h"
#include "store/sql_connection.h"
#include "warehouse/dialect.h"

namespace dw::warehouse {

using store::SqlRow;
using store::SqlValue;

// A column as the catalog describes it.
struct Column {
  std::string name;
  std::string type;  // the engine's type name, lower case ("integer", "timestamp with time zone")
  bool nullable = true;
};

// A table and its columns, in catalog order.
struct TableSchema {
  TableId id;
  std::vector<Column> columns;
  // Whether the engine resolves a name written without quotes to a catalog name of another case
  // (Snowflake folds `customer` to CUSTOMER), so that Find matches it and the dialect's Quote
  // addresses it.
  bool names_fold = false;

  // The column called `name`: the exact match, else (names_fold) the one column whose name
  // differs only in case; nullptr when there is none or several.
  const Column* Find(const std::string& name) const;
  // Every column name, in order.
  std::vector<std::string> ColumnNames() const;
};

struct QueryOptions {
  std::chrono::milliseconds timeout{60000};
  // What ran the statement ({"dw_run", id}, {"dw_check", table}), so the warehouse's own history
  // attributes its cost: BigQuery job labels, Snowflake's QUERY_TAG. Always with {"dw", "checks"}.
  std::vector<std::pair<std::string, std::string>> labels;
  // The most the statement may bill (BigQuery's maximumBytesBilled; engines that bill otherwise
  // ignore it): a statement over it fails with kResourceExhausted and bills nothing.
  std::optional<int64_t> max_bytes_billed;
};

// What one query returned and how long the engine took.
struct QueryOutcome {
  std::vector<SqlRow> rows;
  std::chrono::microseconds duration{0};
  std::optional<int64_t> bytes_billed;  // what the engine says the statement billed, where it bills by bytes
};

class Warehouse {
 public:
  virtual ~Warehouse() = default;

  // The name of the warehouse in the workspace.
  virtual const std::string& name() const = 0;
  virtual const Dialect& dialect() const = 0;

  // Every table and view the connection can read (SQLite: schema "main"; PostgreSQL: outside
  // pg_catalog and information_schema). Fails with kUnavailable when the warehouse is unreachable.
  virtual Result<std::vector<TableId>> ListTables() = 0;

  // The columns of `table`, or nullopt when the catalog has no such table.
  virtual Result<std::optional<TableSchema>> DescribeTable(const TableId& table) = 0;

  // Runs one read-only statement whose parameters are dialect().Param(1..N), bound to `params`. A statement that
  // runs longer than options.timeout is interrupted and fails with kDeadlineExceeded; a statement
  // that tries to write fails (the connection is read-only). The engine's message is kept.
  virtual Result<QueryOutcome> Query(const std::string& sql, const std::vector<SqlValue>& params,
                                     const QueryOptions& options) = 0;

  // The rows a scan of `table` restricted by `where` ("" or "WHERE ...", parameters $1..$N bound
  // to `params`) is expected to read, from the planner (PostgreSQL EXPLAIN) or from table
  // statistics and the index on the filtered column (SQLite), without reading the table's rows;
  // nullopt when the engine cannot say.
  // A second, independent read-only connection to the same warehouse, for running parts of one
  // scan in parallel. kFailedPrecondition where the engine parallelises scans itself (PostgreSQL).
  virtual Result<std::unique_ptr<Warehouse>> Reopen() = 0;

  virtual Result<std::optional<int64_t>> EstimateRowsRead(const TableId& table,
                                                          const std::string& where,
                                                          const std::vector<SqlValue>& params) = 0;

  // How many statements the object may run at once from different threads: 1 (the default) for a
  // connection (SQLite, PostgreSQL); more for a REST warehouse, whose calls mostly wait on the
  // network and whose service runs them side by side.
  virtual int ParallelStatements() const { return 1; }

  // The bytes running `sql` would bill, priced by the engine without running it (BigQuery's dry
  // run), or nullopt where the engine does not bill by bytes read (the default).
  virtual Result<std::optional<int64_t>> EstimateBytesBilled(const std::string& sql, const std::vector<SqlValue>& params);
};

// Opens the configured warehouse read-only. A SQLite file that does not exist is an error (never
// created); PostgreSQL errors keep the server's message with the password removed. A REST warehouse
// (BigQuery, Snowflake) calls through `http`, which must outlive it, and is kFailedPrecondition
// without one; SQLite and PostgreSQL need none.
Result<std::unique_ptr<Warehouse>> OpenWarehouse(const config::WarehouseConfig& config, HttpClient* http = nullptr);

}  // namespace dw::warehouse
