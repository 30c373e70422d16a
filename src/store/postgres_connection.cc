#include "store/postgres_connection.h"
#include "store/sql_operation.h"

#include <libpq-fe.h>

#include <cstdio>
#include <cstdlib>

#include "store/location.h"

namespace dw::store {
namespace {

// Type OIDs from pg_type.h (stable across PostgreSQL versions; the server headers are not needed).
constexpr Oid kBoolOid = 16;
constexpr Oid kInt8Oid = 20;
constexpr Oid kInt2Oid = 21;
constexpr Oid kInt4Oid = 23;
constexpr Oid kOidOid = 26;
constexpr Oid kFloat4Oid = 700;
constexpr Oid kFloat8Oid = 701;
constexpr Oid kNumericOid = 1700;

// Any key works as long as every Data Workers build uses the same one: "dw" + schema_migrations.
constexpr int64_t kMigrationLockKey = 0x64770001;

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Maps a failed result's SQLSTATE to the Status a caller can branch on.
Status PostgresError(const PGresult* res, const std::string& message) {
  const char* state = res != nullptr ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  std::string code = state != nullptr ? state : "";
  std::string cls = code.substr(0, 2);
  if (code == "23505") return Status(StatusCode::kAlreadyExists, message);
  if (cls == "23" || cls == "22") return InvalidArgument(message);
  // Connection loss, serialization failure and deadlock are transient: the caller may retry.
  if (cls == "08" || code == "40001" || code == "40P01" || code == "57P01" || code.empty()) {
    return Unavailable(message);
  }
  if (cls == "53") return ResourceExhausted(message);
  if (code == "57014") return Cancelled(message);
  if (cls == "42" && code == "42501") return PermissionDenied(message);
  return Internal(message);
}

class PostgresConnection final : public SqlConnection {
 public:
  PostgresConnection(PGconn* conn, std::string url)
      : conn_(conn), url_(std::move(url)), display_(RedactLocation(url_)) {}
  ~PostgresConnection() override { PQfinish(conn_); }
  PostgresConnection(const PostgresConnection&) = delete;
  PostgresConnection& operator=(const PostgresConnection&) = delete;

  std::string backend() const override { return "postgresql"; }
  const std::string& display_location() const override { return display_; }

  Result<std::vector<SqlRow>> Query(const std::string& sql,
                                    const std::vector<SqlValue>& params) override {
    DW_RETURN_IF_ERROR(EnsureConnected());
    // Parameters travel as text, separately from the statement; the server infers their types.
    std::vector<std::string> text(params.size());
    std::vector<const char*> values(params.size(), nullptr);
    for (size_t i = 0; i < params.size(); ++i) {
      const SqlValue& v = params[i];
      if (std::holds_alternative<std::monostate>(v)) continue;
      if (const auto* n = std::get_if<int64_t>(&v)) {
        text[i] = std::to_string(*n);
      } else if (const auto* d = std::get_if<double>(&v)) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", *d);  // round-trips every double exactly
        text[i] = buf;
      } else {
        text[i] = std::get<std::string>(v);
      }
      values[i] = text[i].c_str();
    }
    PGresult* res = PQexecParams(conn_, sql.c_str(), static_cast<int>(params.size()), nullptr,
                                 values.data(), nullptr, nullptr, 0);
    struct Clear {
      PGresult* r;
      ~Clear() { PQclear(r); }
    } clear{res};
    ExecStatusType st = res != nullptr ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
      std::string detail = res != nullptr ? PQresultErrorMessage(res) : PQerrorMessage(conn_);
      return PostgresError(res, "PostgreSQL statement (" + SqlOperation(sql) + ") failed on " + display_ + ": " +
                                    RedactPasswordIn(Trim(detail), url_));
    }
    std::vector<SqlRow> rows;
    int nrows = PQntuples(res);
    int ncols = PQnfields(res);
    rows.reserve(static_cast<size_t>(nrows));
    for (int r = 0; r < nrows; ++r) {
      SqlRow row;
      row.reserve(static_cast<size_t>(ncols));
      for (int c = 0; c < ncols; ++c) row.push_back(Cell(res, r, c));
      rows.push_back(std::move(row));
    }
    return rows;
  }

