// Moving SqlValues in and out of SQLite statements: shared by the state store and the SQLite
// warehouse, so both map NULL, integers, doubles and text the same way.
#pragma once

#include <sqlite3.h>

#include "store/sql_connection.h"

namespace dw::store {

// Binds `v` to parameter slot `index` of `stmt` (SqlBytes as a BLOB); returns SQLite's result
// code (SQLITE_MISMATCH for an SqlBytesArray: SQLite has no arrays).
int BindSqliteValue(sqlite3_stmt* stmt, int index, const SqlValue& v);

// The value in column `i` of the current row of `stmt`.
SqlValue ReadSqliteCell(sqlite3_stmt* stmt, int i);

}  // namespace dw::store
