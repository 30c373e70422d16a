// The BigQuery warehouse: every statement is one job through jobs.query (GoogleSQL, named
// parameters for every value), completed by polling jobs.getQueryResults and read page by page.
//
// Tables and columns come from INFORMATION_SCHEMA rather than the tables.list/tables.get REST
// calls: one query lists every dataset's tables in the location (tables.list is one call per
// dataset after a datasets.list), and the catalog reads go through the same job, error and paging
// path as the checks' own statements, so they are tested by the same simulator. The cost is a
// billed metadata query (BigQuery's 10 MB minimum) per listing, which `describe` and a check run
// make once per table at most.
#include "warehouse/bigquery_warehouse.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>

#include "base/json.h"
#include "base/url_redaction.h"
#include "warehouse/bigquery_auth.h"
#include "warehouse/bigquery_rows.h"
#include "warehouse/http_transport.h"

namespace dw::warehouse {
namespace {

using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr int kMaxAttempts = 6;
// Jobs in flight at once from one run: BigQuery's default limit of concurrent interactive queries
// per project is far higher; this keeps one run from taking a team's share.
constexpr int kParallelJobs = 16;
// One wait of jobs.query / getQueryResults on the server before it answers jobComplete:false.
constexpr milliseconds kServerWait{10000};

std::string StringField(const Json& j, const char* key) {
  auto it = j.is_object() ? j.find(key) : j.end();
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Google's error body: {"error": {"code", "message", "errors": [{"reason", "message", "domain"}],
// "status"}}; fields of the wrong type are treated as absent.
struct GoogleError {
  std::string reason;
  std::string message;
};

GoogleError ReadGoogleError(const std::string& body) {
  GoogleError out;
  Json j = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  auto error = j.is_object() ? j.find("error") : j.end();
  if (error == j.end() || !error->is_object()) return out;
  out.message = StringField(*error, "message");
  auto errors = error->find("errors");
  if (errors != error->end() && errors->is_array() && !errors->empty()) {
    out.reason = StringField((*errors)[0], "reason");
    if (out.message.empty()) out.message = StringField((*errors)[0], "message");
  }
  if (out.reason.empty()) out.reason = StringField(*error, "status");
  return out;
}

// Whether BigQuery asks for the call to be made again (its documented retryable reasons, which
// arrive as 403 as well as 429 and 5xx).
bool Retryable(long status, const std::string& reason) {
  if (reason == "rateLimitExceeded" || reason == "backendError" || reason == "internalError") return true;
  return status == 429 || status >= 500;
}

Status MapError(const std::string& warehouse, long status, const GoogleError& e) {
  std::string text = "warehouse '" + warehouse + "': BigQuery answered HTTP " + std::to_string(status) +
                     (e.reason.empty() ? "" : " " + e.reason) + (e.message.empty() ? "" : ": " + e.message);
  if (e.reason == "quotaExceeded") return ResourceExhausted(text);
  if (e.reason == "bytesBilledLimitExceeded")
    return ResourceExhausted(text + " (the warehouse's max_bytes_billed: raise it, or check only new rows with since)");
  if (e.reason == "accessDenied" || status == 403)
    return PermissionDenied(text + " (the service account needs roles/bigquery.jobUser on the project and "
                                   "roles/bigquery.dataViewer on the dataset)");
  if (e.reason == "notFound" || status == 404) return NotFound(text);
  if (e.reason == "invalidQuery" || e.reason == "invalid" || status == 400) return InvalidArgument(text);
  if (status == 401) return PermissionDenied(text + " (the access token was refused twice)");
  return Unavailable(text);
}

// The query parameter of `value`, named p<n> (the dialect's @p<n>).
Result<Json> Parameter(int n, const SqlValue& value) {
  Json p = {{"name", "p" + std::to_string(n)}, {"parameterValue", Json::object()}};
  std::string type = "STRING";
  if (const auto* i = std::get_if<int64_t>(&value)) {
    type = "INT64";
    p["parameterValue"]["value"] = std::to_string(*i);
  } else if (const auto* d = std::get_if<double>(&value)) {
    type = "FLOAT64";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", *d);
    p["parameterValue"]["value"] = std::isnan(*d) ? "NaN" : std::isinf(*d) ? (*d > 0 ? "Infinity" : "-Infinity") : buf;
  } else if (const auto* s = std::get_if<std::string>(&value)) {
    p["parameterValue"]["value"] = *s;
  } else if (!std::holds_alternative<std::monostate>(value)) {
    return InvalidArgument("parameter " + std::to_string(n) + " is bytes; BigQuery checks bind numbers and text");
  }
  // A NULL is a STRING parameter without a value.
  p["parameterType"] = {{"type", type}};
  return p;
}

// The job's labels: {"dw": "checks"} and the caller's, each spelled as BigQuery allows (lower-case
// letters, digits, '_' and '-', at most 63 characters; a key starts with a letter), so that
// INFORMATION_SCHEMA.JOBS attributes the bytes our checks bill.
Json Labels(const QueryOptions& options) {
  auto spell = [](const std::string& text) {
    std::string out;
    for (char c : text) {
      const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      out += (std::isalnum(static_cast<unsigned char>(l)) && static_cast<unsigned char>(l) < 128) || l == '-' || l == '_' ? l : '_';
      if (out.size() == 63) break;
    }
    return out;
  };
  Json labels = {{"dw", "checks"}};
  for (const auto& [k, v] : options.labels) {
    std::string key = spell(k);
    if (key.empty() || !std::isalpha(static_cast<unsigned char>(key[0]))) key = ("l" + key).substr(0, 63);
    labels[key] = spell(v);
  }
  return labels;
}

// One token source per key file and endpoint in the process: a token is fetched once an hour per
// key, however many warehouses use the key.
std::shared_ptr<GoogleTokenSource> SharedTokenSource(const ServiceAccountKey& key, const std::string& key_path,
                                                     const std::string& token_url) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<GoogleTokenSource>> sources;
  std::lock_guard<std::mutex> lock(mu);
  std::shared_ptr<GoogleTokenSource>& source = sources[key_path + "\n" + key.client_email + "\n" + token_url];
  if (!source) source = std::make_shared<GoogleTokenSource>(key, token_url, RealClock());
  return source;
}

class BigQueryWarehouse final : public Warehouse {
 public:
  BigQueryWarehouse(const config::WarehouseConfig& c, HttpClient& http, std::shared_ptr<GoogleTokenSource> tokens)
      : name_(c.name), project_(c.project), location_(c.location.empty() ? "US" : c.location),
        api_url_(c.api_url.empty() ? "https://bigquery.googleapis.com" : c.api_url),
        max_bytes_billed_(c.max_bytes_billed), http_(http), tokens_(std::move(tokens)),
        dialect_(MakeBigQueryDialect(c.project)) {}

