// OpenStateStore: picks the backend from the location's form.
#include <cstdlib>
#include <string_view>

#include "store/clock_kind.h"
#include "store/location.h"
#include "store/migrations.h"
#include "store/postgres_connection.h"
#include "store/sql_state_store.h"
#include "store/sqlite_connection.h"
#include "store/state_store.h"

namespace dw::store {

Result<std::unique_ptr<StateStore>> OpenStateStore(const std::string& location,
                                                   const Clock& clock) {
  if (location.empty()) return InvalidArgument("the state store location is empty");
  // A commit on PostgreSQL returns only once the server has flushed it, whatever the server's
  // default: an acknowledged approval or receipt must survive the server crashing right after
  // (with synchronous_commit=off, `pg_ctl restart -m immediate` lost acknowledged writes).
  Result<std::unique_ptr<SqlConnection>> conn =
      IsPostgresLocation(location)
          ? OpenPostgresConnection(location, "the state store", "-c synchronous_commit=on")
          : OpenSqliteConnection(location);
  if (!conn.ok()) return conn.status();
  const char* simulated = std::getenv(kSimulatedClockEnv);
  return SqlStateStore::Open(std::move(conn).value(), AllMigrations(), clock,
                             simulated != nullptr && std::string_view(simulated) == "1");
}

Result<bool> IsSimulatedClockStore(StateStore& store) {
  Result<std::optional<std::string>> mark = store.GetCursor(kStoreClockCursor);
  if (!mark.ok()) return mark.status();
  return mark->has_value() && **mark == kSimulatedClock;
}

}  // namespace dw::store
