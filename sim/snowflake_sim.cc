// Snowflake's SQL API v2, as the product's client uses it:
//   POST /api/v2/statements[?requestId=&retry=true]  SubmitStatement: one SELECT with `?` bindings
//        -> 200 ResultSet (jsonv2), or 202 QueryStatus while "running" (script async_polls),
//           422 QueryFailureStatus for a statement Snowflake would refuse
//   GET  /api/v2/statements/{handle}[?partition=N]   the statement's status, then its partitions
//   POST /api/v2/statements/{handle}/cancel          CancelStatus (counted)
//   POST /_sim/exec {"sql", "user", "at"}            the world's own writes in a replay: run, and
//                                                    recorded in the history as that user's at `at`
//   GET  /_sim/state  {"jwts", "logins_refused", "api_calls", "statements", "retried_submissions",
//                      "retries_deduplicated", "exchanges" (the last 100 requests and answers),
//                      "cancelled", "query_tags", "last_bindings"}
// Every API call needs "Authorization: Bearer JWT" with "X-Snowflake-Authorization-Token-Type:
// KEYPAIR_JWT": an RS256 token whose issuer is ACCOUNT.USER.SHA256:<fingerprint of the user's
// registered public key>, subject ACCOUNT.USER, lifetime at most one hour, not expired, issued
// no later than a minute from now (401 {"code": "390144"} otherwise). A submission that repeats a
// requestId with retry=true answers the first run's result and runs nothing again.
// Tables are real: they live in an embedded SQLite database seeded from the script, each statement
// is translated (sim/snowflake_sql.h) and evaluated there, and cells go out as the SQL API encodes
// them (strings: NUMBER exact, DATE as days, TIMESTAMP_* as seconds with 9 decimals, TIMESTAMP_TZ
// with its offset + 1440). Partitions after the first are served uncompressed ({"data": [...]});
// the real service gzips them, which the client's HTTP layer decodes either way.
//
// Script: {"account", "database", "users": [{"name", "private_key": PATH | "public_key_pem"}],
// "async_polls"?: N (a statement answers 202 N times, the submission included),
// "partition_rows"?: rows per partition (0: one), "latency_ms"?: added to every API call,
// "denied_schemas"?: [..] (003001),
// "account_usage"?: false (the role cannot read SNOWFLAKE.ACCOUNT_USAGE), "history"?: [writes by
// others: {"query_id"?, "start_time", "user", "query_type", "query_text"?, "query_tag"?,
// "rows_inserted"?, "rows_updated"?, "rows_deleted"?, "bytes_written"?, "credits"? (attributed
// compute: the query is in QUERY_ATTRIBUTION_HISTORY), "objects_modified":
// ["SCHEMA.TABLE" or "DB.SCHEMA.TABLE", ...]}] (also POST /_sim/history {"history": [...]} at run
// time: a row that arrives late, as ACCESS_HISTORY's do),
// "tables": [{"schema", "table", "columns": [{"name", "type", "nullable"?}], "rows": [[cells]]}],
// "faults"?: [...] (sim_support.h)}. Column types: NUMBER(p,s), INTEGER, FLOAT, VARCHAR, TEXT,
// BOOLEAN, DATE, TIMESTAMP_NTZ, TIMESTAMP_LTZ, TIMESTAMP_TZ (cells as RFC 3339 text).
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "base/base64.h"
#include "base/civil_date.h"
#include "sim/bigquery_values.h"
#include "sim/jwt_verify.h"
#include "sim/sim_platforms.h"
#include "sim/snowflake_sql.h"
#include "sim/sql_text.h"

