// What a SQLite result code means to a caller, written once for every SQLite user: the state
// store's SQLite backend and the SQLite warehouse.
#pragma once

#include "base/status.h"

namespace dw::store {

// The StatusCode for SQLite result `code` (primary or extended): kUnavailable for a lock or I/O
// (retry), kDataLoss for a file that is not or no longer a database, kResourceExhausted for a full
// disk, kPermissionDenied for read-only or refused access, kAlreadyExists for a unique or primary
// key conflict, kInvalidArgument for another constraint. `user_sql`: the statement came from the
// workspace (a check, a monitor, impact_sql), so a SQL error, a bad parameter index or a type
// mismatch is that SQL's fault (kInvalidArgument); in the product's own statements it is a bug
// (kInternal). Anything else is kInternal.
StatusCode SqliteStatusCode(int code, bool user_sql);

}  // namespace dw::store
