// BigQuery's REST API and Google's OAuth token endpoint, as the product's client uses them:
//   POST /token                                     service-account JWT grant (RS256 verified
//        against the key file's public key; iss, aud, scope, iat/exp checked) -> access_token,
//        expires_in, token_type; refused as {"error": "invalid_grant", "error_description"}
//   POST /bigquery/v2/projects/{p}/queries          jobs.query (GoogleSQL, NAMED parameters)
//   GET  /bigquery/v2/projects/{p}/queries/{job}    jobs.getQueryResults (location, pageToken)
//   POST /bigquery/v2/projects/{p}/jobs/{job}/cancel jobs.cancel (counted)
//   GET  /_sim/state                                {"token_grants", "api_calls", "jobs", "queries", "cancelled",
//                                                    "last_labels", "jobs_log": the last 100 queries
//                                                    with their parameters, schema and rows}
//   POST /_sim/expire_tokens                        every token issued so far expires now
//   POST /_sim/exec {"sql", "user", "at"}           the world's own writes in a replay (INSERT,
//                                                    UPDATE, DELETE in GoogleSQL): run, and recorded
//                                                    in INFORMATION_SCHEMA.JOBS as `user`'s job
//                                                    created at `at`, with its destination_table and
//                                                    dml_statistics
// Every API call needs "Authorization: Bearer TOKEN" of a token the endpoint issued and that has
// not expired (401 in Google's error shape otherwise). Tables are real: they live in an embedded
// SQLite database seeded from the script, and each statement is translated (sim/bigquery_sql.h)
// and evaluated there (values and functions: sim/bigquery_values.h); cells go out as BigQuery
// encodes them (INT64 as strings, TIMESTAMP as float seconds in scientific notation, NUMERIC as
// exact text).
//
// Script: {"project", "location"?: "US", "credentials": PATH of the service-account key file
// whose public key verifies grants (or "public_key_pem"), "token_ttl_s"?: 3600,
// "page_size"?: rows per page (0: all), "latency_ms"?: added to every API call, "incomplete_polls"?: N (a job answers jobComplete:false
// N times, the jobs.query answer included), "denied_datasets"?: [..] (accessDenied),
// "tables": [{"dataset", "table", "columns": [{"name", "type", "mode"?}], "rows": [[cells]]}],
// "jobs"?: [others' jobs in INFORMATION_SCHEMA.JOBS: {"job_id"?, "creation_time", "user_email",
// "labels"?: {k: v}, "query", "total_bytes_billed"?, "total_slot_ms"?, "statement_type"?,
// "destination_table"?: {project_id, dataset_id, table_id}, "dml_statistics"?: {inserted_row_count,
// deleted_row_count, updated_row_count}}],
// "faults"?: [...] (sim_support.h: e.g. a 403 rateLimitExceeded body on POST .../queries, times 1)}.
// Column types: INT64, FLOAT64, BOOL, STRING, NUMERIC, BIGNUMERIC, TIMESTAMP (cells as RFC 3339
// text or epoch seconds), DATE, DATETIME.
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "sim/bigquery_sql.h"
#include "sim/bigquery_values.h"
#include "sim/jwt_verify.h"
#include "sim/sql_text.h"
#include "sim/sim_platforms.h"