  Status ExecScript(const std::string& sql) override {
    DW_RETURN_IF_ERROR(EnsureConnected());
    // PQexec (not PQexecParams) accepts several statements in one string.
    PGresult* res = PQexec(conn_, sql.c_str());
    ExecStatusType st = res != nullptr ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    Status s;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
      std::string detail = res != nullptr ? PQresultErrorMessage(res) : PQerrorMessage(conn_);
      s = PostgresError(res, "PostgreSQL script failed on " + display_ + ": " +
                                 RedactPasswordIn(Trim(detail), url_));
    }
    PQclear(res);
    return s;
  }

  Status Begin() override {
    Status begun = Query("BEGIN", {}).status();
    // A connection the server dropped while idle is only noticed on use; nothing has happened
    // yet at BEGIN, so reconnecting and retrying once is safe.
    if (!begun.ok() && PQstatus(conn_) != CONNECTION_OK) begun = Query("BEGIN", {}).status();
    DW_RETURN_IF_ERROR(begun);
    in_transaction_ = true;
    return Status::Ok();
  }
  Status Commit() override {
    DW_RETURN_IF_ERROR(EnsureConnected());
    PGresult* res = PQexec(conn_, "COMMIT");
    in_transaction_ = false;
    Status s;
    if (res == nullptr || PQresultStatus(res) != PGRES_COMMAND_OK) {
      std::string detail = res != nullptr ? PQresultErrorMessage(res) : PQerrorMessage(conn_);
      s = PostgresError(res, "PostgreSQL commit failed on " + display_ + ": " +
                                 RedactPasswordIn(Trim(detail), url_));
    } else if (std::string(PQcmdStatus(res)) == "ROLLBACK") {
      // COMMIT of a transaction that already failed "succeeds" by rolling back.
      s = Internal("PostgreSQL rolled back instead of committing on " + display_);
    }
    PQclear(res);
    return s;
  }
  Status Rollback() override {
    in_transaction_ = false;
    if (PQstatus(conn_) != CONNECTION_OK) return Status::Ok();  // the server already dropped it
    return Query("ROLLBACK", {}).status();
  }
  Status LockForMigration() override {
    return Query("SELECT pg_advisory_xact_lock($1)", {SqlValue{kMigrationLockKey}}).status();
  }

 private:
  // Reconnects a dropped connection, but never inside a transaction: the statements after the
  // drop would silently run outside it.
  Status EnsureConnected() {
    if (PQstatus(conn_) == CONNECTION_OK) return Status::Ok();
    if (in_transaction_) {
      return Unavailable("lost the connection to the state store at " + display_ +
                         " inside a transaction");
    }
    PQreset(conn_);
    if (PQstatus(conn_) != CONNECTION_OK) {
      return Unavailable("lost the connection to the state store at " + display_ + ": " +
                         RedactPasswordIn(Trim(PQerrorMessage(conn_)), url_));
    }
    return Status::Ok();
  }

  static SqlValue Cell(const PGresult* res, int r, int c) {
    if (PQgetisnull(res, r, c)) return std::monostate{};
    const char* v = PQgetvalue(res, r, c);
    switch (PQftype(res, c)) {
      case kInt8Oid:
      case kInt4Oid:
      case kInt2Oid:
      case kOidOid:
        return static_cast<int64_t>(std::strtoll(v, nullptr, 10));
      case kFloat4Oid:
      case kFloat8Oid:
      case kNumericOid:
        return std::strtod(v, nullptr);  // also parses NaN and Infinity
      case kBoolOid:
        return static_cast<int64_t>(v[0] == 't' ? 1 : 0);
      default:
        return std::string(v, static_cast<size_t>(PQgetlength(res, r, c)));
    }
  }

  PGconn* conn_;
  std::string url_;
  std::string display_;
  bool in_transaction_ = false;
};

// libpq prints NOTICEs ("relation already exists, skipping") to stderr by default; stderr is for
// our log, so they are dropped.
void IgnoreNotice(void*, const char*) {}

// The `options` the connection string itself sets (e.g. "-c search_path=x"), or "".
std::string OptionsIn(const std::string& url) {
  char* err = nullptr;
  PQconninfoOption* parsed = PQconninfoParse(url.c_str(), &err);
  if (err != nullptr) PQfreemem(err);
  std::string options;
  for (PQconninfoOption* o = parsed; o != nullptr && o->keyword != nullptr; ++o)
    if (std::string_view(o->keyword) == "options" && o->val != nullptr) options = o->val;
  PQconninfoFree(parsed);
  return options;
}

}  // namespace

Result<std::unique_ptr<SqlConnection>> OpenPostgresConnection(const std::string& url,
                                                              const std::string& purpose,
                                                              const std::string& server_options) {
  // connect_timeout comes before the expanded URL so that a timeout in the URL wins; options come
  // after it (and include the URL's own) so server_options hold on every reconnect too.
  std::string timeout = std::to_string(kPostgresConnectTimeoutSeconds);
  std::string options = OptionsIn(url);
  if (!server_options.empty()) options += (options.empty() ? "" : " ") + server_options;
  const char* keywords[] = {"connect_timeout", "fallback_application_name", "dbname",
                            options.empty() ? nullptr : "options", nullptr};
  const char* values[] = {timeout.c_str(), "dw", url.c_str(), options.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn == nullptr) return ResourceExhausted("libpq could not allocate a connection");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string detail = RedactPasswordIn(Trim(PQerrorMessage(conn)), url);
    PQfinish(conn);
    return Unavailable("could not connect to " + purpose + " at " + RedactLocation(url) + ": " +
                       detail);
  }
  PQsetNoticeProcessor(conn, IgnoreNotice, nullptr);
  return std::unique_ptr<SqlConnection>(std::make_unique<PostgresConnection>(conn, url));
}

}  // namespace dw::store
