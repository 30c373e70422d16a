// OpenStateStore: picks the backend from the location's form.
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
  Result<std::unique_ptr<SqlConnection>> conn = IsPostgresLocation(location)
                                                    ? OpenPostgresConnection(location)
                                                    : OpenSqliteConnection(location);
  if (!conn.ok()) return conn.status();
  return SqlStateStore::Open(std::move(conn).value(), AllMigrations(), clock);
}

}  // namespace dw::store
