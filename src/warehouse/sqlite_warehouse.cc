#include "warehouse/sqlite_warehouse.h"

#include <sqlite3.h>

#include "store/sqlite_status.h"
#include "store/sqlite_values.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace dw::warehouse {
namespace {

// How long a statement waits for a lock another connection holds, at most (a query with a shorter
// timeout waits only that long).
constexpr int kBusyTimeoutMs = 5000;

int BusyTimeoutMs(std::chrono::milliseconds limit) {
  return static_cast<int>(std::clamp<std::chrono::milliseconds::rep>(limit.count(), 0, kBusyTimeoutMs));
}

using store::BindSqliteValue;
using store::ReadSqliteCell;

using SteadyClock = std::chrono::steady_clock;

// How many virtual-machine steps run between two looks at the deadline: small enough to stop a
// long scan within milliseconds, large enough to cost nothing measurable.
constexpr int kProgressSteps = 10000;

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// True when `tail` (what follows the first statement) holds anything but blanks, comments and ';'.
bool HasSecondStatement(const char* tail) {
  std::string_view t = tail != nullptr ? tail : "";
  size_t i = 0;
  while (i < t.size()) {
    char c = t[i];
    if (std::isspace(static_cast<unsigned char>(c)) || c == ';') {
      ++i;
    } else if (t.substr(i, 2) == "--") {
      size_t nl = t.find('\n', i);
      i = nl == std::string_view::npos ? t.size() : nl + 1;
    } else if (t.substr(i, 2) == "/*") {
      size_t end = t.find("*/", i + 2);
      i = end == std::string_view::npos ? t.size() : end + 2;
    } else {
      return true;
    }
  }
  return false;
}

class SqliteWarehouse final : public Warehouse {
 public:
  SqliteWarehouse(std::string name, std::string path, sqlite3* db)
      : name_(std::move(name)), path_(std::move(path)), db_(db), dialect_(SqliteDialect()) {
    sqlite3_progress_handler(db_, kProgressSteps, &SqliteWarehouse::OnProgress, this);
  }
  ~SqliteWarehouse() override { sqlite3_close_v2(db_); }
  SqliteWarehouse(const SqliteWarehouse&) = delete;
  SqliteWarehouse& operator=(const SqliteWarehouse&) = delete;

  const std::string& name() const override { return name_; }
  const Dialect& dialect() const override { return dialect_; }

  Result<std::vector<TableId>> ListTables() override {
    Result<QueryOutcome> r = Query(
        "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE "
        "'sqlite\\_%' ESCAPE '\\' ORDER BY name",
        {}, {});
    if (!r.ok()) return r.status();
    std::vector<TableId> out;
    for (const SqlRow& row : r->rows)
      if (const auto* s = std::get_if<std::string>(&row[0])) out.push_back({"main", *s});
    return out;
  }

  Result<std::optional<TableSchema>> DescribeTable(const TableId& table) override {
    if (!table.schema.empty() && table.schema != "main") return std::optional<TableSchema>();
    Result<QueryOutcome> r =
        Query("SELECT name, type, \"notnull\" FROM pragma_table_info($1)", {table.table}, {});
    if (!r.ok()) return r.status();
    if (r->rows.empty()) return std::optional<TableSchema>();
    TableSchema schema;
    schema.id = {"main", table.table};
    for (const SqlRow& row : r->rows) {
      Column c;
      if (const auto* s = std::get_if<std::string>(&row[0])) c.name = *s;
      if (const auto* s = std::get_if<std::string>(&row[1])) c.type = Lower(*s);
      if (const auto* n = std::get_if<int64_t>(&row[2])) c.nullable = *n == 0;
      schema.columns.push_back(std::move(c));
    }
    return std::optional<TableSchema>(std::move(schema));
  }

  Result<QueryOutcome> Query(const std::string& sql, const std::vector<SqlValue>& params,
                             const QueryOptions& options) override {
    auto start = SteadyClock::now();
    // A lock another process holds is waited for no longer than the query may run (and never
    // more than the 5 s set at open): a warehouse with a 1 s query_timeout does not sit out 5 s.
    sqlite3_busy_timeout(db_, BusyTimeoutMs(options.timeout));
    sqlite3_stmt* raw = nullptr;
    const char* tail = nullptr;
    int rc = sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &raw, &tail);
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(raw, sqlite3_finalize);
    if (rc != SQLITE_OK) return Error(rc, "SQLite could not prepare the query");
    if (raw == nullptr) return InvalidArgument("the query is empty");
    if (HasSecondStatement(tail))
      return InvalidArgument("the query holds more than one statement; a check runs exactly one");
    if (!sqlite3_stmt_readonly(raw))
      return PermissionDenied("the query would write to warehouse '" + name_ +
                              "'; checks and monitors only read");
    if (sqlite3_bind_parameter_count(raw) != static_cast<int>(params.size()))
      return InvalidArgument("the query expects " +
                             std::to_string(sqlite3_bind_parameter_count(raw)) +
                             " parameters, got " + std::to_string(params.size()));
    for (size_t i = 0; i < params.size(); ++i) DW_RETURN_IF_ERROR(Bind(raw, i, params[i]));

