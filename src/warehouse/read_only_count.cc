#include "warehouse/read_only_count.h"

#include <libpq-fe.h>
#include <sqlite3.h>

#include <cctype>
#include <memory>
#include <vector>

namespace dw::warehouse {
namespace {

using Steady = std::chrono::steady_clock;

Result<int64_t> SqliteCount(const config::WarehouseConfig& wh, const std::string& sql,
                            const std::map<std::string, std::string>& params,
                            std::chrono::milliseconds timeout) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(wh.path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> db(raw, sqlite3_close);
  if (rc != SQLITE_OK)
    return Unavailable("warehouse " + wh.name + ": cannot open " + wh.path + " read-only: " +
                       (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  sqlite3_busy_timeout(raw, 2000);
  const Steady::time_point deadline = Steady::now() + timeout;
  auto* deadline_ptr = const_cast<Steady::time_point*>(&deadline);
  sqlite3_progress_handler(raw, 10000, [](void* d) {
    return Steady::now() > *static_cast<Steady::time_point*>(d) ? 1 : 0;
  }, deadline_ptr);
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  rc = sqlite3_prepare_v2(raw, sql.c_str(), static_cast<int>(sql.size()), &stmt, &tail);
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(stmt, sqlite3_finalize);
  if (rc != SQLITE_OK || stmt == nullptr)
    return InvalidArgument("warehouse " + wh.name + ": the query does not prepare: " + sqlite3_errmsg(raw));
  for (const char* p = tail; p && *p; ++p)
    if (!std::isspace(static_cast<unsigned char>(*p)) && *p != ';')
      return InvalidArgument("warehouse " + wh.name + ": expected one statement");
  if (!sqlite3_stmt_readonly(stmt))
    return InvalidArgument("warehouse " + wh.name + ": the query writes; only reads are run");
  int n = sqlite3_bind_parameter_count(stmt);
  for (int i = 1; i <= n; ++i) {
    const char* name = sqlite3_bind_parameter_name(stmt, i);
    std::string key = name ? std::string(name + 1) : "";
    auto it = params.find(key);
    if (name == nullptr || (name[0] != ':' && name[0] != '$' && name[0] != '@') || it == params.end())
      return InvalidArgument("warehouse " + wh.name + ": parameter " + (name ? name : "?") +
                             " has no value (available: :since)");
    sqlite3_bind_text(stmt, i, it->second.c_str(), static_cast<int>(it->second.size()), SQLITE_TRANSIENT);
  }
  rc = sqlite3_step(stmt);
  if (rc == SQLITE_INTERRUPT) return DeadlineExceeded("warehouse " + wh.name + ": the query timed out");
  if (rc != SQLITE_ROW)
    return InvalidArgument("warehouse " + wh.name + ": the query returned no row: " + sqlite3_errmsg(raw));
  if (sqlite3_column_type(stmt, 0) != SQLITE_INTEGER)
    return InvalidArgument("warehouse " + wh.name + ": the query's first column is not an integer");
  return static_cast<int64_t>(sqlite3_column_int64(stmt, 0));
}

// Rewrites :name parameters to $1, $2 ... outside quotes, comments and :: casts; `order` gets the
// names in $n order.
std::string ToPositional(const std::string& sql, std::vector<std::string>* order) {
  std::string out;
  for (size_t i = 0; i < sql.size();) {
    char c = sql[i];
    if (c == '\'' || c == '"') {
      size_t end = sql.find(c, i + 1);
      end = end == std::string::npos ? sql.size() : end + 1;
      out.append(sql, i, end - i);
      i = end;
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      size_t end = sql.find('\n', i);
      end = end == std::string::npos ? sql.size() : end;
      out.append(sql, i, end - i);
      i = end;
    } else if (c == ':' && i + 1 < sql.size() && sql[i + 1] == ':') {
      out += "::";
      i += 2;
    } else if (c == ':' && i + 1 < sql.size() &&
               (std::isalpha(static_cast<unsigned char>(sql[i + 1])) || sql[i + 1] == '_')) {
      size_t j = i + 1;
      while (j < sql.size() && (std::isalnum(static_cast<unsigned char>(sql[j])) || sql[j] == '_')) ++j;
      std::string name = sql.substr(i + 1, j - i - 1);
      size_t pos = 0;
      while (pos < order->size() && (*order)[pos] != name) ++pos;
      if (pos == order->size()) order->push_back(name);
      out += "$" + std::to_string(pos + 1);
      i = j;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

Result<int64_t> PostgresCount(const config::WarehouseConfig& wh, const std::string& sql,
                              const std::map<std::string, std::string>& params,
                              std::chrono::milliseconds timeout) {
  long secs = std::max<long>(1, static_cast<long>(timeout.count() / 1000));
  std::string t = std::to_string(secs);
  const char* keys[] = {"dbname", "connect_timeout", nullptr};
  const char* values[] = {wh.dsn.c_str(), t.c_str(), nullptr};
  std::unique_ptr<PGconn, void (*)(PGconn*)> conn(PQconnectdbParams(keys, values, 1), PQfinish);
  if (!conn || PQstatus(conn.get()) != CONNECTION_OK)
    return Unavailable("warehouse " + wh.name + ": cannot connect (check its dsn)");
  auto exec = [&](const std::string& q) {
    PGresult* r = PQexec(conn.get(), q.c_str());
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    return ok;
  };
  if (!exec("BEGIN READ ONLY") ||
      !exec("SET LOCAL statement_timeout = " + std::to_string(timeout.count())))
    return Unavailable("warehouse " + wh.name + ": cannot start a read-only transaction");
  std::vector<std::string> order;
  std::string positional = ToPositional(sql, &order);
  std::vector<const char*> vals;
  for (const std::string& name : order) {
    auto it = params.find(name);
    if (it == params.end())
      return InvalidArgument("warehouse " + wh.name + ": parameter :" + name + " has no value (available: :since)");
    vals.push_back(it->second.c_str());
  }
  PGresult* res = PQexecParams(conn.get(), positional.c_str(), static_cast<int>(vals.size()), nullptr,
                               vals.data(), nullptr, nullptr, 0);
  std::unique_ptr<PGresult, void (*)(PGresult*)> guard(res, PQclear);
  exec("ROLLBACK");
  if (PQresultStatus(res) != PGRES_TUPLES_OK) {
    const char* state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    if (state && std::string(state) == "57014")
      return DeadlineExceeded("warehouse " + wh.name + ": the query timed out");
    return InvalidArgument("warehouse " + wh.name + ": the query failed: " + PQresultErrorMessage(res));
  }
  if (PQntuples(res) < 1 || PQnfields(res) < 1 || PQgetisnull(res, 0, 0))
    return InvalidArgument("warehouse " + wh.name + ": the query returned no value");
  const char* v = PQgetvalue(res, 0, 0);
  char* end = nullptr;
  long long n = std::strtoll(v, &end, 10);
  if (end == v || *end != '\0')
    return InvalidArgument("warehouse " + wh.name + ": the query's first column is not an integer");
  return static_cast<int64_t>(n);
}

}  // namespace

Result<int64_t> RunReadOnlyCount(const config::WarehouseConfig& warehouse, const std::string& sql,
                                 const std::map<std::string, std::string>& params,
                                 std::chrono::milliseconds timeout) {
  if (warehouse.type == "sqlite") return SqliteCount(warehouse, sql, params, timeout);
  if (warehouse.type == "postgres") return PostgresCount(warehouse, sql, params, timeout);
  return InvalidArgument("warehouse " + warehouse.name + ": type '" + warehouse.type +
                         "' cannot run queries yet");
}

}  // namespace dw::warehouse
