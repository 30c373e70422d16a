// Opaque bytes (a detector snapshot) in a BLOB (SQLite) or BYTEA (PostgreSQL) column, through the
// store's text-only parameters: how the value is spelled in a statement and read back. Stored as
// the bytes themselves, so a snapshot costs its size and not a third more as base64 text did.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace dw::store {

// How a statement names a bytes parameter `$n` for `backend` ("sqlite" or "postgresql"), and the
// value to bind to it: SQLite takes the raw bytes cast to a BLOB; PostgreSQL, whose text
// parameters cannot carry a NUL, takes hex decoded by the server.
std::string BytesParamSql(std::string_view backend, int n);
std::string BytesParamValue(std::string_view backend, std::string_view bytes);

// How a statement selects bytes column `column` so that BytesFromCell can read it, and the bytes
// of such a cell; DataLoss naming the offset of the first character that is not hex.
std::string BytesColumnSql(std::string_view backend, std::string_view column);
Result<std::string> BytesFromCell(std::string_view backend, std::string_view cell);

}  // namespace dw::store