  const std::string& name() const override { return name_; }
  const Dialect& dialect() const override { return *dialect_; }

  // Region-qualified: every dataset of the project in the warehouse's location, in one query.
  Result<std::vector<TableId>> ListTables() override {
    Result<QueryOutcome> r = Query("SELECT table_schema, table_name FROM " + dialect_->Quote(project_) + "." +
                                       dialect_->Quote("region-" + Lower(location_)) +
                                       ".INFORMATION_SCHEMA.TABLES ORDER BY table_schema, table_name",
                                   {}, {});
    if (!r.ok()) return r.status();
    std::vector<TableId> out;
    for (const SqlRow& row : r->rows) {
      const auto* schema = std::get_if<std::string>(&row.at(0));
      const auto* table = std::get_if<std::string>(&row.at(1));
      if (schema != nullptr && table != nullptr) out.push_back({*schema, *table});
    }
    return out;
  }

  // A dataset's columns are read once per warehouse object, all its tables in one query: a run over
  // a thousand tables makes one billed metadata query per dataset, not one per table.
  Result<std::optional<TableSchema>> DescribeTable(const TableId& table) override {
    if (table.schema.empty())
      return InvalidArgument("warehouse '" + name_ + "': BigQuery tables are named dataset.table ('" +
                             table.table + "' has no dataset)");
    std::lock_guard<std::mutex> lock(catalog_mu_);
    auto dataset = catalog_.find(table.schema);
    if (dataset == catalog_.end()) {
      Result<QueryOutcome> r = Query("SELECT table_name, column_name, data_type, is_nullable FROM " + dialect_->Quote(project_) +
                                         "." + dialect_->Quote(table.schema) +
                                         ".INFORMATION_SCHEMA.COLUMNS ORDER BY table_name, ordinal_position",
                                     {}, {});
      std::map<std::string, TableSchema> tables;
      // A dataset that does not exist holds no table.
      if (!r.ok() && r.status().code() != StatusCode::kNotFound) return r.status();
      if (r.ok()) {
        for (const SqlRow& row : r->rows) {
          const auto* name = row.size() == 4 ? std::get_if<std::string>(&row[0]) : nullptr;
          const auto* column = row.size() == 4 ? std::get_if<std::string>(&row[1]) : nullptr;
          const auto* type = row.size() == 4 ? std::get_if<std::string>(&row[2]) : nullptr;
          const auto* nullable = row.size() == 4 ? std::get_if<std::string>(&row[3]) : nullptr;
          if (name == nullptr || column == nullptr || type == nullptr) continue;
          TableSchema& t = tables[*name];
          t.id = {table.schema, *name};
          t.columns.push_back({*column, Lower(*type), nullable == nullptr || *nullable != "NO"});
        }
      }
      dataset = catalog_.emplace(table.schema, std::move(tables)).first;
    }
    auto found = dataset->second.find(table.table);
    if (found == dataset->second.end()) return std::optional<TableSchema>();
    return std::optional<TableSchema>(found->second);
  }

