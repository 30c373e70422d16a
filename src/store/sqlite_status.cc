#include "store/sqlite_status.h"

#include <sqlite3.h>

namespace dw::store {

StatusCode SqliteStatusCode(int code, bool user_sql) {
  switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
      return StatusCode::kUnavailable;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return StatusCode::kDataLoss;
    case SQLITE_FULL:
      return StatusCode::kResourceExhausted;
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return StatusCode::kPermissionDenied;
    case SQLITE_CONSTRAINT:
      return code == SQLITE_CONSTRAINT_UNIQUE || code == SQLITE_CONSTRAINT_PRIMARYKEY ? StatusCode::kAlreadyExists
                                                                                      : StatusCode::kInvalidArgument;
    case SQLITE_ERROR:
    case SQLITE_RANGE:
    case SQLITE_MISMATCH:
      return user_sql ? StatusCode::kInvalidArgument : StatusCode::kInternal;
    default:
      return StatusCode::kInternal;
  }
}

}  // namespace dw::store
