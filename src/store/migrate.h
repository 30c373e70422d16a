// Brings a database to the newest schema version this build knows, at open.
#pragma once

#include <span>

#include "base/clock.h"
#include "base/status.h"
#include "store/migrations.h"
#include "store/sql_connection.h"

namespace dw::store {

// Applies every migration in `migrations` (ascending, no gaps) newer than the version recorded in
// the database's schema_migrations table, all in one transaction, recording each with its
// description and `clock`'s time, and returns the resulting version. Concurrent callers on one
// database wait for each other, so a migration runs once. kFailedPrecondition (nothing changed) if
// the recorded version is newer than the last of `migrations`; on any failure nothing is applied.
// With `simulated_clock` and a database that had no schema yet (the store is being created), the
// same transaction marks it a simulated-clock store (kStoreClockCursor, state_store.h); an
// existing store is never marked.
Result<int> ApplyMigrations(SqlConnection& conn, std::span<const Migration> migrations,
                            const Clock& clock, bool simulated_clock = false);

}  // namespace dw::store
