// Runs one trusted count query from the workspace (an asset's impact_sql) read-only on a
// configured warehouse, with named parameters bound by the driver, never spliced into the text.
// Both run through the Warehouse interface (read-only connections, one statement, timeouts).
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "base/http.h"
#include "base/status.h"
#include "config/workspace.h"
#include "warehouse/warehouse.h"

namespace dw::warehouse {

// Runs `sql` (one read-only statement) on the configured warehouse with its :name parameters bound
// from `params`, and returns the first column of the first row. Fails with kInvalidArgument for a
// parameter without a value or no row, kPermissionDenied for SQL that writes, kDeadlineExceeded
// after `timeout`, and the warehouse's own error (and message) otherwise. A REST warehouse's calls
// go through `http` (OpenWarehouse).
Result<SqlValue> RunTrustedScalar(const config::WarehouseConfig& config, const std::string& sql,
                                  const std::map<std::string, SqlValue>& params,
                                  std::chrono::milliseconds timeout = std::chrono::seconds(30),
                                  HttpClient* http = nullptr);

// RunTrustedScalar for a count: the value must be an integer (kInvalidArgument otherwise).
Result<int64_t> RunReadOnlyCount(const config::WarehouseConfig& warehouse, const std::string& sql,
                                 const std::map<std::string, std::string>& params,
                                 std::chrono::milliseconds timeout = std::chrono::seconds(30),
                                 HttpClient* http = nullptr);

}  // namespace dw::warehouse
