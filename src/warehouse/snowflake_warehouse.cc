// The Snowflake warehouse: every statement is one POST /api/v2/statements with its values as
// bindings, completed by polling GET /api/v2/statements/{handle} (a statement still running after
// the API's own wait answers 202, whatever was asked) and read partition by partition.
//
// Each submission carries a requestId; a resubmission after a lost answer or a 429/5xx repeats it
// with retry=true, so Snowflake never runs one statement twice. Tables and columns come from the
// database's INFORMATION_SCHEMA through the same path as the checks' own statements.
#include "warehouse/snowflake_warehouse.h"

#include <openssl/rand.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "base/hex.h"
#include "base/json.h"
#include "base/url_redaction.h"
#include "warehouse/http_transport.h"
#include "warehouse/snowflake_auth.h"
#include "warehouse/snowflake_rows.h"

namespace dw::warehouse {
namespace {

using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr int kMaxAttempts = 6;
constexpr char kUserAgent[] = "data-workers/1.0";

std::string StringField(const Json& j, const char* key) {
  auto it = j.is_object() ? j.find(key) : j.end();
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A random RFC 4122 version 4 UUID, the SQL API's requestId.
std::string NewRequestId() {
  unsigned char b[16];
  if (RAND_bytes(b, sizeof b) != 1) {
    std::random_device rd;
    for (unsigned char& c : b) c = static_cast<unsigned char>(rd());
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
  const std::string h = LowerHex(b, sizeof b);
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" + h.substr(20);
}

// The SQL API's error bodies: QueryFailureStatus / QueryStatus {code, sqlState, message,
// statementHandle}, or {code, message} for the request-level errors.
struct SnowflakeError {
  std::string code, sql_state, message, handle;
};

SnowflakeError ReadError(const std::string& body) {
  Json j = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  return {StringField(j, "code"), StringField(j, "sqlState"), StringField(j, "message"), StringField(j, "statementHandle")};
}

// The binding of one value ({"type", "value"}: values are strings, as the API requires).
Result<Json> Binding(int n, const SqlValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return Json{{"type", "FIXED"}, {"value", std::to_string(*i)}};
  if (const auto* d = std::get_if<double>(&value)) {
    if (!std::isfinite(*d))
      return Json{{"type", "REAL"}, {"value", std::isnan(*d) ? "NaN" : *d > 0 ? "inf" : "-inf"}};
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", *d);
    return Json{{"type", "REAL"}, {"value", buf}};
  }
  if (const auto* s = std::get_if<std::string>(&value)) return Json{{"type", "TEXT"}, {"value", *s}};
  if (std::holds_alternative<std::monostate>(value)) return Json{{"type", "TEXT"}, {"value", nullptr}};
  return InvalidArgument("parameter " + std::to_string(n) + " is bytes; Snowflake checks bind numbers and text");
}

// What a failed statement means for the caller. Snowflake's codes are strings with leading zeros.
Status MapFailure(const std::string& warehouse, long status, const SnowflakeError& e) {
  std::string text = "warehouse '" + warehouse + "': Snowflake answered HTTP " + std::to_string(status) +
                     (e.code.empty() ? "" : " " + e.code) + (e.sql_state.empty() ? "" : " (SQL state " + e.sql_state + ")") +
                     (e.message.empty() ? "" : ": " + e.message);
  if (e.code == "002003" || e.sql_state == "42S02" || e.code == "002043") return NotFound(text);
  if (e.code == "003001" || e.sql_state == "42501")
    return PermissionDenied(text + " (the role needs USAGE on the database, schema and warehouse and SELECT on the table)");
  if (e.code == "000606") return FailedPrecondition(text + " (set 'warehouse:' in the workspace, or a DEFAULT_WAREHOUSE for the user)");
  if (e.code == "000630" || status == 408) return DeadlineExceeded(text);
  // A resource monitor that suspended the warehouse at its credit quota ("Warehouse 'X' cannot be
  // resumed because resource monitor 'Y' has exceeded its quota."): Snowflake's quota refusal.
  if (e.message.find("resource monitor") != std::string::npos && e.message.find("quota") != std::string::npos)
    return ResourceExhausted(text);
  if (status == 401 || status == 403)
    return PermissionDenied(text + " (register the key's public half: ALTER USER ... SET RSA_PUBLIC_KEY, and check "
                                   "the account and user)");
  if (status == 404) return NotFound(text);
  if (status == 422 || status == 400) return InvalidArgument(text);
  return Unavailable(text);
}

bool Retryable(long status) { return status == 429 || status == 500 || status == 502 || status == 503 || status == 504; }

// The QUERY_TAG: what ran the statement, as one JSON object (dbt and others tag the same way, and
// spend attribution parses it back).
std::string QueryTag(const QueryOptions& options) {
  Json tag = {{"dw", "checks"}};
  for (const auto& [k, v] : options.labels) tag[k] = v;
  return tag.dump();
}

class SnowflakeWarehouse final : public Warehouse {
 public:
  SnowflakeWarehouse(const config::WarehouseConfig& c, HttpClient& http, std::shared_ptr<SnowflakeJwtSource> tokens)
      : config_(c), api_url_(c.api_url), http_(http), tokens_(std::move(tokens)),
        dialect_(MakeSnowflakeDialect(c.database, c.default_schema)) {
    while (api_url_.size() > 1 && api_url_.back() == '/') api_url_.pop_back();
    dialect_->LearnCatalogName(c.database);
    dialect_->LearnCatalogName(c.default_schema);
  }

  const std::string& name() const override { return config_.name; }
  const Dialect& dialect() const override { return *dialect_; }

  Result<std::vector<TableId>> ListTables() override {
    Result<QueryOutcome> r = Query("SELECT table_schema, table_name FROM " + Database() +
                                       ".information_schema.tables WHERE table_schema <> 'INFORMATION_SCHEMA' "
                                       "ORDER BY table_schema, table_name",
                                   {}, {});
    if (!r.ok()) return r.status();
    std::vector<TableId> out;
    for (const SqlRow& row : r->rows) {
      const auto* schema = row.size() == 2 ? std::get_if<std::string>(&row[0]) : nullptr;
      const auto* table = row.size() == 2 ? std::get_if<std::string>(&row[1]) : nullptr;
      if (schema == nullptr || table == nullptr) continue;
      dialect_->LearnCatalogName(*schema);
      dialect_->LearnCatalogName(*table);
      out.push_back({*schema, *table});
    }
    return out;
  }

  // A schema's columns are read once per warehouse object, all its tables in one statement.
  Result<std::optional<TableSchema>> DescribeTable(const TableId& table) override {
    std::lock_guard<std::mutex> lock(catalog_mu_);
    auto schema = catalog_.find(table.schema);
    if (schema == catalog_.end()) {
      Result<QueryOutcome> r = Query("SELECT table_name, column_name, data_type, is_nullable FROM " + Database() +
                                         ".information_schema.columns WHERE table_schema = " + dialect_->Param(1) +
                                         " ORDER BY table_name, ordinal_position",
                                     {table.schema}, {});
      if (!r.ok() && r.status().code() != StatusCode::kNotFound) return r.status();
      std::map<std::string, TableSchema> tables;
      if (r.ok()) {
        for (const SqlRow& row : r->rows) {
          if (row.size() != 4) continue;
          const auto* name = std::get_if<std::string>(&row[0]);
          const auto* column = std::get_if<std::string>(&row[1]);
          const auto* type = std::get_if<std::string>(&row[2]);
          const auto* nullable = std::get_if<std::string>(&row[3]);
          if (name == nullptr || column == nullptr || type == nullptr) continue;
          dialect_->LearnCatalogName(*name);
          dialect_->LearnCatalogName(*column);
          std::string lower = *type;
          for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          TableSchema& t = tables[*name];
          t.id = {table.schema, *name};
          t.names_fold = true;
          t.columns.push_back({*column, lower, nullable == nullptr || *nullable != "NO"});
        }
      }
      schema = catalog_.emplace(table.schema, std::move(tables)).first;
    }
    auto found = schema->second.find(table.table);
    if (found != schema->second.end()) return std::optional<TableSchema>(found->second);
    // Asked for before the catalog was seen, a table created quoted ("orders") was folded to
    // ORDERS: the one table whose name differs only in case is it.
    const TableSchema* only = nullptr;
    for (const auto& [name, t] : schema->second) {
      if (name.size() != table.table.size() ||
          !std::equal(name.begin(), name.end(), table.table.begin(), [](char a, char b) {
            return std::toupper(static_cast<unsigned char>(a)) == std::toupper(static_cast<unsigned char>(b));
          }))
        continue;
      if (only != nullptr) return std::optional<TableSchema>();  // "orders" and "Orders": only the exact name says
      only = &t;
    }
    if (only == nullptr) return std::optional<TableSchema>();
    return std::optional<TableSchema>(*only);
  }

  Result<QueryOutcome> Query(const std::string& sql, const std::vector<SqlValue>& params,
                             const QueryOptions& options) override {
    const auto start = SteadyClock::now();
    const auto deadline = start + options.timeout;
    Result<PositionalStatement> positional = ToQmarkBindings(sql, params);
    if (!positional.ok()) return Status(positional.status().code(), "warehouse '" + name() + "': " + positional.status().message());
    Json body = {{"statement", positional->sql},
                 {"timeout", std::max<int64_t>(1, (options.timeout.count() + 999) / 1000)},
                 {"database", config_.database},
                 {"schema", config_.default_schema},
                 {"parameters", {{"query_tag", QueryTag(options)}}}};
    if (!config_.compute_warehouse.empty()) body["warehouse"] = config_.compute_warehouse;
    if (!config_.role.empty()) body["role"] = config_.role;
    if (!positional->values.empty()) {
      Json bindings = Json::object();
      for (size_t i = 0; i < positional->values.size(); ++i) {
        Result<Json> b = Binding(static_cast<int>(i + 1), positional->values[i]);
        if (!b.ok()) return Status(b.status().code(), "warehouse '" + name() + "': " + b.status().message());
        bindings[std::to_string(i + 1)] = std::move(*b);
      }
      body["bindings"] = std::move(bindings);
    }
    const std::string request_id = NewRequestId();
    Answer a = Call("POST", Url({"api", "v2", "statements"}) + "?requestId=" + request_id, body.dump(), deadline, request_id);
    milliseconds pause{50};
    while (a.status == 202) {
      const std::string handle = StringField(a.body, "statementHandle");
      if (handle.empty()) return Unavailable("warehouse '" + name() + "': Snowflake answered 202 without a statementHandle");
      if (SteadyClock::now() + pause >= deadline) {
        Cancel(handle);
        return DeadlineExceeded("warehouse '" + name() + "': Snowflake statement " + handle + " did not complete within the " +
                                std::to_string(options.timeout.count()) + " ms timeout and was cancelled");
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, milliseconds(1000));
      a = Call("GET", Url({"api", "v2", "statements", handle}), "", deadline, "");
    }
    if (!a.error.ok()) return a.error;
    return ReadResult(a.body, deadline, start);
  }

  Result<std::unique_ptr<Warehouse>> Reopen() override {
    return FailedPrecondition("warehouse '" + name() + "': Snowflake parallelises scans itself");
  }

  // Statements run side by side on the virtual warehouse (which queues beyond its own
  // MAX_CONCURRENCY_LEVEL, 8 by default); the client is thread-safe.
  int ParallelStatements() const override { return 8; }

  Result<std::optional<int64_t>> EstimateRowsRead(const TableId&, const std::string&, const std::vector<SqlValue>&) override {
    return std::optional<int64_t>();
  }

 private:
  // One answer of the API: a 200 or 202 body, or the error it meant.
  struct Answer {
    long status = 0;
    Json body;
    Status error = Status::Ok();
  };

  std::string Database() const { return dialect_->Quote(config_.database); }

  std::string Url(const std::vector<std::string>& segments) const { return JoinUrl(api_url_, segments); }

  Result<QueryOutcome> ReadResult(const Json& result, SteadyClock::time_point deadline, SteadyClock::time_point start) {
    const Json meta = result.contains("resultSetMetaData") ? result["resultSetMetaData"] : Json();
    if (!meta.is_object()) return DataLoss("warehouse '" + name() + "': Snowflake answered 200 without resultSetMetaData");
    const std::string format = StringField(meta, "format");
    if (!format.empty() && format != "jsonv2")
      return DataLoss("warehouse '" + name() + "': Snowflake answered in format '" + format + "'; this client reads jsonv2");
    Result<std::vector<SnowflakeColumn>> columns = SnowflakeRowType(meta.contains("rowType") ? meta["rowType"] : Json());
    if (!columns.ok()) return Status(columns.status().code(), "warehouse '" + name() + "': " + columns.status().message());
    QueryOutcome out;
    Status decoded = DecodeSnowflakeRows(*columns, result.contains("data") ? result["data"] : Json(), out.rows);
    if (!decoded.ok()) return Status(decoded.code(), "warehouse '" + name() + "': " + decoded.message());
    const Json partitions = meta.contains("partitionInfo") ? meta["partitionInfo"] : Json::array();
    const std::string handle = StringField(result, "statementHandle");
    for (size_t p = 1; partitions.is_array() && p < partitions.size(); ++p) {
      if (handle.empty()) return DataLoss("warehouse '" + name() + "': Snowflake listed partitions without a statementHandle");
      Answer part = Call("GET", Url({"api", "v2", "statements", handle}) + "?partition=" + std::to_string(p), "", deadline, "",
                         /*compressed=*/true);
      if (!part.error.ok()) return part.error;
      if (part.status != 200) return Unavailable("warehouse '" + name() + "': Snowflake answered partition " + std::to_string(p) + " with HTTP " + std::to_string(part.status));
      decoded = DecodeSnowflakeRows(*columns, part.body.contains("data") ? part.body["data"] : Json(), out.rows);
      if (!decoded.ok()) return Status(decoded.code(), "warehouse '" + name() + "': partition " + std::to_string(p) + ": " + decoded.message());
    }
    auto num_rows = meta.find("numRows");
    if (num_rows != meta.end() && num_rows->is_number_integer() && num_rows->get<int64_t>() != static_cast<int64_t>(out.rows.size()))
      return DataLoss("warehouse '" + name() + "': Snowflake statement " + handle + " reported " + num_rows->dump() +
                      " rows but its partitions held " + std::to_string(out.rows.size()));
    out.duration = std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - start);
    return out;
  }

  // Best effort: a statement past its timeout would otherwise run (and bill) to its end.
  void Cancel(const std::string& handle) {
    (void)Call("POST", Url({"api", "v2", "statements", handle, "cancel"}), "", SteadyClock::now() + std::chrono::seconds(5), "");
  }

  // One API call with the JWT: a 401 signs a new token once; 429 and 5xx (and an unreachable
  // endpoint) are retried with backoff while the deadline allows, a submission repeating its
  // requestId with retry=true. 200 and 202 are answers; anything else is the error it means.
  Answer Call(const std::string& method, const std::string& url, const std::string& body, SteadyClock::time_point deadline,
              const std::string& request_id, bool compressed = false) {
    milliseconds backoff{100};
    bool refreshed = false;
    std::string target = url;
    for (int attempt = 1;; ++attempt) {
      Answer a;
      Result<std::string> token = tokens_->Token();
      if (!token.ok()) {
        a.error = Status(token.status().code(), "warehouse '" + name() + "': " + token.status().message());
        return a;
      }
      HttpRequest req;
      req.method = method;
      req.url = target;
      req.body = body;
      req.headers = {{"X-Snowflake-Authorization-Token-Type", "KEYPAIR_JWT"},
                     {"Accept", "application/json"},
                     {"User-Agent", kUserAgent}};
      if (method == "POST") req.headers.push_back({"Content-Type", "application/json"});
      req.bearer_token = *token;
      req.accept_compressed = compressed;
      const auto left = std::chrono::duration_cast<milliseconds>(deadline - SteadyClock::now());
      // The API holds a synchronous statement up to 45 s before answering 202.
      req.timeout = std::max(milliseconds(1000), std::min(left, milliseconds(60000)));
      Result<HttpResponse> res = http_.Send(req);
      SnowflakeError error;
      long status = 0;
      if (res.ok()) {
        status = res->status;
        if (status == 200 || status == 202) {
          a.status = status;
          a.body = Json::parse(res->body, nullptr, /*allow_exceptions=*/false);
          if (!a.body.is_object())
            a.error = Unavailable("warehouse '" + name() + "': Snowflake answered " + std::to_string(status) + " with a body that is not a JSON object");
          return a;
        }
        error = ReadError(res->body);
        if (status == 401 && !refreshed) {
          tokens_->Invalidate();
          refreshed = true;
          --attempt;
          continue;
        }
      }
      const bool again = res.ok() ? Retryable(status) : res.status().code() == StatusCode::kUnavailable ||
                                                          res.status().code() == StatusCode::kDeadlineExceeded;
      if (!again || attempt >= kMaxAttempts || SteadyClock::now() + backoff >= deadline) {
        if (!res.ok()) {
          a.error = Status(res.status().code(), "warehouse '" + name() + "': Snowflake at " + RedactUrl(api_url_) +
                                                    " could not be reached: " + res.status().message());
        } else {
          Status s = MapFailure(name(), status, error);
          a.error = again ? Unavailable(s.message() + " (still failing after " + std::to_string(attempt) + " attempts)") : s;
        }
        return a;
      }
      // The same submission again, marked as a retry: Snowflake runs it at most once.
      if (!request_id.empty() && target.find("&retry=true") == std::string::npos) target += "&retry=true";
      std::this_thread::sleep_for(backoff);
      backoff *= 2;
    }
  }

  config::WarehouseConfig config_;
  std::string api_url_;
  std::mutex catalog_mu_;
  std::map<std::string, std::map<std::string, TableSchema>> catalog_;  // schema -> table -> columns
  HttpClient& http_;
  std::shared_ptr<SnowflakeJwtSource> tokens_;
  std::unique_ptr<SnowflakeDialect> dialect_;
};

// One token source per key file, account and user in the process: a JWT is signed once an hour
// per key, however many warehouses use it.
Result<std::shared_ptr<SnowflakeJwtSource>> SharedJwtSource(const config::WarehouseConfig& c) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<SnowflakeJwtSource>> sources;
  std::lock_guard<std::mutex> lock(mu);
  const std::string id = c.private_key + "\n" + SnowflakeJwtAccount(c.account) + "\n" + c.user;
  auto it = sources.find(id);
  if (it != sources.end()) return it->second;
  Result<SnowflakeKey> key = ReadSnowflakeKey(c.account, c.user, c.private_key);
  if (!key.ok()) return key.status();
  auto source = std::make_shared<SnowflakeJwtSource>(std::move(*key), RealClock());
  sources[id] = source;
  return source;
}

// Skips a quoted span starting at `i` (its opening `quote`); returns the index after it, or npos.
size_t SkipQuoted(const std::string& s, size_t i, char quote, bool backslash_escapes) {
  for (size_t j = i + 1; j < s.size(); ++j) {
    if (backslash_escapes && s[j] == '\\') {
      ++j;
    } else if (s[j] == quote) {
      if (j + 1 < s.size() && s[j + 1] == quote) {
        ++j;  // a doubled quote is one character of the text
      } else {
        return j + 1;
      }
    }
  }
  return std::string::npos;
}

}  // namespace

Result<PositionalStatement> ToQmarkBindings(const std::string& sql, const std::vector<SqlValue>& params) {
  PositionalStatement out;
  size_t i = 0;
  while (i < sql.size()) {
    const char c = sql[i];
    size_t next = i + 1;
    if (c == '\'' || c == '"') {
      next = SkipQuoted(sql, i, c, /*backslash_escapes=*/c == '\'');
      if (next == std::string::npos) return InvalidArgument("the statement has an unclosed " + std::string(c == '\'' ? "string" : "quoted name"));
    } else if (c == '$' && i + 1 < sql.size() && sql[i + 1] == '$') {
      const size_t end = sql.find("$$", i + 2);
      if (end == std::string::npos) return InvalidArgument("the statement has an unclosed $$ string");
      next = end + 2;
    } else if ((c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') || (c == '/' && i + 1 < sql.size() && sql[i + 1] == '/')) {
      next = sql.find('\n', i);
      if (next == std::string::npos) next = sql.size();
    } else if (c == '/' && i + 1 < sql.size() && sql[i + 1] == '*') {
      const size_t end = sql.find("*/", i + 2);
      if (end == std::string::npos) return InvalidArgument("the statement has an unclosed comment");
      next = end + 2;
    } else if (c == ':' && i + 1 < sql.size() && sql[i + 1] == ':') {
      next = i + 2;  // a :: cast
    } else if (c == ':' && i + 1 < sql.size() && std::isdigit(static_cast<unsigned char>(sql[i + 1]))) {
      size_t j = i + 1;
      while (j < sql.size() && std::isdigit(static_cast<unsigned char>(sql[j]))) ++j;
      const std::string digits = sql.substr(i + 1, j - i - 1);
      const size_t n = digits.size() > 6 ? 0 : std::stoul(digits);
      if (n == 0 || n > params.size())
        return InvalidArgument("parameter :" + digits + " has no value (" + std::to_string(params.size()) + " given)");
      out.sql += '?';
      out.values.push_back(params[n - 1]);
      i = j;
      continue;
    }
    out.sql.append(sql, i, next - i);
    i = next;
  }
  return out;
}

Result<std::unique_ptr<Warehouse>> OpenSnowflakeWarehouse(const config::WarehouseConfig& config, HttpClient* http) {
  if (http == nullptr) return NoHttpClient(config, "Snowflake");
  for (const auto& [key, value] : {std::pair<const char*, const std::string*>{"account", &config.account},
                                   {"user", &config.user}, {"private_key", &config.private_key},
                                   {"database", &config.database}})
    if (value->empty()) return InvalidArgument("warehouse '" + config.name + "': a snowflake warehouse needs '" + key + "'");
  Result<std::shared_ptr<SnowflakeJwtSource>> tokens = SharedJwtSource(config);
  if (!tokens.ok()) return Status(tokens.status().code(), "warehouse '" + config.name + "': " + tokens.status().message());
  return std::unique_ptr<Warehouse>(std::make_unique<SnowflakeWarehouse>(config, *http, std::move(*tokens)));
}

WarehouseProbe ProbeSnowflakeWarehouse(const config::WarehouseConfig& config, std::chrono::milliseconds timeout,
                                       HttpClient* http) {
  WarehouseProbe probe;
  const auto start = SteadyClock::now();
  Result<std::unique_ptr<Warehouse>> wh = OpenSnowflakeWarehouse(config, http);
  Result<QueryOutcome> r = wh.ok() ? (*wh)->Query("SELECT 1", {}, {timeout, {}}) : Result<QueryOutcome>(wh.status());
  probe.latency = std::chrono::duration_cast<milliseconds>(SteadyClock::now() - start);
  probe.reachable = r.ok();
  probe.detail = r.ok() ? "ran SELECT 1 as " + config.user + " in " + config.database +
                              (config.compute_warehouse.empty() ? "" : " on warehouse " + config.compute_warehouse)
                        : r.status().message();
  return probe;
}

std::string SnowflakeLocation(const config::WarehouseConfig& config) {
  std::string extra;
  if (!config.compute_warehouse.empty()) extra += "warehouse " + config.compute_warehouse;
  if (!config.role.empty()) extra += (extra.empty() ? "" : ", ") + std::string("role ") + config.role;
  return "snowflake://" + config.account + "/" + config.database + (extra.empty() ? "" : " (" + extra + ")") + " at " +
         RedactUrl(config.api_url);
}

}  // namespace dw::warehouse
