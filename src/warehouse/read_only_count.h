// Runs one trusted count query from the workspace (an asset's impact_sql) read-only on a
// configured warehouse, with named parameters bound by the driver, never spliced into the text.
// A narrow function for the blast radius until the Warehouse interface (its own issue) lands;
// it should then become a call on that interface.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "base/status.h"
#include "config/workspace.h"

namespace dw::warehouse {

// Runs `sql` (one statement returning one row whose first column is an integer) on `warehouse`
// read-only: SQLite opens the file with SQLITE_OPEN_READONLY and refuses statements that write;
// PostgreSQL runs it in a READ ONLY transaction that is rolled back. `params` binds :name
// parameters (SQLite natively; PostgreSQL as $n, outside quotes and comments). Fails with
// kInvalidArgument for SQL that does not prepare, writes, has an unbound parameter or returns no
// integer; kUnavailable when the warehouse cannot be opened; kDeadlineExceeded after `timeout`.
Result<int64_t> RunReadOnlyCount(const config::WarehouseConfig& warehouse, const std::string& sql,
                                 const std::map<std::string, std::string>& params,
                                 std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace dw::warehouse
