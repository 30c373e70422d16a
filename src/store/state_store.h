// The state store: every observation and decision Data Workers keeps (check results, metric
// points, change events, graph, incidents, approvals, receipts). One interface, two backends
// (SQLite by default, PostgreSQL) that pass the same test suite.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/status.h"

namespace dw::store {

// The store schema version this build writes. A store whose recorded version is higher is refused.
int CurrentSchemaVersion();

// A value bound to a statement parameter or read from a result column.
using Value = Json;  // null, integer, float, string (blobs are not used)

// One row of a result, column name -> value.
using Row = Json;  // object

class StateStore {
 public:
  virtual ~StateStore() = default;

  // "sqlite" or "postgresql".
  virtual std::string backend() const = 0;
  // The schema version recorded in the store after migrations.
  virtual int schema_version() const = 0;
  // (The store helper defines the rest of the interface: typed methods per stage plus a
  //  transaction primitive, so every multi-row write is one transaction.)
};

// Opens (creating if needed) the store named by `location`: a filesystem path for SQLite or a
// postgresql:// URL. Applies pending migrations in one transaction; refuses a store written by a
// newer version with kFailedPrecondition and a message that names both versions.
Result<std::unique_ptr<StateStore>> OpenStateStore(const std::string& location);

}  // namespace dw::store
