#include "warehouse/probe.h"

#include <filesystem>
#include <memory>
#include <string_view>

#include <libpq-fe.h>
#include <sqlite3.h>

#include "base/log.h"
#include "base/url_redaction.h"
#include "warehouse/backends.h"
#include "warehouse/probe_backends.h"

namespace dw::warehouse {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds Since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
}

}  // namespace

WarehouseProbe ProbeSqliteWarehouse(const config::WarehouseConfig& wh, std::chrono::milliseconds /*timeout*/,
                                     HttpClient* /*http*/) {
  WarehouseProbe p;
  auto start = Clock::now();
  std::error_code ec;
  if (!std::filesystem::exists(wh.path, ec)) {
    p.detail = "file not found: " + wh.path;
    return p;
  }
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(wh.path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> db(raw, sqlite3_close);
  if (rc != SQLITE_OK) {
    p.detail = std::string("cannot open: ") + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc));
    return p;
  }
  sqlite3_busy_timeout(raw, 2000);
  sqlite3_stmt* stmt = nullptr;
  // Reading the schema proves the file is a database (a text file opens fine but fails here).
  rc = sqlite3_prepare_v2(raw, "SELECT count(*) FROM sqlite_master WHERE type = 'table'", -1, &stmt,
                          nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_step(stmt);
  if (rc != SQLITE_ROW) {
    p.detail = std::string("not a readable SQLite database: ") + sqlite3_errmsg(raw);
    sqlite3_finalize(stmt);
    return p;
  }
  int tables = sqlite3_column_int(stmt, 0);
  sqlite3_finalize(stmt);
  p.reachable = true;
  p.latency = Since(start);
  p.detail = "opened read-only; " + std::to_string(tables) + " tables";
  return p;
}

WarehouseProbe ProbePostgresWarehouse(const config::WarehouseConfig& wh, std::chrono::milliseconds timeout,
                                       HttpClient* /*http*/) {
  WarehouseProbe p;
  auto start = Clock::now();
  long secs = std::max<long>(1, static_cast<long>(timeout.count() / 1000));
  const char* keys[] = {"dbname", "connect_timeout", nullptr};
  std::string t = std::to_string(secs);
  const char* values[] = {wh.dsn.c_str(), t.c_str(), nullptr};
  // expand_dbname=1 lets the DSN (URL or key=value) supply every other setting.
  std::unique_ptr<PGconn, void (*)(PGconn*)> conn(PQconnectdbParams(keys, values, 1), PQfinish);
  if (!conn || PQstatus(conn.get()) != CONNECTION_OK) {
    std::string msg = conn ? PQerrorMessage(conn.get()) : "out of memory";
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    p.detail = "cannot connect: " + RedactSecrets(msg);
    return p;
  }
  std::unique_ptr<PGresult, void (*)(PGresult*)> res(PQexec(conn.get(), "SELECT 1"), PQclear);
  if (PQresultStatus(res.get()) != PGRES_TUPLES_OK) {
    p.detail = std::string("SELECT 1 failed: ") + PQerrorMessage(conn.get());
    return p;
  }
  p.reachable = true;
  p.latency = Since(start);
  p.detail = "connected; server version " + std::to_string(PQserverVersion(conn.get()));
  return p;
}

WarehouseProbe ProbeWarehouse(const config::WarehouseConfig& wh, std::chrono::milliseconds timeout, HttpClient* http) {
  if (const WarehouseBackend* backend = FindWarehouseBackend(wh.type)) return backend->probe(wh, timeout, http);
  WarehouseProbe p;
  p.detail = "unsupported warehouse type '" + wh.type + "'";
  return p;
}

std::string DisplayLocation(const config::WarehouseConfig& wh) {
  if (const WarehouseBackend* backend = FindWarehouseBackend(wh.type)) return backend->location(wh);
  return RedactSecrets(RedactUrl(wh.dsn));
}

std::string SqliteLocation(const config::WarehouseConfig& wh) { return wh.path; }

std::string PostgresDatabase(const config::WarehouseConfig& wh) {
  // libpq's own parser reads both forms (URL and keyword/value); a DSN it refuses names nothing.
  char* error = nullptr;
  std::unique_ptr<PQconninfoOption, void (*)(PQconninfoOption*)> options(PQconninfoParse(wh.dsn.c_str(), &error),
                                                                          PQconninfoFree);
  if (error != nullptr) PQfreemem(error);
  if (!options) return "";
  for (const PQconninfoOption* o = options.get(); o->keyword != nullptr; ++o)
    if (std::string_view(o->keyword) == "dbname" && o->val != nullptr) return o->val;
  return "";
}

std::string PostgresLocation(const config::WarehouseConfig& wh) { return RedactSecrets(RedactUrl(wh.dsn)); }

}  // namespace dw::warehouse