namespace dw::sim {
namespace {

using WallTime = std::chrono::system_clock::time_point;

// ---- Google's bodies ----

void GoogleError(httplib::Response& res, int code, const std::string& reason, const std::string& message) {
  static const std::map<int, std::string> kStatus = {{400, "INVALID_ARGUMENT"}, {401, "UNAUTHENTICATED"},
                                                     {403, "PERMISSION_DENIED"}, {404, "NOT_FOUND"},
                                                     {500, "INTERNAL"}};
  auto status = kStatus.find(code);
  Json body = {{"error",
                {{"code", code},
                 {"message", message},
                 {"errors", Json::array({{{"message", message}, {"domain", "global"}, {"reason", reason}}})},
                 {"status", status == kStatus.end() ? "UNKNOWN" : status->second}}}};
  res.status = code;
  res.set_content(body.dump(), "application/json; charset=UTF-8");
}

void OAuthError(httplib::Response& res, const std::string& error, const std::string& description) {
  res.status = 400;
  res.set_content(Json{{"error", error}, {"error_description", description}}.dump(), "application/json; charset=utf-8");
}

// A string member of an untrusted object, or "" (never throws on a wrong type).
std::string Str(const Json& j, const char* key) {
  auto it = j.is_object() ? j.find(key) : j.end();
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// ---- the simulated service ----

// The SQLite declared type of a BigQuery column: its affinity keeps the value as BigQuery holds it
// (NUMERIC as exact text, TIMESTAMP as integer microseconds), and sqlite3_column_decltype gives
// the BigQuery type back for the result schema.
std::string DeclaredType(const std::string& bq) {
  if (bq == "INT64" || bq == "FLOAT64" || bq == "BOOL" || bq == "TIMESTAMP") return bq;
  return bq + "_TEXT";
}
std::string BigQueryType(const char* declared) {
  std::string t = declared == nullptr ? "" : declared;
  if (t.size() > 5 && t.compare(t.size() - 5, 5, "_TEXT") == 0) t.resize(t.size() - 5);
  return t;
}

struct Job {
  std::string id;
  Json schema;
  std::vector<Json> rows;  // each {"f": [...]}
  int incomplete_left = 0;
  int64_t bytes_processed = 0, bytes_billed = 0;
};

class BigQuerySim : public std::enable_shared_from_this<BigQuerySim> {
 public:
  explicit BigQuerySim(const Json& script) {
    if (!script.contains("project") || !script["project"].is_string())
      throw std::invalid_argument("a bigquery script needs \"project\"");
    catalog_.project = script["project"].get<std::string>();
    catalog_.location = script.value("location", std::string("US"));
    token_ttl_s_ = script.value("token_ttl_s", 3600);
    page_size_ = script.value("page_size", 0);
    incomplete_polls_ = script.value("incomplete_polls", 0);
    latency_ms_ = script.value("latency_ms", 0);
    for (const Json& d : script.value("denied_datasets", Json::array())) catalog_.denied_datasets.insert(d.get<std::string>());
    LoadPublicKey(script);
    if (sqlite3_open(":memory:", &db_) != SQLITE_OK) throw std::runtime_error("cannot open SQLite in memory");
    RegisterBigQueryFunctions(db_);
    Exec("CREATE TABLE \"INFORMATION_SCHEMA.TABLES\" (table_catalog STRING_TEXT, table_schema STRING_TEXT, "
         "table_name STRING_TEXT, table_type STRING_TEXT)");
    Exec("CREATE TABLE \"INFORMATION_SCHEMA.JOBS\" (job_id STRING_TEXT, creation_time TIMESTAMP, user_email STRING_TEXT, "
         "labels STRING_TEXT, query STRING_TEXT, total_bytes_billed INT64, total_slot_ms INT64, job_type STRING_TEXT, "
         "state STRING_TEXT, statement_type STRING_TEXT, destination_table STRING_TEXT, dml_statistics STRING_TEXT)");
    Exec("CREATE TABLE \"INFORMATION_SCHEMA.COLUMNS\" (table_catalog STRING_TEXT, table_schema STRING_TEXT, "
         "table_name STRING_TEXT, column_name STRING_TEXT, ordinal_position INT64, is_nullable STRING_TEXT, "
         "data_type STRING_TEXT)");
    for (const Json& t : script.value("tables", Json::array())) AddTable(t);
    for (const Json& j : script.value("jobs", Json::array())) {
      Json labels = Json::array();
      const Json given = j.value("labels", Json::object());
      for (const auto& [k, v] : given.items()) labels.push_back({{"key", k}, {"value", v}});
      std::optional<int64_t> at = ParseTimeText(j.at("creation_time").get<std::string>());
      if (!at) throw std::invalid_argument("jobs: bad creation_time " + j["creation_time"].dump());
      RecordJob(j.value("job_id", "job_" + RandomHex(12)), *at, j.at("user_email").get<std::string>(), labels,
                j.at("query").get<std::string>(), j.value("total_bytes_billed", int64_t{0}), j.value("total_slot_ms", int64_t{0}),
                j.value("statement_type", std::string("SELECT")), j.value("destination_table", Json()),
                j.value("dml_statistics", Json()));
    }
  }
  ~BigQuerySim() { sqlite3_close(db_); }

  // The handlers hold the simulator: it lives as long as the server.
  void Install(httplib::Server& server) {
    std::shared_ptr<BigQuerySim> self = shared_from_this();
    server.Post("/token", [this, self](const httplib::Request& req, httplib::Response& res) { Token(req, res); });
    server.Post(R"(/bigquery/v2/projects/([^/]+)/queries)", [this, self](const httplib::Request& req, httplib::Response& res) {
      if (!Authorized(req, res)) return;
      StartQuery(req.matches[1], req.body, res);
    });
    server.Get(R"(/bigquery/v2/projects/([^/]+)/queries/([^/]+))", [this, self](const httplib::Request& req, httplib::Response& res) {
      if (!Authorized(req, res)) return;
      Results(req.matches[1], req.matches[2], req, res);
    });
    server.Post(R"(/bigquery/v2/projects/([^/]+)/jobs/([^/]+)/cancel)", [this, self](const httplib::Request& req, httplib::Response& res) {
      if (!Authorized(req, res)) return;
      Cancel(req.matches[1], req.matches[2], res);
    });
    server.Get("/_sim/state", [this, self](const httplib::Request&, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      res.set_content(Json{{"token_grants", grants_}, {"api_calls", api_calls_}, {"jobs", jobs_.size()}, {"cancelled", cancelled_},
                           {"queries", queries_}, {"last_labels", last_labels_}, {"jobs_log", jobs_log_}}.dump(), "application/json");
    });
    server.Post("/_sim/exec", [this, self](const httplib::Request& req, httplib::Response& res) { WorldWrite(req, res); });
    server.Post("/_sim/expire_tokens", [this, self](const httplib::Request&, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [token, expires] : tokens_) expires = std::chrono::system_clock::now() - std::chrono::seconds(1);
      res.set_content(Json{{"expired", tokens_.size()}}.dump(), "application/json");
    });
  }

 private:
  void Exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string m = err == nullptr ? "?" : err;
      sqlite3_free(err);
      throw std::invalid_argument("seeding: " + m);
    }
  }

