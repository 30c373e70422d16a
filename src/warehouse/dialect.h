// How one SQL engine spells what checks need: quoted identifiers, qualified table names and the
// expressions that read and compare time columns. Names are always quoted, so any name the
// catalog holds (spaces, quotes, capitals, look-alike unicode) is addressed exactly and cannot
// change the statement.
#pragma once

#include <string>
#include <string_view>

namespace dw::warehouse {

// A table as the engine's catalog names it. SQLite has one schema, "main".
struct TableId {
  std::string schema;
  std::string table;

  bool operator==(const TableId&) const = default;
  // "schema.table" (SQLite: "table"), for messages.
  std::string Display() const;
};

// How a time column stores its values, which decides how it is read and compared.
enum class TimeEncoding {
  kNative,        // PostgreSQL timestamp, timestamptz or date
  kEpochSeconds,  // a number of seconds since 1970
  kEpochMillis,   // a number of milliseconds since 1970
  kText,          // ISO 8601 text (SQLite's usual choice)
};

// One engine's spelling. Each back end defines its own (sqlite_dialect.cc, postgres_dialect.cc)
// and registers it with its `type:` name (warehouse/backends.h, FindDialect), so the check code
// asks the dialect what the engine can do and never which engine it is: adding DuckDB or BigQuery
// is one dialect in its own file and one registry entry.
class Dialect {
 public:
  virtual ~Dialect() = default;

  // The workspace's `type:` name ("sqlite", "postgres").
  virtual std::string_view name() const = 0;

  // `name` quoted so that the engine reads it as exactly that identifier. The default is SQL's rule
  // (double quotes, embedded double quotes doubled; SQLite, PostgreSQL); BigQuery uses backticks.
  virtual std::string Quote(std::string_view name) const;
  // The catalog's name for the table a workspace reference gives as `schema` (possibly empty) and
  // `table`: SQLite has the one schema "main", PostgreSQL's default is "public".
  virtual TableId TableOf(const std::string& schema, const std::string& table) const = 0;
  // The quoted, qualified table name used in FROM.
  virtual std::string Table(const TableId& table) const = 0;
  // The n-th parameter (1-based), bound to the n-th value passed to Warehouse::Query. The default
  // is $N (SQLite's and PostgreSQL's drivers); BigQuery names its parameters (@pN).
  virtual std::string Param(int n) const;

  // An aggregate counting the rows for which `condition` holds. The default is the SQL standard's
  // `count(*) FILTER (WHERE ...)` (SQLite 3.30+, PostgreSQL 9.4+); BigQuery has no FILTER clause
  // and spells it countif.
  virtual std::string CountWhere(const std::string& condition) const;

  // An expression giving the latest value of `quoted_column` in a form the caller converts to
  // Unix milliseconds: for a native time column the epoch in milliseconds, else the raw maximum.
  virtual std::string MaxTime(const std::string& quoted_column, TimeEncoding encoding) const = 0;
  // The right-hand side comparing a time column with parameter n (an engine with native time types
  // casts the text parameter to the column's own type so an index on it is used).
  virtual std::string TimeParam(int n, TimeEncoding encoding, const std::string& column_type) const = 0;

  // Whether the catalog type `column_type` is one of the engine's native time types (then values
  // are read and compared as kNative).
  virtual bool IsNativeTimeType(const std::string& column_type) const = 0;
  // Whether the engine enforces declared column types, so that a column declared as, say, boolean
  // can be refused as a time column from the catalog alone (SQLite's declared types are advisory:
  // its values must be sampled).
  virtual bool EnforcesColumnTypes() const = 0;
  // The column that numbers a table's rows densely enough to split a scan into ranges read in
  // parallel ("rowid" on SQLite), or "" when the engine has none worth splitting on.
  virtual std::string_view RowIdColumn() const = 0;
  // What an administrator grants so that the warehouse's configured user may read `table`, in the
  // engine's own terms (a GRANT statement, an IAM role): what `dw doctor` names when a checked
  // table cannot be read.
  virtual std::string ReadGrant(const TableId& table) const = 0;
};

}  // namespace dw::warehouse