namespace dw::sim {
namespace {

using Pkey = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

void Answer(httplib::Response& res, int status, const Json& body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

// QueryFailureStatus (422) and the request-level {code, message} errors.
void Failure(httplib::Response& res, int status, const std::string& code, const std::string& state,
             const std::string& message, const std::string& handle) {
  Json body = {{"code", code}, {"message", message}};
  if (!state.empty()) body["sqlState"] = state;
  if (!handle.empty()) body["statementHandle"] = handle;
  Answer(res, status, body);
}

std::string Str(const Json& j, const char* key) {
  auto it = j.is_object() ? j.find(key) : j.end();
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Pkey ReadKey(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  Pkey key(PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr), EVP_PKEY_free);
  BIO_free(bio);
  if (key) return key;
  bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  key.reset(PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr));
  BIO_free(bio);
  return key;
}

// Snowflake's RSA_PUBLIC_KEY_FP, computed here independently of the client.
std::string Fingerprint(EVP_PKEY* key) {
  unsigned char* der = nullptr;
  const int n = i2d_PUBKEY(key, &der);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(der, static_cast<size_t>(n), digest, &len, EVP_sha256(), nullptr);
  OPENSSL_free(der);
  return "SHA256:" + Base64(std::string_view(reinterpret_cast<const char*>(digest), len));
}

// A column's Snowflake type and its SQLite declaration: the affinity keeps each value as the
// simulator stores it (TIMESTAMP_* as integer microseconds, DATE as text, NUMBER as a number) and
// sqlite3_column_decltype gives the Snowflake type back for rowType.
struct ColumnType {
  std::string type;  // rowType's: fixed, real, text, boolean, date, timestamp_ntz, ...
  int precision = 38, scale = 0;
};

ColumnType ParseColumnType(const std::string& declared) {
  std::string t = UpperText(declared);
  ColumnType c;
  int p = 38, s = 0;
  if (std::sscanf(t.c_str(), "NUMBER(%d,%d)", &p, &s) == 2 || std::sscanf(t.c_str(), "NUMBER(%d)", &p) == 1 ||
      t == "NUMBER" || t == "INTEGER" || t == "INT" || t == "BIGINT") {
    c.type = "fixed";
    c.precision = p;
    c.scale = s;
  } else if (t == "FLOAT" || t == "DOUBLE" || t == "REAL") {
    c.type = "real";
  } else if (t.rfind("VARCHAR", 0) == 0 || t == "TEXT" || t == "STRING") {
    c.type = "text";
  } else if (t == "BOOLEAN") {
    c.type = "boolean";
  } else if (t == "DATE") {
    c.type = "date";
  } else if (t == "TIMESTAMP_NTZ" || t == "TIMESTAMP_LTZ" || t == "TIMESTAMP_TZ") {
    c.type = t == "TIMESTAMP_NTZ" ? "timestamp_ntz" : t == "TIMESTAMP_LTZ" ? "timestamp_ltz" : "timestamp_tz";
  } else {
    throw std::invalid_argument("column type " + declared + " is outside the simulator's types");
  }
  return c;
}

std::string Declaration(const ColumnType& c) {
  if (c.type == "fixed") return "SF_FIXED_" + std::to_string(c.scale);
  if (c.type == "date") return "SF_DATE_TEXT";
  return "SF_" + UpperText(c.type);
}

std::optional<ColumnType> FromDeclaration(const char* declared) {
  if (declared == nullptr) return std::nullopt;
  std::string d = declared;
  if (d.rfind("SF_", 0) != 0) return std::nullopt;
  ColumnType c;
  if (d.rfind("SF_FIXED_", 0) == 0) {
    c.type = "fixed";
    c.scale = std::stoi(d.substr(9));
  } else if (d == "SF_DATE_TEXT") {
    c.type = "date";
  } else {
    c.type = d.substr(3);
    for (char& ch : c.type) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return c;
}

// The SQL API's "<seconds>.<9 digits>" of microseconds since the epoch.
std::string EpochSeconds(int64_t micros) {
  const bool negative = micros < 0;
  const uint64_t m = negative ? static_cast<uint64_t>(-(micros + 1)) + 1 : static_cast<uint64_t>(micros);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%llu.%06llu000", negative ? "-" : "", static_cast<unsigned long long>(m / 1000000),
                static_cast<unsigned long long>(m % 1000000));
  return buf;
}

struct Statement {
  std::string handle;
  Json row_type;
  std::vector<Json> rows;  // each an array of strings or nulls
  int running_left = 0;
  bool cancelled = false;
};

class SnowflakeSim : public std::enable_shared_from_this<SnowflakeSim> {
 public:
  explicit SnowflakeSim(const Json& script) {
    account_ = UpperText(script.at("account").get<std::string>());
    catalog_.database = script.at("database").get<std::string>();
    async_polls_ = script.value("async_polls", 0);
    latency_ms_ = script.value("latency_ms", 0);
    partition_rows_ = script.value("partition_rows", 0);
    for (const Json& d : script.value("denied_schemas", Json::array())) catalog_.denied_schemas.insert(d.get<std::string>());
    for (const Json& u : script.at("users")) AddUser(u);
    if (sqlite3_open(":memory:", &db_) != SQLITE_OK) throw std::runtime_error("cannot open SQLite in memory");
    RegisterBigQueryFunctions(db_);
    sqlite3_create_function(db_, "sf_convert_timezone", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr, ConvertTimezone,
                            nullptr, nullptr);
    Exec("CREATE TABLE \"INFORMATION_SCHEMA.TABLES\" (TABLE_CATALOG SF_TEXT, TABLE_SCHEMA SF_TEXT, TABLE_NAME SF_TEXT, "
         "TABLE_TYPE SF_TEXT)");
    Exec("CREATE TABLE \"INFORMATION_SCHEMA.COLUMNS\" (TABLE_CATALOG SF_TEXT, TABLE_SCHEMA SF_TEXT, TABLE_NAME SF_TEXT, "
         "COLUMN_NAME SF_TEXT, ORDINAL_POSITION SF_FIXED_0, IS_NULLABLE SF_TEXT, DATA_TYPE SF_TEXT)");
    catalog_.schemas.insert("INFORMATION_SCHEMA");
    catalog_.account_usage = script.value("account_usage", true);
    Exec("CREATE TABLE \"ACCOUNT_USAGE.QUERY_HISTORY\" (QUERY_ID SF_TEXT, QUERY_TEXT SF_TEXT, QUERY_TYPE SF_TEXT, "
         "USER_NAME SF_TEXT, ROLE_NAME SF_TEXT, WAREHOUSE_NAME SF_TEXT, QUERY_TAG SF_TEXT, EXECUTION_STATUS SF_TEXT, "
         "START_TIME SF_TIMESTAMP_LTZ, END_TIME SF_TIMESTAMP_LTZ, ROWS_INSERTED SF_FIXED_0, ROWS_UPDATED SF_FIXED_0, "
         "ROWS_DELETED SF_FIXED_0, BYTES_WRITTEN SF_FIXED_0)");
    Exec("CREATE TABLE \"ACCOUNT_USAGE.QUERY_ATTRIBUTION_HISTORY\" (QUERY_ID SF_TEXT, WAREHOUSE_NAME SF_TEXT, "
         "QUERY_TAG SF_TEXT, USER_NAME SF_TEXT, START_TIME SF_TIMESTAMP_LTZ, END_TIME SF_TIMESTAMP_LTZ, "
         "CREDITS_ATTRIBUTED_COMPUTE SF_FIXED_9)");
    Exec("CREATE TABLE \"ACCOUNT_USAGE.ACCESS_HISTORY\" (QUERY_ID SF_TEXT, QUERY_START_TIME SF_TIMESTAMP_LTZ, "
         "USER_NAME SF_TEXT, DIRECT_OBJECTS_ACCESSED SF_ARRAY, BASE_OBJECTS_ACCESSED SF_ARRAY, OBJECTS_MODIFIED SF_ARRAY)");
    for (const Json& t : script.value("tables", Json::array())) AddTable(t);
    for (const Json& h : script.value("history", Json::array())) AddHistory(h);
  }
  ~SnowflakeSim() { sqlite3_close(db_); }

