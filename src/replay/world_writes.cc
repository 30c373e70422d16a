#include "replay/world_writes.h"

#include <sqlite3.h>

#include <fstream>
#include <sstream>

namespace dw::replay {

Status RunWorldSql(const config::Workspace& ws, const SqlStep& step) {
  auto wh = ws.warehouses.find(step.warehouse);
  if (wh == ws.warehouses.end()) return InvalidArgument("no warehouse '" + step.warehouse + "' in the workspace");
  if (wh->second.type != "sqlite")
    return FailedPrecondition("warehouse '" + step.warehouse + "' is " + wh->second.type +
                              "; dw replay writes the world's rows into SQLite warehouses only today");
  std::string sql = step.sql_inline;
  std::string where = "sql_inline";
  if (!step.sql_file.empty()) {
    std::ifstream in(step.sql_file);
    if (!in) return InvalidArgument("cannot read " + step.sql_file.string());
    std::stringstream ss;
    ss << in.rdbuf();
    sql = ss.str();
    where = step.sql_file.string();
  }
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(wh->second.path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return Unavailable("cannot open warehouse '" + step.warehouse + "' at " + wh->second.path + ": " + msg);
  }
  sqlite3_busy_timeout(db, 5000);
  std::string all = "BEGIN;\n" + sql + "\n;COMMIT;";
  char* err = nullptr;
  rc = sqlite3_exec(db, all.c_str(), nullptr, nullptr, &err);
  Status st = Status::Ok();
  if (rc != SQLITE_OK) {
    st = InvalidArgument(where + " failed on warehouse '" + step.warehouse + "': " + (err ? err : "unknown error"));
    sqlite3_exec(db, "ROLLBACK;", nullptr, nullptr, nullptr);
  }
  sqlite3_free(err);
  sqlite3_close(db);
  return st;
}

}  // namespace dw::replay
