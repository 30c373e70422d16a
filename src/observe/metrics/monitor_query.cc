#include "observe/metrics/monitor_query.h"

#include <sqlite3.h>

#include <memory>

namespace dw::metrics {

Result<std::vector<MonitorRow>> RunMonitorQuery(const config::WarehouseConfig& wh,
                                                const std::string& sql,
                                                const std::string& window_start,
                                                const std::string& window_end) {
  if (wh.type != "sqlite")
    return FailedPrecondition("warehouse " + wh.name + " is " + wh.type +
                              ": monitors run on SQLite warehouses until the shared Warehouse "
                              "interface (PostgreSQL) lands");
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(wh.path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> db(raw, sqlite3_close);
  if (rc != SQLITE_OK)
    return Unavailable("warehouse " + wh.name + ": cannot open " + wh.path + ": " +
                       (raw ? sqlite3_errmsg(raw) : "out of memory"));
  sqlite3_busy_timeout(db.get(), 5000);
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db.get(), sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
    return InvalidArgument("warehouse " + wh.name + ": monitor query does not compile: " +
                           sqlite3_errmsg(db.get()));
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(st, sqlite3_finalize);
  if (!st) return InvalidArgument("warehouse " + wh.name + ": monitor query is empty");
  int i = sqlite3_bind_parameter_index(st, ":window_start");
  if (i > 0) sqlite3_bind_text(st, i, window_start.c_str(), -1, SQLITE_TRANSIENT);
  i = sqlite3_bind_parameter_index(st, ":window_end");
  if (i > 0) sqlite3_bind_text(st, i, window_end.c_str(), -1, SQLITE_TRANSIENT);
  int columns = sqlite3_column_count(st);
  if (columns < 1 || columns > 2)
    return InvalidArgument("warehouse " + wh.name + ": a monitor query returns one column (value) "
                           "or two (bucket, value); this one returns " + std::to_string(columns));
  std::vector<MonitorRow> rows;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    MonitorRow r;
    int vcol = columns - 1;
    if (columns == 2 && sqlite3_column_type(st, 0) != SQLITE_NULL)
      r.bucket = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    int type = sqlite3_column_type(st, vcol);
    if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
      r.value = sqlite3_column_double(st, vcol);
    } else if (type != SQLITE_NULL) {
      return InvalidArgument("warehouse " + wh.name + ": monitor query returned a non-numeric value");
    }
    rows.push_back(std::move(r));
    if (rows.size() > 100000)
      return ResourceExhausted("warehouse " + wh.name + ": monitor query returned over 100,000 rows");
  }
  if (rc != SQLITE_DONE)
    return InvalidArgument("warehouse " + wh.name + ": monitor query failed: " + sqlite3_errmsg(db.get()));
  return rows;
}

}  // namespace dw::metrics