  Result<QueryOutcome> Query(const std::string& sql, const std::vector<SqlValue>& params,
                             const QueryOptions& options) override {
    const auto start = SteadyClock::now();
    const auto deadline = start + options.timeout;
    Json body = {{"query", sql}, {"useLegacySql", false}, {"parameterMode", "NAMED"},
                 {"queryParameters", Json::array()}, {"location", location_},
                 {"timeoutMs", std::min(options.timeout, kServerWait).count()}};
    body["labels"] = Labels(options);
    const std::optional<int64_t> cap = options.max_bytes_billed ? options.max_bytes_billed : max_bytes_billed_;
    if (cap) body["maximumBytesBilled"] = std::to_string(*cap);
    for (size_t i = 0; i < params.size(); ++i) {
      Result<Json> p = Parameter(static_cast<int>(i + 1), params[i]);
      if (!p.ok()) return Status(p.status().code(), "warehouse '" + name_ + "': " + p.status().message());
      body["queryParameters"].push_back(std::move(*p));
    }
    Result<Json> r = Call("POST", JoinUrl(api_url_, {"bigquery", "v2", "projects", project_, "queries"}),
                          body.dump(), deadline);
    if (!r.ok()) return r.status();
    const Json reference = r->contains("jobReference") ? (*r)["jobReference"] : Json::object();
    const std::string job = StringField(reference, "jobId");
    const std::string job_location = StringField(reference, "location").empty() ? location_
                                                                                 : StringField(reference, "location");
    milliseconds pause{50};
    while (!Complete(*r)) {
      if (job.empty()) return Unavailable("warehouse '" + name_ + "': BigQuery answered jobComplete:false without a jobId");
      if (SteadyClock::now() + pause >= deadline) {
        Cancel(job, job_location);
        return DeadlineExceeded("warehouse '" + name_ + "': BigQuery job " + job + " did not complete within the " +
                                std::to_string(options.timeout.count()) + " ms timeout and was cancelled");
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, milliseconds(1000));
      r = Results(job, job_location, "", deadline);
      if (!r.ok()) return r.status();
    }
    Result<std::vector<std::string>> types = ScalarColumnTypes(r->contains("schema") ? (*r)["schema"] : Json());
    if (!types.ok()) return Status(types.status().code(), "warehouse '" + name_ + "': " + types.status().message());
    QueryOutcome out;
    for (;;) {
      Status decoded = DecodeBigQueryRows(*types, r->contains("rows") ? (*r)["rows"] : Json(), out.rows);
      if (!decoded.ok()) return Status(decoded.code(), "warehouse '" + name_ + "': " + decoded.message());
      const std::string token = StringField(*r, "pageToken");
      if (token.empty()) break;
      if (job.empty()) return Unavailable("warehouse '" + name_ + "': BigQuery gave a pageToken without a jobId");
      r = Results(job, job_location, token, deadline);
      if (!r.ok()) return r.status();
    }
    const std::string total = StringField(*r, "totalRows");
    if (!total.empty() && total != std::to_string(out.rows.size()))
      return DataLoss("warehouse '" + name_ + "': BigQuery job " + job + " reported " + total + " rows but its pages held " +
                      std::to_string(out.rows.size()));
    out.duration = std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - start);
    out.bytes_billed = Int64Field(*r, "totalBytesBilled");
    if (!out.bytes_billed) out.bytes_billed = Int64Field(*r, "totalBytesProcessed");
    return out;
  }

