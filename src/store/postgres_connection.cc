#include "store/postgres_connection.h"
#include "store/sql_operation.h"

#include <libpq-fe.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

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
constexpr Oid kByteaOid = 17;
constexpr Oid kNameOid = 19;
constexpr Oid kTextOid = 25;
constexpr Oid kBpcharOid = 1042;
constexpr Oid kVarcharOid = 1043;
constexpr Oid kByteaArrayOid = 1001;

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
    return Exec(sql, params, /*binary_results=*/false);
  }
  Result<std::vector<SqlRow>> QueryBytes(const std::string& sql, const std::vector<SqlValue>& params) override {
    return Exec(sql, params, /*binary_results=*/true);
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

  // Runs one statement. Parameters travel separately from it: numbers and text as text (the
  // server infers their types), bytes in binary form typed BYTEA or BYTEA[]. The result comes as
  // text, or all in binary form when `binary_results` (see QueryBytes).
  Result<std::vector<SqlRow>> Exec(const std::string& sql, const std::vector<SqlValue>& params,
                                   bool binary_results) {
    DW_RETURN_IF_ERROR(EnsureConnected());
    const size_t n = params.size();
    std::vector<std::string> text(n);
    std::vector<const char*> values(n, nullptr);
    std::vector<int> lengths(n, 0), formats(n, 0);
    std::vector<Oid> types(n, 0);
    for (size_t i = 0; i < n; ++i) {
      const SqlValue& v = params[i];
      if (std::holds_alternative<std::monostate>(v)) continue;
      if (const auto* num = std::get_if<int64_t>(&v)) {
        text[i] = std::to_string(*num);
      } else if (const auto* d = std::get_if<double>(&v)) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", *d);  // round-trips every double exactly
        text[i] = buf;
      } else if (const auto* b = std::get_if<SqlBytes>(&v)) {
        values[i] = b->bytes.data();
        lengths[i] = static_cast<int>(b->bytes.size());
        formats[i] = 1;
        types[i] = kByteaOid;
        continue;
      } else if (const auto* a = std::get_if<SqlBytesArray>(&v)) {
        text[i] = BinaryByteaArray(a->items);
        formats[i] = 1;
        types[i] = kByteaArrayOid;
      } else {
        text[i] = std::get<std::string>(v);
      }
      values[i] = text[i].data();
      lengths[i] = static_cast<int>(text[i].size());
    }
    for (size_t i = 0; i < n; ++i) {
      const size_t size = std::holds_alternative<SqlBytes>(params[i]) ? std::get<SqlBytes>(params[i]).bytes.size()
                                                                       : text[i].size();
      if (size > static_cast<size_t>(std::numeric_limits<int>::max()))
        return InvalidArgument("PostgreSQL statement (" + SqlOperation(sql) + "): parameter $" + std::to_string(i + 1) +
                               " is " + std::to_string(size) + " bytes, more than one statement can carry");
    }
    PGresult* res = PQexecParams(conn_, sql.c_str(), static_cast<int>(n), types.data(), values.data(),
                                 lengths.data(), formats.data(), binary_results ? 1 : 0);
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
    if (binary_results) {
      for (int c = 0; c < ncols; ++c)
        if (!BinaryReadable(PQftype(res, c)))
          return InvalidArgument("PostgreSQL statement (" + SqlOperation(sql) + "): column " + std::to_string(c + 1) +
                                 " is of type oid " + std::to_string(PQftype(res, c)) +
                                 ", which is not read in binary form (select it as text)");
    }
    rows.reserve(static_cast<size_t>(nrows));
    for (int r = 0; r < nrows; ++r) {
      SqlRow row;
      row.reserve(static_cast<size_t>(ncols));
      for (int c = 0; c < ncols; ++c) {
        if (!binary_results) {
          row.push_back(Cell(res, r, c));
          continue;
        }
        auto cell = BinaryCell(res, r, c);
        if (!cell.ok())
          return Status(cell.status().code(), "PostgreSQL statement (" + SqlOperation(sql) + "): " +
                                                  cell.status().message());
        row.push_back(std::move(cell).value());
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

  static bool BinaryReadable(Oid type) {
    switch (type) {
      case kInt8Oid:
      case kInt4Oid:
      case kInt2Oid:
      case kOidOid:
      case kFloat4Oid:
      case kFloat8Oid:
      case kBoolOid:
      case kByteaOid:
      case kTextOid:
      case kVarcharOid:
      case kBpcharOid:
      case kNameOid:
        return true;
      default:
        return false;
    }
  }

  // A cell of a binary result (BinaryReadable types): integers and floats in network byte order,
  // text and bytes as they are. DataLoss when the server's length does not fit the type.
  static Result<SqlValue> BinaryCell(const PGresult* res, int r, int c) {
    if (PQgetisnull(res, r, c)) return SqlValue{std::monostate{}};
    const auto* v = reinterpret_cast<const unsigned char*>(PQgetvalue(res, r, c));
    const size_t len = static_cast<size_t>(PQgetlength(res, r, c));
    const Oid type = PQftype(res, c);
    auto big_endian = [&](size_t width) -> Result<uint64_t> {
      if (len != width)
        return DataLoss("column " + std::to_string(c + 1) + " of type oid " + std::to_string(type) + " came as " +
                        std::to_string(len) + " bytes, not " + std::to_string(width));
      uint64_t u = 0;
      for (size_t k = 0; k < width; ++k) u = (u << 8) | v[k];
      return u;
    };
    switch (type) {
      case kInt8Oid: {
        auto u = big_endian(8);
        if (!u.ok()) return u.status();
        return SqlValue{static_cast<int64_t>(*u)};
      }
      case kInt4Oid: {
        auto u = big_endian(4);
        if (!u.ok()) return u.status();
        return SqlValue{static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(*u)))};
      }
      case kInt2Oid: {
        auto u = big_endian(2);
        if (!u.ok()) return u.status();
        return SqlValue{static_cast<int64_t>(static_cast<int16_t>(static_cast<uint16_t>(*u)))};
      }
      case kOidOid: {
        auto u = big_endian(4);
        if (!u.ok()) return u.status();
        return SqlValue{static_cast<int64_t>(*u)};
      }
      case kFloat8Oid: {
        auto u = big_endian(8);
        if (!u.ok()) return u.status();
        double d;
        std::memcpy(&d, &*u, 8);
        return SqlValue{d};
      }
      case kFloat4Oid: {
        auto u = big_endian(4);
        if (!u.ok()) return u.status();
        uint32_t w = static_cast<uint32_t>(*u);
        float f;
        std::memcpy(&f, &w, 4);
        return SqlValue{static_cast<double>(f)};
      }
      case kBoolOid: {
        auto u = big_endian(1);
        if (!u.ok()) return u.status();
        return SqlValue{static_cast<int64_t>(*u != 0 ? 1 : 0)};
      }
      default:
        return SqlValue{std::string(reinterpret_cast<const char*>(v), len)};
    }
  }

  // `items` as a one-dimensional BYTEA[] in the server's binary array form (array_recv): the
  // dimensions, the element type, then each element's length and bytes, in network byte order.
  static std::string BinaryByteaArray(const std::vector<std::string>& items) {
    size_t size = 20;
    for (const std::string& item : items) size += 4 + item.size();
    std::string out;
    out.reserve(size);
    auto put32 = [&out](uint32_t u) {
      const char b[4] = {static_cast<char>(u >> 24), static_cast<char>(u >> 16), static_cast<char>(u >> 8),
                         static_cast<char>(u)};
      out.append(b, 4);
    };
    put32(items.empty() ? 0 : 1);  // dimensions (an empty array has none)
    put32(0);                      // no NULL element
    put32(kByteaOid);
    if (!items.empty()) {
      put32(static_cast<uint32_t>(items.size()));
      put32(1);  // lower bound
    }
    for (const std::string& item : items) {
      put32(static_cast<uint32_t>(item.size()));
      out += item;
    }
    return out;
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
