#include "store/migrate.h"

#include <string>

#include "store/clock_kind.h"

namespace dw::store {
namespace {

// Identical in both dialects, and never changed by a migration: it is how versions are read.
constexpr const char* kCreateSchemaMigrations =
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " version INTEGER PRIMARY KEY,"
    " applied_at BIGINT NOT NULL,"
    " description TEXT NOT NULL)";

Result<int> RecordedVersion(SqlConnection& conn) {
  Result<std::vector<SqlRow>> rows =
      conn.Query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
  if (!rows.ok()) return rows.status();
  if (rows->size() != 1 || !std::holds_alternative<int64_t>((*rows)[0][0])) {
    return DataLoss("schema_migrations.version holds something other than integers");
  }
  return static_cast<int>(std::get<int64_t>((*rows)[0][0]));
}

// Everything between Begin and Commit; the caller rolls back if this fails.
Result<int> MigrateInTransaction(SqlConnection& conn, std::span<const Migration> migrations,
                                 const Clock& clock, bool simulated_clock) {
  // The lock comes first: two fresh databases racing on CREATE TABLE IF NOT EXISTS can both fail.
  Status prepared = conn.LockForMigration();
  if (prepared.ok()) prepared = conn.ExecScript(kCreateSchemaMigrations);
  Result<int> recorded = prepared.ok() ? RecordedVersion(conn) : Result<int>(prepared);
  if (!recorded.ok()) {
    return Status(recorded.status().code(),
                  "could not read the schema version of the state store at " +
                      conn.display_location() + ": " + recorded.status().message());
  }
  int supported = migrations.empty() ? 0 : migrations.back().version;
  if (*recorded > supported) {
    return FailedPrecondition("state store at " + conn.display_location() +
                              " was written by a newer Data Workers (schema version " +
                              std::to_string(*recorded) + "; this build supports up to " +
                              std::to_string(supported) +
                              "); upgrade dw or point state: elsewhere");
  }
  for (const Migration& m : migrations) {
    if (m.version <= *recorded) continue;
    const bool applies = m.only_on.empty() || m.only_on == conn.backend();
    Status applied = applies ? conn.ExecScript(RenderDdl(m.ddl, conn.backend())) : Status::Ok();
    if (applied.ok()) {
      applied = conn.Query(
                        "INSERT INTO schema_migrations (version, applied_at, description) "
                        "VALUES ($1, $2, $3)",
                        {SqlValue{int64_t{m.version}}, SqlValue{ToUnixMillis(clock.Now())},
                         SqlValue{std::string(m.description)}})
                    .status();
    }
    if (!applied.ok()) {
      return Status(applied.code(), "applying schema migration " + std::to_string(m.version) +
                                        " to the state store at " + conn.display_location() +
                                        " failed: " + applied.message());
    }
  }
  // Only at creation: a store that already holds records keeps the real clock it was made with.
  if (simulated_clock && *recorded == 0 && supported > 0) {
    Status marked = conn.Query("INSERT INTO kv_cursors (name, value, updated_at) VALUES ($1, $2, $3)",
                               {SqlValue{std::string(kStoreClockCursor)}, SqlValue{std::string(kSimulatedClock)},
                                SqlValue{ToUnixMillis(clock.Now())}})
                        .status();
    if (!marked.ok())
      return Status(marked.code(), "marking the new state store at " + conn.display_location() +
                                       " as a simulated-clock store failed: " + marked.message());
  }
  return supported > *recorded ? supported : *recorded;
}

}  // namespace

Result<int> ApplyMigrations(SqlConnection& conn, std::span<const Migration> migrations,
                            const Clock& clock, bool simulated_clock) {
  Status begun = conn.Begin();
  if (!begun.ok()) {
    return Status(begun.code(), "could not start migrating the state store at " +
                                    conn.display_location() + ": " + begun.message());
  }
  Result<int> version = MigrateInTransaction(conn, migrations, clock, simulated_clock);
  if (!version.ok()) {
    conn.Rollback();  // best effort: the failure that caused it is the one worth reporting
    return version;
  }
  Status committed = conn.Commit();
  if (!committed.ok()) {
    conn.Rollback();
    return Status(committed.code(), "could not commit the migration of the state store at " +
                                        conn.display_location() + ": " + committed.message());
  }
  return version;
}

}  // namespace dw::store
