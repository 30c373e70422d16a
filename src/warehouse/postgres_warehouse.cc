#include "warehouse/postgres_warehouse.h"

#include "base/json.h"
#include "store/postgres_connection.h"

namespace dw::warehouse {
namespace {

using SteadyClock = std::chrono::steady_clock;

class PostgresWarehouse final : public Warehouse {
 public:
  PostgresWarehouse(std::string name, std::unique_ptr<store::SqlConnection> conn)
      : name_(std::move(name)), conn_(std::move(conn)), dialect_(PostgresDialect()) {}

  const std::string& name() const override { return name_; }
  const Dialect& dialect() const override { return dialect_; }

  // pg_catalog rather than information_schema: the latter hides tables the role may not read, which
  // would turn "permission denied" into a misleading "not found".
  Result<std::vector<TableId>> ListTables() override {
    Result<QueryOutcome> r = Query(
        "SELECT n.nspname, c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
        "ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f') AND n.nspname NOT IN "
        "('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' ORDER BY 1, 2",
        {}, {});
    if (!r.ok()) return r.status();
    std::vector<TableId> out;
    for (const SqlRow& row : r->rows)
      out.push_back({std::get<std::string>(row[0]), std::get<std::string>(row[1])});
    return out;
  }

  Result<std::optional<TableSchema>> DescribeTable(const TableId& table) override {
    std::string schema = table.schema.empty() ? "public" : table.schema;
    // format_type without a modifier names types as information_schema does ("character varying",
    // "timestamp with time zone").
    Result<QueryOutcome> r = Query(
        "SELECT a.attname, format_type(a.atttypid, NULL), a.attnotnull FROM pg_catalog.pg_attribute a "
        "JOIN pg_catalog.pg_class c ON c.oid = a.attrelid JOIN pg_catalog.pg_namespace n "
        "ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2 AND "
        "c.relkind IN ('r', 'v', 'm', 'p', 'f') AND a.attnum > 0 AND NOT a.attisdropped "
        "ORDER BY a.attnum",
        {schema, table.table}, {});
    if (!r.ok()) return r.status();
    if (r->rows.empty()) return std::optional<TableSchema>();
    TableSchema out;
    out.id = {schema, table.table};
    for (const SqlRow& row : r->rows) {
      out.columns.push_back({std::get<std::string>(row[0]), std::get<std::string>(row[1]),
                             std::get<int64_t>(row[2]) == 0});
    }
    return std::optional<TableSchema>(std::move(out));
  }

  Result<QueryOutcome> Query(const std::string& sql, const std::vector<SqlValue>& params,
                             const QueryOptions& options) override {
    DW_RETURN_IF_ERROR(SetTimeout(options.timeout));
    auto start = SteadyClock::now();
    Result<std::vector<SqlRow>> rows = conn_->Query(sql, params);
    if (!rows.ok()) {
      const Status& s = rows.status();
      // SQLSTATE 57014 is both a timeout and a cancel; the message tells them apart.
      if (s.code() == StatusCode::kCancelled &&
          s.message().find("statement timeout") != std::string::npos) {
        return DeadlineExceeded("the query ran longer than its " +
                                std::to_string(options.timeout.count()) +
                                " ms timeout on warehouse '" + name_ + "' and was cancelled (" +
                                s.message() + ")");
      }
      if (s.message().find("read-only transaction") != std::string::npos) {
        return PermissionDenied("the query would write to warehouse '" + name_ +
                                "'; checks and monitors only read (" + s.message() + ")");
      }
      if (s.code() == StatusCode::kPermissionDenied)
        return PermissionDenied("warehouse '" + name_ + "': " + s.message() +
                                " (the warehouse's user needs USAGE on the schema and SELECT on the table)");
      return Status(s.code(), "warehouse '" + name_ + "': " + s.message());
    }
    QueryOutcome out;
    out.rows = std::move(*rows);
    out.duration =
        std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - start);
    return out;
  }

  Result<std::unique_ptr<Warehouse>> Reopen() override {
    return FailedPrecondition("warehouse '" + name_ + "': PostgreSQL parallelises scans itself");
  }

  Result<std::optional<int64_t>> EstimateRowsRead(const TableId& table, const std::string& where,
                                                  const std::vector<SqlValue>& params) override {
    Result<QueryOutcome> r = Query(
        "EXPLAIN (FORMAT JSON) SELECT 1 FROM " + dialect_.Table(table) + " " + where, params, {});
    if (!r.ok()) return r.status();
    const auto* text = std::get_if<std::string>(&r->rows.at(0).at(0));
    if (text == nullptr) return std::optional<int64_t>();
    Json plan = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (!plan.is_array() || plan.empty() || !plan[0].contains("Plan")) return std::optional<int64_t>();
    const Json& rows = plan[0]["Plan"]["Plan Rows"];
    if (!rows.is_number()) return std::optional<int64_t>();
    return std::optional<int64_t>(rows.get<int64_t>());
  }

 private:
  // Set before every statement, not once: a connection libpq re-established after a drop would
  // otherwise run without a timeout.
  Status SetTimeout(std::chrono::milliseconds timeout) {
    Result<std::vector<SqlRow>> r = conn_->Query("SELECT set_config('statement_timeout', $1, false)",
                                                 {std::to_string(timeout.count())});
    if (!r.ok()) return Status(r.status().code(), "warehouse '" + name_ + "': " + r.status().message());
    return Status::Ok();
  }

  std::string name_;
  std::unique_ptr<store::SqlConnection> conn_;
  const Dialect& dialect_;
};

}  // namespace

Result<std::unique_ptr<Warehouse>> OpenPostgresWarehouse(const std::string& name,
                                                         const std::string& dsn) {
  Result<std::unique_ptr<store::SqlConnection>> conn =
      store::OpenPostgresConnection(dsn, "warehouse '" + name + "'",
                                    "-c default_transaction_read_only=on");
  if (!conn.ok()) return conn.status();
  return std::unique_ptr<Warehouse>(std::make_unique<PostgresWarehouse>(name, std::move(*conn)));
}

}  // namespace dw::warehouse
