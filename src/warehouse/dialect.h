// How one SQL engine spells what checks need: quoted identifiers, qualified table names and the
// expressions that read and compare time columns. Names are always quoted, so any name the
// catalog holds (spaces, quotes, capitals, look-alike unicode) is addressed exactly and cannot
// change the statement.
#pragma once

#include <string>
#include <string_view>

namespace dw::warehouse {

enum class Engine { kSqlite, kPostgres };

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

class Dialect {
 public:
  explicit Dialect(Engine engine) : engine_(engine) {}

  Engine engine() const { return engine_; }
  // "sqlite" or "postgres", as the workspace spells the type.
  std::string_view name() const;

  // `name` in double quotes with embedded double quotes doubled (both engines follow SQL here).
  std::string Quote(std::string_view name) const;
  // The quoted, qualified table name used in FROM.
  std::string Table(const TableId& table) const;
  // The n-th parameter (1-based); both engines accept $N.
  static std::string Param(int n);

  // An expression giving the latest value of `quoted_column` in a form the caller converts to
  // Unix milliseconds: for kNative on PostgreSQL the epoch in milliseconds, else the raw maximum.
  std::string MaxTime(const std::string& quoted_column, TimeEncoding encoding) const;
  // The right-hand side comparing a time column with parameter n (PostgreSQL casts the text
  // parameter to the column's own type so an index on it is used).
  std::string TimeParam(int n, TimeEncoding encoding, const std::string& column_type) const;

 private:
  Engine engine_;
};

}  // namespace dw::warehouse
