// One SQLite result code -> Status mapping for the state store and the SQLite warehouse.
#include "store/sqlite_status.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

namespace dw::store {
namespace {

TEST(SqliteStatusTest, LocksAndIoAreRetryableCorruptionIsDataLoss) {
  for (bool user_sql : {false, true}) {
    EXPECT_EQ(SqliteStatusCode(SQLITE_BUSY, user_sql), StatusCode::kUnavailable);
    EXPECT_EQ(SqliteStatusCode(SQLITE_LOCKED, user_sql), StatusCode::kUnavailable);
    EXPECT_EQ(SqliteStatusCode(SQLITE_IOERR_READ, user_sql), StatusCode::kUnavailable);
    EXPECT_EQ(SqliteStatusCode(SQLITE_CANTOPEN, user_sql), StatusCode::kUnavailable);
    EXPECT_EQ(SqliteStatusCode(SQLITE_NOTADB, user_sql), StatusCode::kDataLoss);
    EXPECT_EQ(SqliteStatusCode(SQLITE_CORRUPT, user_sql), StatusCode::kDataLoss);
    EXPECT_EQ(SqliteStatusCode(SQLITE_FULL, user_sql), StatusCode::kResourceExhausted);
    EXPECT_EQ(SqliteStatusCode(SQLITE_READONLY, user_sql), StatusCode::kPermissionDenied);
    EXPECT_EQ(SqliteStatusCode(SQLITE_CONSTRAINT_UNIQUE, user_sql), StatusCode::kAlreadyExists);
    EXPECT_EQ(SqliteStatusCode(SQLITE_CONSTRAINT_PRIMARYKEY, user_sql), StatusCode::kAlreadyExists);
    EXPECT_EQ(SqliteStatusCode(SQLITE_CONSTRAINT_NOTNULL, user_sql), StatusCode::kInvalidArgument);
    EXPECT_EQ(SqliteStatusCode(SQLITE_NOMEM, user_sql), StatusCode::kInternal);
  }
}

TEST(SqliteStatusTest, ASqlErrorIsTheWorkspacesFaultOnlyInItsOwnSql) {
  EXPECT_EQ(SqliteStatusCode(SQLITE_ERROR, /*user_sql=*/true), StatusCode::kInvalidArgument);
  EXPECT_EQ(SqliteStatusCode(SQLITE_MISMATCH, /*user_sql=*/true), StatusCode::kInvalidArgument);
  EXPECT_EQ(SqliteStatusCode(SQLITE_ERROR, /*user_sql=*/false), StatusCode::kInternal);
  EXPECT_EQ(SqliteStatusCode(SQLITE_RANGE, /*user_sql=*/false), StatusCode::kInternal);
}

}  // namespace
}  // namespace dw::store