  void Install(httplib::Server& server) {
    std::shared_ptr<SnowflakeSim> self = shared_from_this();
    server.Post("/api/v2/statements", [this, self](const httplib::Request& req, httplib::Response& res) {
      if (Authorized(req, res)) Submit(req, res);
      Log(req, res);
    });
    server.Get(R"(/api/v2/statements/([^/]+))", [this, self](const httplib::Request& req, httplib::Response& res) {
      if (Authorized(req, res)) StatementStatus(req.matches[1], req, res);
      Log(req, res);
    });
    server.Post(R"(/api/v2/statements/([^/]+)/cancel)", [this, self](const httplib::Request& req, httplib::Response& res) {
      if (Authorized(req, res)) Cancel(req.matches[1], res);
      Log(req, res);
    });
    server.Post("/_sim/history", [this, self](const httplib::Request& req, httplib::Response& res) {
      Json body = Json::parse(req.body, nullptr, false);
      std::lock_guard<std::mutex> lock(mu_);
      try {
        for (const Json& h : body.at("history")) AddHistory(h);
      } catch (const std::exception& e) {
        return Failure(res, 400, "390142", "", std::string("history: ") + e.what(), "");
      }
      Answer(res, 200, {{"added", body["history"].size()}});
    });
    server.Post("/_sim/exec", [this, self](const httplib::Request& req, httplib::Response& res) { WorldWrite(req, res); });
    server.Get("/_sim/state", [this, self](const httplib::Request&, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      Answer(res, 200, {{"jwts", jwts_.size()}, {"logins_refused", refused_}, {"api_calls", api_calls_},
                        {"statements", executed_}, {"retried_submissions", retried_}, {"retries_deduplicated", deduplicated_}, {"cancelled", cancelled_},
                        {"query_tags", query_tags_}, {"last_bindings", last_bindings_}, {"exchanges", exchanges_}});
    });
  }

 private:
  static void ConvertTimezone(sqlite3_context* ctx, int, sqlite3_value** argv) {
    const char* zone = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
    if (zone == nullptr || !IEquals(zone, "UTC"))
      return sqlite3_result_error(ctx, "the simulator's CONVERT_TIMEZONE converts to 'UTC' only", -1);
    sqlite3_result_value(ctx, argv[1]);  // an instant is stored in UTC already
  }

  void Exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string m = err == nullptr ? "?" : err;
      sqlite3_free(err);
      throw std::invalid_argument("seeding: " + m);
    }
  }

  void AddUser(const Json& u) {
    const std::string name = UpperText(u.at("name").get<std::string>());
    std::string pem = u.value("public_key_pem", std::string());
    if (pem.empty() && u.contains("private_key")) {
      std::ifstream in(u["private_key"].get<std::string>());
      std::stringstream ss;
      ss << in.rdbuf();
      pem = ss.str();
    }
    Pkey key = ReadKey(pem);
    if (!key) throw std::invalid_argument("user " + name + ": the key is not an RSA key in PEM form");
    fingerprints_[name] = Fingerprint(key.get());
    keys_.emplace(name, std::move(key));
  }

