#include "warehouse/dialect.h"

namespace dw::warehouse {

std::string TableId::Display() const {
  return schema.empty() || schema == "main" ? table : schema + "." + table;
}

std::string_view Dialect::name() const { return engine_ == Engine::kSqlite ? "sqlite" : "postgres"; }

std::string Dialect::Quote(std::string_view name) const {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string Dialect::Table(const TableId& table) const {
  // SQLite names the table alone: "main" would also work but reads oddly in logged SQL.
  if (engine_ == Engine::kSqlite || table.schema.empty()) return Quote(table.table);
  return Quote(table.schema) + "." + Quote(table.table);
}

std::string Dialect::Param(int n) { return "$" + std::to_string(n); }

std::string Dialect::MaxTime(const std::string& quoted_column, TimeEncoding encoding) const {
  if (engine_ == Engine::kPostgres && encoding == TimeEncoding::kNative) {
    return "(extract(epoch from max(" + quoted_column + ")) * 1000)";
  }
  return "max(" + quoted_column + ")";
}

std::string Dialect::TimeParam(int n, TimeEncoding encoding, const std::string& column_type) const {
  if (engine_ == Engine::kPostgres && encoding == TimeEncoding::kNative) {
    // column_type comes from the catalog and is one of the three native time types.
    return "CAST(" + Param(n) + " AS " + column_type + ")";
  }
  return Param(n);
}

}  // namespace dw::warehouse