  void LoadPublicKey(const Json& script) {
    std::string pem = script.value("public_key_pem", std::string());
    if (pem.empty() && script.contains("credentials")) {
      std::ifstream in(script["credentials"].get<std::string>());
      std::stringstream ss;
      ss << in.rdbuf();
      Json key = Json::parse(ss.str(), nullptr, false);
      if (!key.is_object() || !key.contains("private_key"))
        throw std::invalid_argument("credentials: not a service-account key file");
      pem = key["private_key"].get<std::string>();
      client_email_ = key.value("client_email", std::string());
    }
    if (pem.empty()) throw std::invalid_argument("a bigquery script needs \"credentials\" or \"public_key_pem\"");
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    // A private key holds its public half; a public key PEM is read as one.
    key_.reset(PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr));
    if (key_ == nullptr) {
      BIO_free(bio);
      bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
      key_.reset(PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr));
    }
    BIO_free(bio);
    if (key_ == nullptr) throw std::invalid_argument("the key is not an RSA key in PEM form");
  }

  void AddTable(const Json& t) {
    const std::string dataset = t.at("dataset").get<std::string>(), table = t.at("table").get<std::string>();
    catalog_.datasets.insert(dataset);
    catalog_.tables.insert({dataset, table});
    std::vector<std::string> types;
    std::string ddl;
    int position = 0;
    for (const Json& c : t.at("columns")) {
      const std::string name = c.at("name").get<std::string>(), type = c.at("type").get<std::string>();
      const std::string mode = c.value("mode", std::string("NULLABLE"));
      types.push_back(type);
      columns_[{dataset, table}].push_back({name, type});
      ddl += (ddl.empty() ? "" : ", ") + std::string("\"") + name + "\" " + DeclaredType(type);
      Insert("INSERT INTO \"INFORMATION_SCHEMA.COLUMNS\" VALUES (?, ?, ?, ?, ?, ?, ?)",
             {catalog_.project, dataset, table, name, std::to_string(++position), mode == "REQUIRED" ? "NO" : "YES", type});
    }
    Insert("INSERT INTO \"INFORMATION_SCHEMA.TABLES\" VALUES (?, ?, ?, 'BASE TABLE')", {catalog_.project, dataset, table});
    Exec("CREATE TABLE " + SqliteTableName(dataset, table) + " (" + ddl + ")");
    std::string marks;
    for (size_t i = 0; i < types.size(); ++i) marks += i ? ", ?" : "?";
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db_, ("INSERT INTO " + SqliteTableName(dataset, table) + " VALUES (" + marks + ")").c_str(), -1,
                       &stmt, nullptr);
    for (const Json& row : t.value("rows", Json::array())) {
      if (!row.is_array() || row.size() != types.size())
        throw std::invalid_argument("table " + dataset + "." + table + ": a row needs " + std::to_string(types.size()) + " cells");
      sqlite3_reset(stmt);
      for (size_t i = 0; i < types.size(); ++i) BindSeed(stmt, static_cast<int>(i + 1), types[i], row[i]);
      if (sqlite3_step(stmt) != SQLITE_DONE) throw std::invalid_argument(sqlite3_errmsg(db_));
    }
    sqlite3_finalize(stmt);
  }

  void Insert(const std::string& sql, const std::vector<std::string>& values) {
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr);
    for (size_t i = 0; i < values.size(); ++i)
      sqlite3_bind_text(stmt, static_cast<int>(i + 1), values[i].c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_step(stmt);
    sqlite3_finalize(stmt);
  }

  void BindSeed(sqlite3_stmt* stmt, int i, const std::string& type, const Json& v) {
    if (v.is_null()) {
      sqlite3_bind_null(stmt, i);
    } else if (type == "TIMESTAMP") {
      std::optional<int64_t> micros = v.is_number() ? std::optional<int64_t>(std::llround(v.get<double>() * 1e6))
                                                    : ParseTimeText(v.get<std::string>());
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

  // ---- OAuth ----

  static std::string FormValue(const std::string& body, const std::string& key) {
    std::istringstream in(body);
    std::string pair;
    while (std::getline(in, pair, '&')) {
      auto eq = pair.find('=');
      if (eq != std::string::npos && pair.substr(0, eq) == key) return httplib::detail::decode_url(pair.substr(eq + 1), true);
    }
    return "";
  }

  void Token(const httplib::Request& req, httplib::Response& res) {
    if (FormValue(req.body, "grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer")
      return OAuthError(res, "unsupported_grant_type", "Invalid grant_type: " + FormValue(req.body, "grant_type"));
    const std::string jwt = FormValue(req.body, "assertion");
    std::string why;
    std::optional<Json> verified = VerifyRs256Jwt(jwt, key_.get(), &why);
    if (!verified) {
      if (why == "signature") return OAuthError(res, "invalid_grant", "Invalid JWT Signature.");
      return OAuthError(res, "invalid_grant", "Invalid JWT: " + why);
    }
    const Json& claims = *verified;
    const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    const int64_t iat = IntClaim(claims, "iat"), exp = IntClaim(claims, "exp");
    if (iat < 0 || exp < 0 || exp <= now || iat > now + 60 || exp - iat > 3600)
      return OAuthError(res, "invalid_grant",
                        "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. "
                        "Check your iat and exp values in the JWT claim.");
    if (!client_email_.empty() && Str(claims, "iss") != client_email_)
      return OAuthError(res, "invalid_grant", "Invalid JWT: iss is not the key's client_email");
    if (Str(claims, "aud").empty() || Str(claims, "scope").find("bigquery") == std::string::npos)
      return OAuthError(res, "invalid_scope", "Invalid OAuth scope or ID token audience provided.");
    std::lock_guard<std::mutex> lock(mu_);
    std::string token = "ya29.sim-" + RandomHex(24);
    tokens_[token] = std::chrono::system_clock::now() + std::chrono::seconds(token_ttl_s_);
    ++grants_;
    res.set_content(Json{{"access_token", token}, {"expires_in", token_ttl_s_}, {"token_type", "Bearer"}}.dump(),
                    "application/json; charset=utf-8");
  }

  bool Authorized(const httplib::Request& req, httplib::Response& res) {
    // The network and the service's own time, added to every API call (script "latency_ms").
    if (latency_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(latency_ms_));
    const std::string auth = req.get_header_value("Authorization");
    std::lock_guard<std::mutex> lock(mu_);
    ++api_calls_;
    if (auth.rfind("Bearer ", 0) != 0) {
      GoogleError(res, 401, "required",
                  "Request is missing required authentication credential. Expected OAuth 2 access token, login "
                  "cookie or other valid authentication credential.");
      return false;
    }
    auto it = tokens_.find(auth.substr(7));
    if (it == tokens_.end() || it->second <= std::chrono::system_clock::now()) {
      GoogleError(res, 401, "authError",
                  "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or "
                  "other valid authentication credential.");
      return false;
    }
    return true;
  }

  std::string RandomHex(int bytes) { return RandomHexOf(rng_, bytes); }

  // ---- the world's own writes (a replay) ----

  // POST /_sim/exec: each statement runs on the tables and is recorded in INFORMATION_SCHEMA.JOBS
  // as `user`'s DML job created at `at` (its target as destination_table, its rows changed as
  // dml_statistics), as the service records a job that wrote a table.
  void WorldWrite(const httplib::Request& req, httplib::Response& res) {
    Json body = Json::parse(req.body, nullptr, false);
    if (!body.is_object() || Str(body, "sql").empty())
      return GoogleError(res, 400, "invalid", "exec needs {\"sql\", \"user\", \"at\"}");
    std::optional<int64_t> at = ParseTimeText(Str(body, "at"));
    if (!at) return GoogleError(res, 400, "invalid", "exec: 'at' is not an RFC 3339 time");
    const std::string user = Str(body, "user").empty() ? "world@" + catalog_.project + ".iam.gserviceaccount.com"
                                                       : Str(body, "user");
    std::lock_guard<std::mutex> lock(mu_);
    Json done = Json::array();
    for (const std::string& statement : SplitSqlStatements(Str(body, "sql"))) {
      SqlTranslation t = TranslateGoogleSql(statement, catalog_, /*allow_writes=*/true);
      if (!t.ok) return GoogleError(res, t.http_status, t.reason, t.message + "\nin: " + statement);
      char* err = nullptr;
      if (sqlite3_exec(db_, t.sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string m = err == nullptr ? "?" : err;
        sqlite3_free(err);
        return GoogleError(res, 400, "invalidQuery", m + "\nin: " + statement);
      }
      const int64_t changed = sqlite3_changes(db_);
      Json destination, dml;
      if (t.statement == "INSERT" || t.statement == "UPDATE" || t.statement == "DELETE") {
        destination = {{"project_id", catalog_.project}, {"dataset_id", t.first_table.first}, {"table_id", t.first_table.second}};
        dml = {{"inserted_row_count", t.statement == "INSERT" ? changed : 0},
               {"deleted_row_count", t.statement == "DELETE" ? changed : 0},
               {"updated_row_count", t.statement == "UPDATE" ? changed : 0}};
      }
      RecordJob("job_" + RandomHex(12), *at, user, Json::array(), statement, 0, 0, t.statement, destination, dml);
      done.push_back({{"statement", t.statement}, {"rows", changed}});
    }
    res.set_content(Json{{"ran", done}}.dump(), "application/json");
  }

  // ---- INFORMATION_SCHEMA.JOBS ----

  // REQUIRES: mu_ held (or the constructor).
  // `destination_table` {project_id, dataset_id, table_id} and `dml_statistics` {inserted_row_count,
  // deleted_row_count, updated_row_count} are held as the JSON TO_JSON_STRING gives of those STRUCTs.
  void RecordJob(const std::string& id, int64_t created_micros, const std::string& user, const Json& labels,
                 const std::string& query, int64_t billed, int64_t slot_ms, const std::string& statement_type,
                 const Json& destination = Json(), const Json& dml = Json()) {
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db_, "INSERT INTO \"INFORMATION_SCHEMA.JOBS\" VALUES (?, ?, ?, ?, ?, ?, ?, 'QUERY', 'DONE', ?, ?, ?)", -1,
                       &stmt, nullptr);
    std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> owned(stmt, sqlite3_finalize);
    const std::string label_text = labels.dump();
    sqlite3_bind_text(stmt, 1, id.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(stmt, 2, created_micros);
    sqlite3_bind_text(stmt, 3, user.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(stmt, 4, label_text.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(stmt, 5, query.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(stmt, 6, billed);
    sqlite3_bind_int64(stmt, 7, slot_ms);
    sqlite3_bind_text(stmt, 8, statement_type.c_str(), -1, SQLITE_TRANSIENT);
    const std::string destination_text = destination.dump(), dml_text = dml.dump();
    if (destination.is_null()) sqlite3_bind_null(stmt, 9);
    else sqlite3_bind_text(stmt, 9, destination_text.c_str(), -1, SQLITE_TRANSIENT);
    if (dml.is_null()) sqlite3_bind_null(stmt, 10);
    else sqlite3_bind_text(stmt, 10, dml_text.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(stmt) != SQLITE_DONE) throw std::invalid_argument(sqlite3_errmsg(db_));
  }

  // ---- billing ----

  // BigQuery's logical size of one value of `type` (its pricing page's data sizes); NULL is 0.
  static int64_t ValueBytes(const std::string& type, sqlite3_stmt* stmt, int c) {
    if (sqlite3_column_type(stmt, c) == SQLITE_NULL) return 0;
    if (type == "BOOL") return 1;
    if (type == "NUMERIC") return 16;
    if (type == "BIGNUMERIC") return 32;
    if (type == "STRING" || type == "BYTES") return 2 + sqlite3_column_bytes(stmt, c);
    return 8;  // INT64, FLOAT64, TIMESTAMP, DATE, DATETIME, TIME
  }

  // REQUIRES: mu_ held. The bytes a statement reads: every value of each column it names, in each
  // table it names (BigQuery bills the columns read, whole; a count(*) reads none).
  int64_t BytesRead(const SqlTranslation& t) {
    int64_t total = 0;
    for (const auto& table : t.tables) {
      for (const auto& [name, type] : columns_[table]) {
        if (!t.names.count(UpperText(name))) continue;
        sqlite3_stmt* stmt = nullptr;
        sqlite3_prepare_v2(db_, ("SELECT " + DoubleQuoted(name) + " FROM " + SqliteTableName(table.first, table.second)).c_str(), -1,
                           &stmt, nullptr);
        while (sqlite3_step(stmt) == SQLITE_ROW) total += ValueBytes(type, stmt, 0);
        sqlite3_finalize(stmt);
      }
    }
    return total;
  }

  // What is billed: at least 10 MB per table the statement names (a metadata view counts as one),
  // and the total rounded up to a whole MB.
  static int64_t Billed(const SqlTranslation& t, int64_t processed) {
    constexpr int64_t kMb = 1 << 20;
    const int64_t minimum = 10 * kMb * static_cast<int64_t>(std::max<size_t>(1, t.tables.size()));
    return std::max(minimum, (processed + kMb - 1) / kMb * kMb);
  }

  // ---- jobs ----

  bool BindParameters(sqlite3_stmt* stmt, const Json& params, httplib::Response& res) {
    std::map<std::string, const Json*> by_name;
    if (params.is_array())
      for (const Json& p : params)
        if (p.is_object() && p.contains("name") && p["name"].is_string()) by_name["@" + p["name"].get<std::string>()] = &p;
    for (int i = 1; i <= sqlite3_bind_parameter_count(stmt); ++i) {
      const char* name = sqlite3_bind_parameter_name(stmt, i);
      auto it = name == nullptr ? by_name.end() : by_name.find(name);
      if (it == by_name.end()) {
        GoogleError(res, 400, "invalidQuery", std::string("Query parameter '") + (name ? name + 1 : "?") + "' not found");
        return false;
      }
      const Json& p = *it->second;
      const Json* type = p.contains("parameterType") && p["parameterType"].is_object() ? &p["parameterType"] : nullptr;
      if (type == nullptr || !type->contains("type") || !(*type)["type"].is_string()) {
        GoogleError(res, 400, "invalid", std::string("Query parameter '") + (name + 1) + "' has no parameterType.type");
        return false;
      }
      const std::string t = (*type)["type"].get<std::string>();
      const Json value = p.contains("parameterValue") && p["parameterValue"].is_object() ? p["parameterValue"] : Json::object();
      if (!value.contains("value") || value["value"].is_null()) {
        sqlite3_bind_null(stmt, i);
        continue;
      }
      // The REST schema types the value as a string; the service also takes a JSON number or
      // boolean (Google's Node client sends INT64 and FLOAT64 values as numbers).
      const Json& raw = value["value"];
      if (!raw.is_string() && !raw.is_number() && !raw.is_boolean()) {
        GoogleError(res, 400, "invalid", std::string("Query parameter '") + (name + 1) + "': value must be a string");
        return false;
      }
      const std::string v = raw.is_string() ? raw.get<std::string>() : raw.dump();
      if (t == "INT64" || t == "BOOL") {
        char* end = nullptr;
        long long n = t == "BOOL" ? (v == "true" ? 1 : 0) : std::strtoll(v.c_str(), &end, 10);
        if (t == "INT64" && (v.empty() || *end != '\0')) {
          GoogleError(res, 400, "invalid", "Invalid INT64 value: " + v);
          return false;
        }
        sqlite3_bind_int64(stmt, i, n);
      } else if (t == "FLOAT64") {
        sqlite3_bind_double(stmt, i, std::strtod(v.c_str(), nullptr));
      } else if (t == "TIMESTAMP") {
        std::optional<int64_t> micros = ParseTimeText(v);
        if (!micros) {
          GoogleError(res, 400, "invalid", "Invalid TIMESTAMP value: " + v);
          return false;
        }
        sqlite3_bind_int64(stmt, i, *micros);
      } else if (t == "STRING" || t == "NUMERIC" || t == "BIGNUMERIC" || t == "DATE" || t == "DATETIME") {
        sqlite3_bind_text(stmt, i, v.c_str(), -1, SQLITE_TRANSIENT);
      } else {
        GoogleError(res, 400, "invalid", "Query parameter type " + t + " is outside the simulator's subset");
        return false;
      }
    }
    return true;
  }

  // A column's BigQuery type: the declared one of a table column, else from the values' storage
  // class (an aggregate's INT64 or FLOAT64), STRING when every value is text or NULL.
  static std::string ResultType(const char* declared, const std::vector<int>& classes) {
    std::string t = BigQueryType(declared);
    if (!t.empty()) return t;
    for (int k : classes) {
      if (k == SQLITE_INTEGER) return "INT64";
      if (k == SQLITE_FLOAT) return "FLOAT64";
      if (k == SQLITE_TEXT) return "STRING";
    }
    return "INT64";
  }

  void StartQuery(const std::string& project, const std::string& body, httplib::Response& res) {
    Json req = Json::parse(body, nullptr, false);
    if (!req.is_object() || !req.contains("query") || !req["query"].is_string())
      return GoogleError(res, 400, "invalid", "Required parameter is missing: query");
    if (project != catalog_.project) return GoogleError(res, 404, "notFound", "Not found: Project " + project);
    if (!req.contains("useLegacySql") || req["useLegacySql"] != false)
      return GoogleError(res, 400, "invalidQuery", "the simulator runs GoogleSQL only (useLegacySql: false)");
    const Json params = req.contains("queryParameters") ? req["queryParameters"] : Json::array();
    // The service reads the mode in any case ("named" is what Google's own Node client sends).
    std::string mode = Str(req, "parameterMode");
    for (char& c : mode) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (!params.empty() && mode != "NAMED")
      return GoogleError(res, 400, "invalid", "Query parameters need parameterMode NAMED here");
    // formatOptions.useInt64Timestamp: TIMESTAMP cells as integer microseconds, not float seconds.
    const bool int64_timestamps = req.contains("formatOptions") && req["formatOptions"].is_object() &&
                                  req["formatOptions"].value("useInt64Timestamp", false);
    std::lock_guard<std::mutex> lock(mu_);
    ++queries_;
    last_labels_ = req.contains("labels") ? req["labels"] : Json();
    SqlTranslation t = TranslateGoogleSql(req["query"].get<std::string>(), catalog_);
    if (!t.ok) return GoogleError(res, t.http_status, t.reason, t.message);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, t.sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      std::string m = sqlite3_errmsg(db_);
      return GoogleError(res, 400, "invalidQuery", "Syntax error: " + m);
    }
    std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> owned(stmt, sqlite3_finalize);
    if (!sqlite3_stmt_readonly(stmt))
      return GoogleError(res, 400, "invalidQuery", "the simulator runs queries only, never DML or DDL");
    if (!BindParameters(stmt, params, res)) return;
    // What the statement would bill, checked against its cap before it runs (and priced alone
    // by a dry run, which runs nothing).
    const int64_t processed = BytesRead(t);
    const int64_t billed = Billed(t, processed);
    if (req.value("dryRun", false)) {
      Json fields = Json::array();
      for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
        const char* name = sqlite3_column_name(stmt, c);
        fields.push_back({{"name", name == nullptr ? "" : name}, {"type", BigQueryType(sqlite3_column_decltype(stmt, c))}});
      }
      res.set_content(Json{{"kind", "bigquery#queryResponse"}, {"jobComplete", true}, {"cacheHit", false},
                           {"totalBytesProcessed", std::to_string(processed)}, {"schema", {{"fields", fields}}}}.dump(),
                      "application/json; charset=UTF-8");
      return;
    }
    if (req.contains("maximumBytesBilled")) {
      const Json& cap_json = req["maximumBytesBilled"];
      const std::string text = cap_json.is_string() ? cap_json.get<std::string>() : cap_json.dump();
      char* end = nullptr;
      const long long cap = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0') return GoogleError(res, 400, "invalid", "Invalid value for maximumBytesBilled: " + text);
      if (billed > cap)
        return GoogleError(res, 400, "bytesBilledLimitExceeded",
                           "Query exceeded limit for bytes billed: " + text + ". " + std::to_string(billed) + " or higher required.");
    }
    const int columns = sqlite3_column_count(stmt);
    std::vector<std::vector<int>> classes(static_cast<size_t>(columns));
    Job job;
    int rc;
    // Types need every row first; the cells are encoded once the types are known.
    std::vector<std::vector<std::pair<int, std::string>>> raw;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      std::vector<std::pair<int, std::string>> row;
      for (int c = 0; c < columns; ++c) {
        const int k = sqlite3_column_type(stmt, c);
        classes[static_cast<size_t>(c)].push_back(k);
        const char* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
        row.emplace_back(k, text == nullptr ? "" : text);
      }
      raw.push_back(std::move(row));
    }
    if (rc != SQLITE_DONE) return GoogleError(res, 400, "invalidQuery", sqlite3_errmsg(db_));
    Json fields = Json::array();
    std::vector<std::string> types;
    for (int c = 0; c < columns; ++c) {
      types.push_back(ResultType(sqlite3_column_decltype(stmt, c), classes[static_cast<size_t>(c)]));
      const char* name = sqlite3_column_name(stmt, c);
      fields.push_back({{"name", name == nullptr ? "f" + std::to_string(c) + "_" : name},
                        {"type", types.back()}, {"mode", "NULLABLE"}});
    }
    for (const auto& row : raw) {
      Json f = Json::array();
      for (int c = 0; c < columns; ++c)
        f.push_back(Encode(row[static_cast<size_t>(c)], types[static_cast<size_t>(c)], int64_timestamps));
      job.rows.push_back(Json{{"f", std::move(f)}});
    }
    job.schema = Json{{"fields", fields}};
    job.id = "job_" + RandomHex(12);
    job.bytes_processed = processed;
    job.bytes_billed = billed;
    {
      Json labels = Json::array();
      if (req.contains("labels") && req["labels"].is_object())
        for (const auto& [k, v] : req["labels"].items()) labels.push_back({{"key", k}, {"value", v}});
      RecordJob(job.id, std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count(),
                client_email_, labels, req["query"].get<std::string>(), billed, 0, "SELECT");
    }
    job.incomplete_left = incomplete_polls_;
    const std::string id = job.id;
    Job& stored = jobs_[id] = std::move(job);
    // The statements clients sent, with their parameters and answers, for tests that run them again
    // through another client (tests/node/warehouse_clients.mjs); the last 100.
    jobs_log_.push_back({{"query", req["query"]}, {"queryParameters", params}, {"schema", stored.schema},
                         {"rows", Json(stored.rows)}, {"maximumBytesBilled", req.value("maximumBytesBilled", Json())},
                         {"labels", req.value("labels", Json())}});
    if (jobs_log_.size() > 100) jobs_log_.erase(jobs_log_.begin());
    Respond(stored, 0, "bigquery#queryResponse", res);
  }

  static Json Encode(const std::pair<int, std::string>& cell, const std::string& type, bool int64_timestamps) {
    if (cell.first == SQLITE_NULL) return Json{{"v", nullptr}};
    if (cell.first == SQLITE_INTEGER && type == "TIMESTAMP")
      return Json{{"v", int64_timestamps ? cell.second : ScientificSeconds(std::stoll(cell.second))}};
    if (cell.first == SQLITE_INTEGER && type == "BOOL") return Json{{"v", cell.second != "0" ? "true" : "false"}};
    return Json{{"v", cell.second}};
  }

  // REQUIRES: mu_ held. Answers the job's state and, once complete, the page from `offset`.
  void Respond(Job& job, size_t offset, const char* kind, httplib::Response& res) {
    Json out = {{"kind", kind},
                {"jobReference", {{"projectId", catalog_.project}, {"jobId", job.id}, {"location", catalog_.location}}}};
    if (job.incomplete_left > 0) {
      --job.incomplete_left;
      out["jobComplete"] = false;
      res.set_content(out.dump(), "application/json; charset=UTF-8");
      return;
    }
    out["jobComplete"] = true;
    out["schema"] = job.schema;
    out["totalRows"] = std::to_string(job.rows.size());
    out["totalBytesProcessed"] = std::to_string(job.bytes_processed);
    out["totalBytesBilled"] = std::to_string(job.bytes_billed);
    out["cacheHit"] = false;
    const size_t end = page_size_ > 0 ? std::min(job.rows.size(), offset + static_cast<size_t>(page_size_)) : job.rows.size();
    if (end > offset) out["rows"] = Json(std::vector<Json>(job.rows.begin() + static_cast<long>(offset), job.rows.begin() + static_cast<long>(end)));
    if (end < job.rows.size()) {
      std::string token = "pt" + RandomHex(16);  // opaque: only this simulator can read it
      pages_[token] = {job.id, end};
      out["pageToken"] = token;
    }
    res.set_content(out.dump(), "application/json; charset=UTF-8");
  }

  // jobs.cancel: the job stops where it is (a job still running never completes) and the answer is
  // {"kind": "bigquery#jobCancelResponse", "job": {...}}.
  void Cancel(const std::string& project, const std::string& job_id, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    auto job = project == catalog_.project ? jobs_.find(job_id) : jobs_.end();
    if (job == jobs_.end())
      return GoogleError(res, 404, "notFound", "Not found: Job " + project + ":" + catalog_.location + "." + job_id);
    ++cancelled_;
    Json out = {{"kind", "bigquery#jobCancelResponse"},
                {"job", {{"jobReference", {{"projectId", project}, {"jobId", job_id}, {"location", catalog_.location}}},
                         {"status", {{"state", "DONE"}}}}}};
    res.set_content(out.dump(), "application/json; charset=UTF-8");
  }

  void Results(const std::string& project, const std::string& job_id, const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    if (project != catalog_.project) return GoogleError(res, 404, "notFound", "Not found: Project " + project);
    auto job = jobs_.find(job_id);
    if (job == jobs_.end())
      return GoogleError(res, 404, "notFound", "Not found: Job " + project + ":" + catalog_.location + "." + job_id);
    if (req.has_param("location") && req.get_param_value("location") != catalog_.location)
      return GoogleError(res, 404, "notFound", "Not found: Job " + project + ":" + req.get_param_value("location") + "." + job_id);
    size_t offset = 0;
    if (req.has_param("pageToken")) {
      auto page = pages_.find(req.get_param_value("pageToken"));
      if (page == pages_.end() || page->second.first != job_id)
        return GoogleError(res, 400, "invalid", "Invalid page token");
      offset = page->second.second;
    }
    Respond(job->second, offset, "bigquery#getQueryResultsResponse", res);
  }

  BigQueryCatalog catalog_;
  int token_ttl_s_ = 3600, page_size_ = 0, incomplete_polls_ = 0, latency_ms_ = 0;
  std::string client_email_;
  // Freed with the simulator, and when its constructor throws after reading it.
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key_{nullptr, EVP_PKEY_free};
  sqlite3* db_ = nullptr;
  std::mutex mu_;
  std::mt19937_64 rng_{std::random_device{}()};
  std::map<std::string, WallTime> tokens_;
  std::map<std::string, Job> jobs_;
  std::map<std::string, std::pair<std::string, size_t>> pages_;
  int64_t grants_ = 0, api_calls_ = 0, queries_ = 0, cancelled_ = 0;
  Json last_labels_;  // the last jobs.query's labels, as sent
  std::vector<Json> jobs_log_;
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<std::string, std::string>>> columns_;  // name, type
};

}  // namespace

void InstallBigQuery(const Json& script, httplib::Server& server, std::shared_ptr<SimClock>) {
  std::make_shared<BigQuerySim>(script)->Install(server);
}

}  // namespace dw::sim
