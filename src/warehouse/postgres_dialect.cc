// PostgreSQL's dialect: schema-qualified names, native timestamp types read as epoch milliseconds
// and compared against a parameter cast to the column's own type (so an index on it is used),
// and declared types that hold.
#include "warehouse/postgres_warehouse.h"

namespace dw::warehouse {
namespace {

class PostgresDialectImpl final : public Dialect {
 public:
  std::string_view name() const override { return "postgres"; }
  TableId TableOf(const std::string& schema, const std::string& table) const override {
    return {schema.empty() ? "public" : schema, table};
  }
  std::string Table(const TableId& table) const override {
    if (table.schema.empty()) return Quote(table.table);
    return Quote(table.schema) + "." + Quote(table.table);
  }
  std::string MaxTime(const std::string& quoted_column, TimeEncoding encoding) const override {
    if (encoding == TimeEncoding::kNative) return "(extract(epoch from max(" + quoted_column + ")) * 1000)";
    return "max(" + quoted_column + ")";
  }
  std::string TimeParam(int n, TimeEncoding encoding, const std::string& column_type) const override {
    // column_type comes from the catalog and is one of the native time types.
    if (encoding == TimeEncoding::kNative) return "CAST(" + Param(n) + " AS " + column_type + ")";
    return Param(n);
  }
  bool IsNativeTimeType(const std::string& type) const override {
    return type == "timestamp with time zone" || type == "timestamp without time zone" || type == "date";
  }
  bool EnforcesColumnTypes() const override { return true; }
  std::string_view RowIdColumn() const override { return ""; }
  std::string ReadGrant(const TableId& table) const override {
    return "GRANT USAGE ON SCHEMA " + Quote(table.schema) + " TO <user>; GRANT SELECT ON " + Table(table) +
           " TO <user> (the user of the warehouse's dsn)";
  }
};

}  // namespace

const Dialect& PostgresDialect() {
  static const PostgresDialectImpl kDialect;
  return kDialect;
}

}  // namespace dw::warehouse