  // A dry run: BigQuery validates and prices the statement without running it. It reports the
  // bytes it would process; what is billed is that rounded up to a whole MB, and at least 10 MB.
  Result<std::optional<int64_t>> EstimateBytesBilled(const std::string& sql, const std::vector<SqlValue>& params) override {
    Json body = {{"query", sql}, {"useLegacySql", false}, {"parameterMode", "NAMED"}, {"dryRun", true},
                 {"queryParameters", Json::array()}, {"location", location_}};
    for (size_t i = 0; i < params.size(); ++i) {
      Result<Json> p = Parameter(static_cast<int>(i + 1), params[i]);
      if (!p.ok()) return Status(p.status().code(), "warehouse '" + name_ + "': " + p.status().message());
      body["queryParameters"].push_back(std::move(*p));
    }
    Result<Json> r = Call("POST", JoinUrl(api_url_, {"bigquery", "v2", "projects", project_, "queries"}), body.dump(),
                          SteadyClock::now() + std::chrono::seconds(30));
    if (!r.ok()) return r.status();
    std::optional<int64_t> processed = Int64Field(*r, "totalBytesProcessed");
    if (!processed) return Unavailable("warehouse '" + name_ + "': BigQuery's dry run gave no totalBytesProcessed");
    constexpr int64_t kMb = 1 << 20;
    return std::optional<int64_t>(std::max<int64_t>(10 * kMb, (*processed + kMb - 1) / kMb * kMb));
  }

  Result<std::unique_ptr<Warehouse>> Reopen() override {
    return FailedPrecondition("warehouse '" + name_ + "': BigQuery parallelises scans itself");
  }

  // Jobs run side by side on the service; the client is thread-safe (one curl handle per call,
  // the token source and the catalog cache behind their own locks).
  int ParallelStatements() const override { return kParallelJobs; }

  // No estimate without a dry run, which bills nothing but prices bytes, not rows.
  Result<std::optional<int64_t>> EstimateRowsRead(const TableId&, const std::string&,
                                                  const std::vector<SqlValue>&) override {
    return std::optional<int64_t>();
  }

 private:
  static std::string Lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }

  // An int64 BigQuery sends as a decimal string.
  static std::optional<int64_t> Int64Field(const Json& j, const char* key) {
    const std::string text = StringField(j, key);
    if (text.empty()) return std::nullopt;
    int64_t n = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return n;
  }

  static bool Complete(const Json& r) {
    auto it = r.find("jobComplete");
    return it != r.end() && it->is_boolean() && it->get<bool>();
  }

  // jobs.getQueryResults for `job`, from `page_token` ("" for the first page).
  Result<Json> Results(const std::string& job, const std::string& location, const std::string& page_token,
                       SteadyClock::time_point deadline) {
    std::string url = JoinUrl(api_url_, {"bigquery", "v2", "projects", project_, "queries", job}) +
                      "?location=" + EncodePathSegment(location) + "&timeoutMs=" +
                      std::to_string(kServerWait.count());
    if (!page_token.empty()) url += "&pageToken=" + EncodePathSegment(page_token);
    return Call("GET", url, "", deadline);
  }

  // jobs.cancel, best effort: a job past its statement's timeout would otherwise run (and bill)
  // to its end. Its own failure changes nothing for the caller, who already has the deadline.
  void Cancel(const std::string& job, const std::string& location) {
    const std::string url = JoinUrl(api_url_, {"bigquery", "v2", "projects", project_, "jobs", job, "cancel"}) +
                            "?location=" + EncodePathSegment(location);
    (void)Call("POST", url, "", SteadyClock::now() + std::chrono::seconds(5));
  }

