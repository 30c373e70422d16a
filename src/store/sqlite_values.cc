#include "store/sqlite_values.h"

namespace dw::store {

int BindSqliteValue(sqlite3_stmt* stmt, int index, const SqlValue& v) {
  if (std::holds_alternative<std::monostate>(v)) return sqlite3_bind_null(stmt, index);
  if (const auto* n = std::get_if<int64_t>(&v)) return sqlite3_bind_int64(stmt, index, *n);
  if (const auto* d = std::get_if<double>(&v)) return sqlite3_bind_double(stmt, index, *d);
  // The caller's bytes outlive the binding: statements are reset and their bindings cleared
  // before Query returns.
  if (const auto* b = std::get_if<SqlBytes>(&v))
    return sqlite3_bind_blob64(stmt, index, b->bytes.data(), b->bytes.size(), SQLITE_STATIC);
  if (std::holds_alternative<SqlBytesArray>(v)) return SQLITE_MISMATCH;  // SQLite has no arrays
  const std::string& s = std::get<std::string>(v);
  return sqlite3_bind_text64(stmt, index, s.data(), s.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
}

SqlValue ReadSqliteCell(sqlite3_stmt* stmt, int i) {
  switch (sqlite3_column_type(stmt, i)) {
    case SQLITE_NULL:
      return std::monostate{};
    case SQLITE_INTEGER:
      return static_cast<int64_t>(sqlite3_column_int64(stmt, i));
    case SQLITE_FLOAT:
      return sqlite3_column_double(stmt, i);
    default: {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, i));
      int len = sqlite3_column_bytes(stmt, i);
      return std::string(text != nullptr ? text : "", static_cast<size_t>(len));
    }
  }
}

}  // namespace dw::store