    deadline_ = start + options.timeout;
    timed_out_ = false;
    QueryOutcome out;
    for (;;) {
      rc = sqlite3_step(raw);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) {
        if (timed_out_) {
          return DeadlineExceeded("the query ran longer than its " +
                                  std::to_string(options.timeout.count()) +
                                  " ms timeout on warehouse '" + name_ + "' and was interrupted");
        }
        return Error(sqlite3_extended_errcode(db_), "SQLite query failed");
      }
      int n = sqlite3_column_count(raw);
      SqlRow row;
      row.reserve(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) row.push_back(ReadSqliteCell(raw, i));
      out.rows.push_back(std::move(row));
    }
    out.duration =
        std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - start);
    return out;
  }

  Result<std::unique_ptr<Warehouse>> Reopen() override { return OpenSqliteWarehouse(name_, path_); }

  Result<std::optional<int64_t>> EstimateRowsRead(const TableId& table, const std::string& where,
                                                  const std::vector<SqlValue>& params) override {
    if (!where.empty()) {
      // When the filter is answered by an index the scan reads only the matching rows; counting
      // them walks the index alone, never the table's rows.
      std::string count_sql = "SELECT count(*) FROM " + dialect_.Table(table) + " " + where;
      Result<QueryOutcome> plan = Query("EXPLAIN QUERY PLAN " + count_sql, params, {});
      if (!plan.ok()) return plan.status();
      bool searches = false;
      for (const SqlRow& row : plan->rows)
        if (const auto* d = std::get_if<std::string>(&row.back()))
          if (d->rfind("SEARCH", 0) == 0 && d->find("INDEX") != std::string::npos) searches = true;
      if (searches) {
        Result<QueryOutcome> counted = Query(count_sql, params, {});
        if (!counted.ok()) return counted.status();
        if (const auto* n = std::get_if<int64_t>(&counted->rows.at(0).at(0)))
          return std::optional<int64_t>(*n);
      }
    }
    // ANALYZE's statistics when present: the first number of the table's row is its row count.
    Result<QueryOutcome> stat = Query(
        "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_stat1'", {}, {});
    if (stat.ok() && !stat->rows.empty()) {
      Result<QueryOutcome> s =
          Query("SELECT stat FROM sqlite_stat1 WHERE tbl = $1 AND idx IS NULL", {table.table}, {});
      if (s.ok() && !s->rows.empty())
        if (const auto* text = std::get_if<std::string>(&s->rows[0][0]))
          return std::optional<int64_t>(std::strtoll(text->c_str(), nullptr, 10));
    }
    // Otherwise the largest rowid: one step down the table's b-tree, exact unless rows were
    // deleted (then an over-estimate, which errs on the safe side of a budget).
    Result<QueryOutcome> r = Query("SELECT max(rowid) FROM " + dialect_.Table(table), {}, {});
    if (!r.ok()) return std::optional<int64_t>();  // a view or WITHOUT ROWID table: cannot say
    if (const auto* n = std::get_if<int64_t>(&r->rows.at(0).at(0))) return std::optional<int64_t>(*n);
    return std::optional<int64_t>(0);
  }

 private:
  static int OnProgress(void* self_ptr) {
    auto* self = static_cast<SqliteWarehouse*>(self_ptr);
    if (SteadyClock::now() < self->deadline_) return 0;
    self->timed_out_ = true;
    return 1;  // non-zero interrupts the statement with SQLITE_INTERRUPT
  }

  Status Error(int code, const std::string& what) const {
    std::string message = what + " on warehouse '" + name_ + "': " + sqlite3_errmsg(db_);
    return Status(store::SqliteStatusCode(code, /*user_sql=*/true), message);
  }

  // Binds `v` to the parameter named "$<i+1>". SQLite numbers named parameters in order of first
  // appearance, so $2 may well be the first slot: binding by position would be wrong.
  Status Bind(sqlite3_stmt* stmt, size_t i, const SqlValue& v) {
    const std::string name = "$" + std::to_string(i + 1);
    int index = sqlite3_bind_parameter_index(stmt, name.c_str());
    if (index == 0) return InvalidArgument("the query has no parameter " + name);
    int rc = BindSqliteValue(stmt, index, v);
    if (rc != SQLITE_OK) return Error(rc, "SQLite could not bind parameter " + name);
    return Status::Ok();
  }


  std::string name_;
  std::string path_;
  sqlite3* db_;
  const Dialect& dialect_;
  SteadyClock::time_point deadline_ = SteadyClock::time_point::max();
  bool timed_out_ = false;
};

}  // namespace

Result<std::unique_ptr<Warehouse>> OpenSqliteWarehouse(const std::string& name,
                                                       const std::string& path,
                                                       std::chrono::milliseconds lock_wait) {
  std::error_code ec;
  if (path != ":memory:" && !std::filesystem::exists(path, ec)) {
    return NotFound("warehouse '" + name + "': the SQLite file " + path + " does not exist");
  }
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return Unavailable("warehouse '" + name + "': could not open " + path + ": " + detail);
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, BusyTimeoutMs(lock_wait));
  // Reading the schema proves the file is a database (any file opens; a text file fails here).
  sqlite3_stmt* stmt = nullptr;
  rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema", -1, &stmt, nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_step(stmt);
  sqlite3_finalize(stmt);
  if (rc != SQLITE_ROW) {
    std::string detail = sqlite3_errmsg(db);
    sqlite3_close_v2(db);
    // Locked is a state of the moment, not a damaged file: the next run may read it.
    if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
      return Unavailable("warehouse '" + name + "': " + path + " is locked by another connection (" +
                         detail + ")");
    return DataLoss("warehouse '" + name + "': " + path + " is not a readable SQLite database (" +
                    detail + ")");
  }
  return std::unique_ptr<Warehouse>(std::make_unique<SqliteWarehouse>(name, path, db));
}

}  // namespace dw::warehouse
