// SQLite's dialect: one schema per file, dynamic typing (declared types are advisory, so time
// columns are sampled), and a rowid on every ordinary table.
#include "warehouse/sqlite_warehouse.h"

namespace dw::warehouse {
namespace {

class SqliteDialectImpl final : public Dialect {
 public:
  std::string_view name() const override { return "sqlite"; }
  TableId TableOf(const std::string&, const std::string& table) const override { return {"main", table}; }
  // The table alone: "main" would also work but reads oddly in logged SQL.
  std::string Table(const TableId& table) const override { return Quote(table.table); }
  std::string MaxTime(const std::string& quoted_column, TimeEncoding) const override {
    return "max(" + quoted_column + ")";
  }
  std::string TimeParam(int n, TimeEncoding, const std::string&) const override { return Param(n); }
  bool IsNativeTimeType(const std::string&) const override { return false; }
  bool EnforcesColumnTypes() const override { return false; }
  std::string_view RowIdColumn() const override { return "rowid"; }
  std::string ReadGrant(const TableId&) const override {
    return "read permission on the database file (and its folder) for the user that runs dw";
  }
};

}  // namespace

const Dialect& SqliteDialect() {
  static const SqliteDialectImpl kDialect;
  return kDialect;
}

}  // namespace dw::warehouse