  // One API call with the access token: a 401 fetches a new token once; rateLimitExceeded,
  // backendError and 5xx are retried with exponential backoff while the deadline allows.
  Result<Json> Call(const std::string& method, const std::string& url, const std::string& body,
                    SteadyClock::time_point deadline) {
    milliseconds backoff{100};
    bool refreshed = false;
    for (int attempt = 1;; ++attempt) {
      Result<std::string> token = tokens_->Token(http_);
      if (!token.ok()) return Status(token.status().code(), "warehouse '" + name_ + "': " + token.status().message());
      HttpRequest req;
      req.method = method;
      req.url = url;
      req.body = body;
      if (method == "POST") req.headers = {{"Content-Type", "application/json"}};
      req.bearer_token = *token;
      const auto left = std::chrono::duration_cast<milliseconds>(deadline - SteadyClock::now());
      req.timeout = std::max(milliseconds(1000), std::min(left, kServerWait + milliseconds(20000)));
      Result<HttpResponse> res = http_.Send(req);
      long status = 0;
      GoogleError error;
      if (res.ok()) {
        status = res->status;
        if (status == 200) {
          Json j = Json::parse(res->body, nullptr, /*allow_exceptions=*/false);
          if (!j.is_object()) return Unavailable("warehouse '" + name_ + "': BigQuery answered 200 with a body that is not JSON");
          return j;
        }
        error = ReadGoogleError(res->body);
        if (status == 401 && !refreshed) {
          tokens_->Invalidate();
          refreshed = true;
          --attempt;
          continue;
        }
      }
      const bool again = res.ok() ? Retryable(status, error.reason) : res.status().code() == StatusCode::kUnavailable;
      if (!again || attempt >= kMaxAttempts || SteadyClock::now() + backoff >= deadline) {
        if (!res.ok())
          return Status(res.status().code(), "warehouse '" + name_ + "': BigQuery at " + RedactUrl(api_url_) +
                                                 " could not be reached: " + res.status().message());
        Status s = MapError(name_, status, error);
        if (again) return Unavailable(s.message() + " (still failing after " + std::to_string(attempt) + " attempts)");
        return s;
      }
      std::this_thread::sleep_for(backoff);
      backoff *= 2;
    }
  }

  std::string name_, project_, location_, api_url_;
  std::optional<int64_t> max_bytes_billed_;
  std::mutex catalog_mu_;
  std::map<std::string, std::map<std::string, TableSchema>> catalog_;  // dataset -> table -> columns
  HttpClient& http_;
  std::shared_ptr<GoogleTokenSource> tokens_;
  std::unique_ptr<Dialect> dialect_;
};

}  // namespace

Result<std::unique_ptr<Warehouse>> OpenBigQueryWarehouse(const config::WarehouseConfig& config, HttpClient* http) {
  if (http == nullptr) return NoHttpClient(config, "BigQuery");
  if (config.project.empty()) return InvalidArgument("warehouse '" + config.name + "': a bigquery warehouse needs 'project'");
  if (config.credentials.empty())
    return InvalidArgument("warehouse '" + config.name + "': a bigquery warehouse needs 'credentials' (a service-account key file)");
  Result<ServiceAccountKey> key = ReadServiceAccountKey(config.credentials);
  if (!key.ok()) return Status(key.status().code(), "warehouse '" + config.name + "': " + key.status().message());
  auto tokens = SharedTokenSource(*key, config.credentials, config.token_url);
  return std::unique_ptr<Warehouse>(std::make_unique<BigQueryWarehouse>(config, *http, std::move(tokens)));
}

WarehouseProbe ProbeBigQueryWarehouse(const config::WarehouseConfig& config, std::chrono::milliseconds timeout,
                                      HttpClient* http) {
  WarehouseProbe probe;
  const auto start = SteadyClock::now();
  Result<std::unique_ptr<Warehouse>> wh = OpenBigQueryWarehouse(config, http);
  Result<QueryOutcome> r = wh.ok() ? (*wh)->Query("SELECT 1", {}, {timeout}) : Result<QueryOutcome>(wh.status());
  probe.latency = std::chrono::duration_cast<milliseconds>(SteadyClock::now() - start);
  probe.reachable = r.ok();
  probe.detail = r.ok() ? "ran SELECT 1 as a job in project " + config.project + " (" + config.location + ")"
                        : r.status().message();
  return probe;
}

std::string BigQueryLocation(const config::WarehouseConfig& config) {
  return "bigquery://" + config.project + " (" + (config.location.empty() ? "US" : config.location) + ") at " +
         RedactUrl(config.api_url.empty() ? "https://bigquery.googleapis.com" : config.api_url);
}

}  // namespace dw::warehouse
