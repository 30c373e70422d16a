#include "replay/world_writes.h"

#include <sqlite3.h>

#include <fstream>
#include <sstream>

#include "base/json.h"

namespace dw::replay {

namespace {

// The world's statements on a simulated Snowflake or BigQuery: dw-sim runs them and records them
// in the account's history (the project's INFORMATION_SCHEMA.JOBS), as the warehouse itself would.
Status RunOnSimulatedWarehouse(const config::WarehouseConfig& wh, const std::string& sql, const std::string& where,
                               const std::string& user, TimePoint at, net::HttpClient& http) {
  net::HttpRequest req;
  req.method = "POST";
  req.url = wh.api_url + "/_sim/exec";
  req.headers = {{"Content-Type", "application/json"}};
  req.body = Json{{"sql", sql}, {"user", user}, {"at", FormatRfc3339(at)}}.dump();
  req.timeout = std::chrono::seconds(30);
  Result<net::HttpResponse> res = http.Send(req);
  if (!res.ok()) return Unavailable("warehouse '" + wh.name + "': its simulator could not be reached: " + res.status().message());
  if (res->status != 200) {
    Json body = Json::parse(res->body, nullptr, false);
    // Snowflake's {"message"} or Google's {"error": {"message"}}.
    const Json* where_message = body.is_object() && body.contains("error") && body["error"].is_object() ? &body["error"] : &body;
    std::string message = where_message->is_object() && where_message->contains("message") && (*where_message)["message"].is_string()
                              ? (*where_message)["message"].get<std::string>()
                              : res->body;
    return InvalidArgument(where + " failed on warehouse '" + wh.name + "': " + message);
  }
  return Status::Ok();
}

}  // namespace

Status RunWorldSql(const config::Workspace& ws, const SqlStep& step, TimePoint at, net::HttpClient& http) {
  auto wh = ws.warehouses.find(step.warehouse);
  if (wh == ws.warehouses.end()) return InvalidArgument("no warehouse '" + step.warehouse + "' in the workspace");
  if (wh->second.type != "sqlite" && wh->second.type != "snowflake" && wh->second.type != "bigquery")
    return FailedPrecondition("warehouse '" + step.warehouse + "' is " + wh->second.type +
                              "; dw replay writes the world's rows into SQLite and simulated Snowflake and BigQuery "
                              "warehouses only");
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
  if (wh->second.type != "sqlite") return RunOnSimulatedWarehouse(wh->second, sql, where, step.user, at, http);
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