  void AddTable(const Json& t) {
    const std::string schema = t.at("schema").get<std::string>(), table = t.at("table").get<std::string>();
    catalog_.schemas.insert(schema);
    catalog_.tables.insert({schema, table});
    std::vector<ColumnType> types;
    std::string ddl;
    int position = 0;
    for (const Json& c : t.at("columns")) {
      const std::string name = c.at("name").get<std::string>(), declared = c.at("type").get<std::string>();
      types.push_back(ParseColumnType(declared));
      ddl += (ddl.empty() ? "" : ", ") + DoubleQuoted(name) + " " + Declaration(types.back());
      // INFORMATION_SCHEMA.COLUMNS.DATA_TYPE as Snowflake shows it.
      std::string shown = types.back().type == "fixed" ? "NUMBER" : types.back().type == "real" ? "FLOAT" : UpperText(types.back().type);
      Insert("INSERT INTO \"INFORMATION_SCHEMA.COLUMNS\" VALUES (?, ?, ?, ?, ?, ?, ?)",
             {catalog_.database, schema, table, name, std::to_string(++position), c.value("nullable", true) ? "YES" : "NO", shown});
    }
    Insert("INSERT INTO \"INFORMATION_SCHEMA.TABLES\" VALUES (?, ?, ?, 'BASE TABLE')", {catalog_.database, schema, table});
    Exec("CREATE TABLE " + SnowflakeSqliteTable(schema, table) + " (" + ddl + ")");
    std::string marks;
    for (size_t i = 0; i < types.size(); ++i) marks += i ? ", ?" : "?";
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db_, ("INSERT INTO " + SnowflakeSqliteTable(schema, table) + " VALUES (" + marks + ")").c_str(), -1, &stmt, nullptr);
    std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> owned(stmt, sqlite3_finalize);
    for (const Json& row : t.value("rows", Json::array())) {
      if (!row.is_array() || row.size() != types.size())
        throw std::invalid_argument("table " + schema + "." + table + ": a row needs " + std::to_string(types.size()) + " cells");
      sqlite3_reset(stmt);
      for (size_t i = 0; i < types.size(); ++i) BindSeed(stmt, static_cast<int>(i + 1), types[i], row[i]);
      if (sqlite3_step(stmt) != SQLITE_DONE) throw std::invalid_argument(sqlite3_errmsg(db_));
    }
  }

  void Insert(const std::string& sql, const std::vector<std::string>& values) {
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr);
    for (size_t i = 0; i < values.size(); ++i) sqlite3_bind_text(stmt, static_cast<int>(i + 1), values[i].c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_step(stmt);
    sqlite3_finalize(stmt);
  }

  void BindSeed(sqlite3_stmt* stmt, int i, const ColumnType& type, const Json& v) {
    if (v.is_null()) {
      sqlite3_bind_null(stmt, i);
    } else if (type.type.rfind("timestamp", 0) == 0) {
      std::optional<int64_t> micros = v.is_string() ? ParseTimeText(v.get<std::string>()) : std::nullopt;
      if (!micros) throw std::invalid_argument("bad TIMESTAMP seed " + v.dump());
      sqlite3_bind_int64(stmt, i, *micros);
    } else if (v.is_boolean()) {
      sqlite3_bind_int64(stmt, i, v.get<bool>() ? 1 : 0);
    } else if (v.is_number_integer()) {
      sqlite3_bind_int64(stmt, i, v.get<int64_t>());
    } else if (v.is_number()) {
      sqlite3_bind_double(stmt, i, v.get<double>());
    } else {
      sqlite3_bind_text(stmt, i, v.get<std::string>().c_str(), -1, SQLITE_TRANSIENT);
    }
  }

  // One write by someone else, in QUERY_HISTORY and ACCESS_HISTORY as Snowflake records it.
  void AddHistory(const Json& h) {
    const std::string id = h.value("query_id", NewHandle());
    std::optional<int64_t> start = ParseTimeText(h.at("start_time").get<std::string>());
    if (!start) throw std::invalid_argument("history: bad start_time " + h["start_time"].dump());
    Json modified = Json::array();
    int64_t object_id = 1000;
    for (const Json& name : h.value("objects_modified", Json::array())) {
      std::string full = name.get<std::string>();
      if (std::count(full.begin(), full.end(), '.') == 1) full = catalog_.database + "." + full;
      modified.push_back({{"objectDomain", "Table"}, {"objectName", full}, {"objectId", ++object_id}, {"columns", Json::array()}});
    }
    RecordStatement(id, h.value("query_text", std::string()), h.at("query_type").get<std::string>(),
                    h.at("user").get<std::string>(), h.value("query_tag", std::string()), *start, h, modified);
    // A query that ran long enough to be attributed (QUERY_ATTRIBUTION_HISTORY leaves out ~100 ms ones).
    if (h.contains("credits")) {
      sqlite3_stmt* stmt = nullptr;
      sqlite3_prepare_v2(db_, "INSERT INTO \"ACCOUNT_USAGE.QUERY_ATTRIBUTION_HISTORY\" VALUES (?, 'TRANSFORM_WH', ?, ?, ?, ?, ?)",
                         -1, &stmt, nullptr);
      std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> owned(stmt, sqlite3_finalize);
      const std::string tag = h.value("query_tag", std::string()), user = h.at("user").get<std::string>();
      sqlite3_bind_text(stmt, 1, id.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(stmt, 2, tag.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(stmt, 3, user.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64(stmt, 4, *start);
      sqlite3_bind_int64(stmt, 5, *start + 1000000);
      sqlite3_bind_double(stmt, 6, h["credits"].get<double>());
      if (sqlite3_step(stmt) != SQLITE_DONE) throw std::invalid_argument(sqlite3_errmsg(db_));
    }
  }

  // REQUIRES: mu_ held (or the constructor). Both views' rows of one statement.
  void RecordStatement(const std::string& id, const std::string& text, const std::string& type, const std::string& user,
                       const std::string& tag, int64_t start_micros, const Json& counts, const Json& modified) {
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db_, "INSERT INTO \"ACCOUNT_USAGE.QUERY_HISTORY\" VALUES (?, ?, ?, ?, 'DW_READER', 'CHECKS_XS', ?, "
                            "'SUCCESS', ?, ?, ?, ?, ?, ?)", -1, &stmt, nullptr);
    std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> owned(stmt, sqlite3_finalize);
    sqlite3_bind_text(stmt, 1, id.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(stmt, 2, text.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(stmt, 3, type.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(stmt, 4, user.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(stmt, 5, tag.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(stmt, 6, start_micros);
    sqlite3_bind_int64(stmt, 7, start_micros + 1000);
    int i = 8;
    for (const char* key : {"rows_inserted", "rows_updated", "rows_deleted", "bytes_written"}) {
      if (counts.contains(key) && counts[key].is_number_integer()) sqlite3_bind_int64(stmt, i, counts[key].get<int64_t>());
      else sqlite3_bind_int64(stmt, i, 0);
      ++i;
    }
    if (sqlite3_step(stmt) != SQLITE_DONE) throw std::invalid_argument(sqlite3_errmsg(db_));
    sqlite3_stmt* access = nullptr;
    sqlite3_prepare_v2(db_, "INSERT INTO \"ACCOUNT_USAGE.ACCESS_HISTORY\" VALUES (?, ?, ?, '[]', '[]', ?)", -1, &access, nullptr);
    std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> owned_access(access, sqlite3_finalize);
    const std::string objects = modified.dump();
    sqlite3_bind_text(access, 1, id.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(access, 2, start_micros);
    sqlite3_bind_text(access, 3, user.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(access, 4, objects.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(access) != SQLITE_DONE) throw std::invalid_argument(sqlite3_errmsg(db_));
  }

  // POST /_sim/exec {"sql", "user", "at"}: the world's own writes in a replay (never the API's):
  // each INSERT, UPDATE or DELETE runs on the tables and is recorded in QUERY_HISTORY and
  // ACCESS_HISTORY as `user`'s statement started at `at`, with the rows it changed.
  void WorldWrite(const httplib::Request& req, httplib::Response& res) {
    Json body = Json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("sql") || !body["sql"].is_string())
      return Failure(res, 400, "390142", "", "exec needs {\"sql\", \"user\", \"at\"}", "");
    std::optional<int64_t> at = ParseTimeText(Str(body, "at"));
    if (!at) return Failure(res, 400, "390142", "", "exec: 'at' is not an RFC 3339 time", "");
    const std::string user = UpperText(Str(body, "user").empty() ? "WORLD" : Str(body, "user"));
    std::lock_guard<std::mutex> lock(mu_);
    Json done = Json::array();
    for (const std::string& statement : SplitSqlStatements(body["sql"].get<std::string>())) {
      SnowflakeTranslation t = TranslateSnowflakeSql(statement, catalog_, /*allow_writes=*/true);
      if (!t.ok) return Failure(res, 422, t.code, t.sql_state, t.message + "\nin: " + statement, "");
      char* err = nullptr;
      if (sqlite3_exec(db_, t.sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string m = err == nullptr ? "?" : err;
        sqlite3_free(err);
        return Failure(res, 422, "100038", "22018", m + "\nin: " + statement, "");
      }
      const int64_t changed = sqlite3_changes(db_);
      Json counts = Json::object();
      Json modified = Json::array();
      if (t.statement != "SELECT" && t.statement != "WITH") {
        counts[t.statement == "INSERT" ? "rows_inserted" : t.statement == "UPDATE" ? "rows_updated" : "rows_deleted"] = changed;
        modified.push_back({{"objectDomain", "Table"},
                            {"objectName", catalog_.database + "." + t.first_table.first + "." + t.first_table.second},
                            {"objectId", 5000 + executed_}, {"columns", Json::array()}});
      }
      RecordStatement(NewHandle(), statement, t.statement, user, "", *at, counts, modified);
      done.push_back({{"statement", t.statement}, {"rows", changed}});
    }
    Answer(res, 200, {{"ran", done}});
  }

  // The last 100 API exchanges as sent and answered (requests and responses as JSON), for tests
  // that check them against the SQL API's published description (tests/node/warehouse_clients.mjs).
  void Log(const httplib::Request& req, const httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    Json query = Json::object();
    for (const auto& [k, v] : req.params) query[k] = v;
    auto json = [](const std::string& text) {
      Json j = Json::parse(text, nullptr, false);
      return j.is_discarded() ? Json(text) : j;  // kept as text: a body that is not JSON is a finding
    };
    exchanges_.push_back({{"method", req.method}, {"path", req.path}, {"query", query},
                          {"token_type", req.get_header_value("X-Snowflake-Authorization-Token-Type")},
                          {"request", req.body.empty() ? Json() : json(req.body)},
                          {"status", res.status}, {"response", res.body.empty() ? Json() : json(res.body)}});
    if (exchanges_.size() > 100) exchanges_.erase(exchanges_.begin());
  }

  // ---- key-pair login ----

  bool Authorized(const httplib::Request& req, httplib::Response& res) {
    // The network and the service's own time, added to every API call (script "latency_ms").
    if (latency_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(latency_ms_));
    const std::string auth = req.get_header_value("Authorization");
    std::lock_guard<std::mutex> lock(mu_);
    ++api_calls_;
    auto refuse = [&](const std::string& detail) {
      ++refused_;
      // The body names no detail (Snowflake's neither: SYSTEM$GET_LOGIN_FAILURE_DETAILS does);
      // the simulator adds it after the reference id so that a test can tell the causes apart.
      Failure(res, 401, "390144", "08001", "JWT token is invalid. [" + RandomHex(16) + "] (" + detail + ")", "");
      return false;
    };
    if (req.get_header_value("X-Snowflake-Authorization-Token-Type") != "KEYPAIR_JWT") return refuse("token type is not KEYPAIR_JWT");
    if (auth.rfind("Bearer ", 0) != 0) return refuse("no bearer token");
    const std::string jwt = auth.substr(7);
    // The issuer names the user and the key: the signature is checked with that user's key.
    Json unverified_claims;
    {
      const size_t dot1 = jwt.find('.'), dot2 = dot1 == std::string::npos ? dot1 : jwt.find('.', dot1 + 1);
      if (dot2 == std::string::npos) return refuse("malformed");
      auto text = DecodeBase64(std::string_view(jwt).substr(dot1 + 1, dot2 - dot1 - 1));
      unverified_claims = text ? Json::parse(*text, nullptr, false) : Json();
    }
    const std::string iss = Str(unverified_claims, "iss"), sub = Str(unverified_claims, "sub");
    const size_t fp = iss.find(".SHA256:");
    if (fp == std::string::npos) return refuse("issuer without a public key fingerprint");
    const std::string subject = iss.substr(0, fp);
    const size_t dot = subject.find('.');
    const std::string account = dot == std::string::npos ? "" : subject.substr(0, dot);
    const std::string user = dot == std::string::npos ? "" : subject.substr(dot + 1);
    if (account != account_) return refuse("account mismatch");
    auto key = keys_.find(user);
    if (key == keys_.end()) return refuse("invalid user in issuer");
    if (iss.substr(fp + 1) != fingerprints_[user]) return refuse("public key fingerprint mismatch");
    if (sub != subject) return refuse("subject is not ACCOUNT.USER");
    std::string why;
    std::optional<Json> claims = VerifyRs256Jwt(jwt, key->second.get(), &why);
    if (!claims) return refuse(why == "signature" ? "invalid signature" : why);
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    const int64_t iat = IntClaim(*claims, "iat"), exp = IntClaim(*claims, "exp");
    if (iat < 0 || exp < 0) return refuse("missing issue or expiration time");
    if (iat > now + 60) return refuse("invalid issue time");
    if (exp <= now || now > iat + 3600) return refuse("expired");
    jwts_.insert(jwt.substr(jwt.rfind('.') + 1));
    login_user_ = user;
    return true;
  }

  std::string RandomHex(int bytes) { return RandomHexOf(rng_, bytes); }

  std::string NewHandle() {
    const std::string h = RandomHex(16);
    return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" + h.substr(20);
  }

  // ---- statements ----

  // Binds the request's bindings ({"1": {"type", "value"}}) to the statement's `?`s.
  bool Bind(sqlite3_stmt* stmt, const Json& bindings, const std::string& handle, httplib::Response& res) {
    const int n = sqlite3_bind_parameter_count(stmt);
    if (!bindings.is_null() && !bindings.is_object()) {
      Failure(res, 400, "390142", "", "Incoming request does not contain a valid payload.", "");
      return false;
    }
    for (int i = 1; i <= n; ++i) {
      const std::string key = std::to_string(i);
      if (bindings.is_null() || !bindings.contains(key)) {
        Failure(res, 422, "002049", "42601", "SQL compilation error: error line 1 at position 0\nBind variable ? not set.", handle);
        return false;
      }
      const Json& b = bindings[key];
      const std::string type = Str(b, "type");
      if (!b.is_object() || type.empty() || !b.contains("value") || (!b["value"].is_string() && !b["value"].is_null())) {
        Failure(res, 400, "390142", "", "Incoming request does not contain a valid payload.", "");
        return false;
      }
      if (b["value"].is_null()) {
        sqlite3_bind_null(stmt, i);
        continue;
      }
      const std::string v = b["value"].get<std::string>();
      auto unrecognized = [&] {
        Failure(res, 422, "100037", "22018", type + " value '" + v + "' is not recognized", handle);
        return false;
      };
      if (type == "FIXED") {
        char* end = nullptr;
        long long x = std::strtoll(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0') return unrecognized();
        sqlite3_bind_int64(stmt, i, x);
      } else if (type == "REAL") {
        char* end = nullptr;
        double x = std::strtod(v.c_str(), &end);
        if (v.empty() || *end != '\0') return unrecognized();
        sqlite3_bind_double(stmt, i, x);
      } else if (type == "TEXT") {
        sqlite3_bind_text(stmt, i, v.c_str(), -1, SQLITE_TRANSIENT);
      } else if (type == "BOOLEAN") {
        if (v != "true" && v != "false") return unrecognized();
        sqlite3_bind_int64(stmt, i, v == "true" ? 1 : 0);
      } else {
        Failure(res, 422, "100037", "22018", "binding type " + type + " is outside the simulator's subset", handle);
        return false;
      }
    }
    return true;
  }

  // The SQL API's string for one stored value of type `t`.
  static Json Encode(int storage, const std::string& text, double real, const ColumnType& t) {
    if (storage == SQLITE_NULL) return nullptr;
    if (t.type == "boolean") return text != "0" ? "true" : "false";
    if (t.type.rfind("timestamp", 0) == 0 && storage == SQLITE_INTEGER) {
      const std::string s = EpochSeconds(std::stoll(text));
      return t.type == "timestamp_tz" ? s + " 1440" : s;
    }
    if (t.type == "date") {
      std::optional<int64_t> micros = ParseTimeText(text);
      if (!micros) return text;
      const int64_t day = 86400000000LL;
      return std::to_string(*micros >= 0 ? *micros / day : -((-*micros + day - 1) / day));
    }
    if (t.type == "fixed" && storage == SQLITE_FLOAT) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.*f", t.scale, real);
      return buf;
    }
    if (t.type == "real" && storage == SQLITE_FLOAT) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", real);
      return buf;
    }
    return text;
  }

  void Submit(const httplib::Request& req, httplib::Response& res) {
    Json body = Json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("statement") || !body["statement"].is_string())
      return Failure(res, 400, "390142", "", "Incoming request does not contain a valid payload.", "");
    const std::string request_id = req.get_param_value("requestId");
    std::lock_guard<std::mutex> lock(mu_);
    if (!request_id.empty() && req.get_param_value("retry") == "true") {
      ++retried_;
      auto seen = by_request_.find(request_id);
      if (seen != by_request_.end() && statements_.count(seen->second)) {
        ++deduplicated_;
        return Respond(statements_[seen->second], 0, res);
      }
    }
    if (!Str(body, "database").empty() && Str(body, "database") != catalog_.database)
      return Failure(res, 422, "002043", "02000", "SQL compilation error:\nObject does not exist, or operation cannot be performed.", "");
    const std::string handle = NewHandle();
    if (!request_id.empty()) by_request_[request_id] = handle;
    const Json params = body.contains("parameters") ? body["parameters"] : Json::object();
    query_tags_.push_back(params.is_object() ? Str(params, "query_tag") : "");
    last_bindings_ = body.contains("bindings") ? body["bindings"] : Json();
    ++executed_;
    // Recorded before it runs: a history query sees itself, as on Snowflake (an empty write).
    RecordStatement(handle, body["statement"].get<std::string>(), "SELECT", login_user_, query_tags_.back().get<std::string>(),
                    std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count(),
                    Json::object(), Json::array());
    SnowflakeTranslation t = TranslateSnowflakeSql(body["statement"].get<std::string>(), catalog_);
    if (!t.ok) return Failure(res, 422, t.code, t.sql_state, t.message, handle);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, t.sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
      return Failure(res, 422, "001003", "42000", std::string("SQL compilation error:\n") + sqlite3_errmsg(db_), handle);
    std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> owned(stmt, sqlite3_finalize);
    if (!sqlite3_stmt_readonly(stmt)) return Failure(res, 422, "000002", "0A000", "the simulator runs queries only", handle);
    if (!Bind(stmt, body.contains("bindings") ? body["bindings"] : Json(), handle, res)) return;
    const int columns = sqlite3_column_count(stmt);
    struct Cell {
      int storage;
      std::string text;
      double real;
    };
    std::vector<std::vector<Cell>> raw;
    std::vector<int> first_class(static_cast<size_t>(columns), SQLITE_NULL);
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      std::vector<Cell> row;
      for (int c = 0; c < columns; ++c) {
        const int k = sqlite3_column_type(stmt, c);
        if (first_class[static_cast<size_t>(c)] == SQLITE_NULL) first_class[static_cast<size_t>(c)] = k;
        const char* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
        row.push_back({k, text == nullptr ? "" : text, sqlite3_column_double(stmt, c)});
      }
      raw.push_back(std::move(row));
    }
    if (rc != SQLITE_DONE) return Failure(res, 422, "100038", "22018", sqlite3_errmsg(db_), handle);
    Statement s;
    s.handle = handle;
    s.row_type = Json::array();
    std::vector<ColumnType> types;
    for (int c = 0; c < columns; ++c) {
      // A table column's declared type; a computed one's from its values (an aggregate's number).
      std::optional<ColumnType> declared = FromDeclaration(sqlite3_column_decltype(stmt, c));
      ColumnType type = declared ? *declared : ColumnType{};
      if (!declared) type.type = first_class[static_cast<size_t>(c)] == SQLITE_FLOAT ? "real"
                                 : first_class[static_cast<size_t>(c)] == SQLITE_TEXT ? "text" : "fixed";
      types.push_back(type);
      const char* name = sqlite3_column_name(stmt, c);
      s.row_type.push_back({{"name", UpperText(name == nullptr ? "" : name)}, {"database", ""}, {"schema", ""}, {"table", ""},
                            {"type", type.type}, {"scale", type.type == "fixed" ? Json(type.scale) : Json()},
                            {"precision", type.type == "fixed" ? Json(type.precision) : Json()}, {"length", nullptr},
                            {"byteLength", nullptr}, {"nullable", true}, {"collation", nullptr}});
    }
    for (const auto& row : raw) {
      Json cells = Json::array();
      for (int c = 0; c < columns; ++c) {
        const Cell& cell = row[static_cast<size_t>(c)];
        cells.push_back(Encode(cell.storage, cell.text, cell.real, types[static_cast<size_t>(c)]));
      }
      s.rows.push_back(std::move(cells));
    }
    s.running_left = async_polls_;
    Statement& stored = statements_[handle] = std::move(s);
    Respond(stored, 0, res);
  }

  size_t PartitionCount(const Statement& s) const {
    if (partition_rows_ <= 0 || s.rows.empty()) return 1;
    return (s.rows.size() + static_cast<size_t>(partition_rows_) - 1) / static_cast<size_t>(partition_rows_);
  }

  // REQUIRES: mu_ held. 202 while the statement "runs"; then the ResultSet with partition 0, or
  // (partition > 0) that partition's data alone.
  void Respond(Statement& s, size_t partition, httplib::Response& res) {
    const std::string status_url = "/api/v2/statements/" + s.handle;
    if (s.cancelled)
      return Failure(res, 422, "000604", "57014", "SQL execution canceled", s.handle);
    if (s.running_left > 0) {
      --s.running_left;
      return Answer(res, 202, {{"code", "333334"},
                               {"message", "Asynchronous execution in progress. Use provided query id to perform query "
                                           "monitoring and management."},
                               {"statementHandle", s.handle}, {"statementStatusUrl", status_url}});
    }
    const size_t per = partition_rows_ > 0 ? static_cast<size_t>(partition_rows_) : std::max<size_t>(s.rows.size(), 1);
    const size_t count = PartitionCount(s);
    if (partition >= count)
      return Failure(res, 422, "000709", "02000", "Statement " + s.handle + " partition " + std::to_string(partition) + " not found", s.handle);
    const size_t from = partition * per, to = std::min(s.rows.size(), from + per);
    Json data = Json(std::vector<Json>(s.rows.begin() + static_cast<long>(std::min(from, s.rows.size())),
                                       s.rows.begin() + static_cast<long>(to)));
    if (partition > 0) return Answer(res, 200, {{"data", data}});
    Json info = Json::array();
    for (size_t p = 0; p < count; ++p) {
      const size_t rows = std::min(s.rows.size(), (p + 1) * per) - std::min(s.rows.size(), p * per);
      info.push_back({{"rowCount", rows}, {"uncompressedSize", 64 * rows + 16}});
    }
    Answer(res, 200, {{"resultSetMetaData", {{"numRows", s.rows.size()}, {"format", "jsonv2"}, {"rowType", s.row_type},
                                             {"partitionInfo", info}}},
                      {"data", data},
                      {"code", "090001"},
                      {"sqlState", "00000"},
                      {"message", "Statement executed successfully."},
                      {"statementHandle", s.handle},
                      {"statementStatusUrl", status_url + "?partition=0"},
                      {"createdOn", std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch()).count()}});
  }

  void StatementStatus(const std::string& handle, const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = statements_.find(handle);
    if (it == statements_.end()) return Failure(res, 422, "000709", "02000", "Statement " + handle + " not found", handle);
    size_t partition = 0;
    if (req.has_param("partition")) {
      const std::string p = req.get_param_value("partition");
      char* end = nullptr;
      long n = std::strtol(p.c_str(), &end, 10);
      if (p.empty() || *end != '\0' || n < 0)
        return Failure(res, 400, "390142", "", "Incoming request does not contain a valid payload.", "");
      partition = static_cast<size_t>(n);
    }
    Respond(it->second, partition, res);
  }

  void Cancel(const std::string& handle, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = statements_.find(handle);
    if (it == statements_.end() || it->second.running_left == 0)
      return Failure(res, 422, "000709", "02000", "Statement " + handle + " not found", handle);
    it->second.cancelled = true;
    ++cancelled_;
    Answer(res, 200, {{"code", "000604"}, {"sqlState", "57014"}, {"message", "SQL execution canceled"},
                      {"statementHandle", handle}, {"statementStatusUrl", "/api/v2/statements/" + handle}});
  }

  std::string account_;
  std::string login_user_;  // the user of the last accepted token (one user per simulator in practice)
  SnowflakeCatalog catalog_;
  int async_polls_ = 0, partition_rows_ = 0, latency_ms_ = 0;
  std::map<std::string, Pkey> keys_;
  std::map<std::string, std::string> fingerprints_;
  sqlite3* db_ = nullptr;
  std::mutex mu_;
  std::mt19937_64 rng_{std::random_device{}()};
  std::map<std::string, Statement> statements_;
  std::map<std::string, std::string> by_request_;
  std::set<std::string> jwts_;
  Json query_tags_ = Json::array();
  std::vector<Json> exchanges_;
  Json last_bindings_;
  int64_t refused_ = 0, api_calls_ = 0, executed_ = 0, retried_ = 0, deduplicated_ = 0, cancelled_ = 0;
};

}  // namespace

void InstallSnowflake(const Json& script, httplib::Server& server, std::shared_ptr<SimClock>) {
  std::make_shared<SnowflakeSim>(script)->Install(server);
}

}  // namespace dw::sim
