// Each back end's probe and location, for the registry in backends.cc (not a front door: callers
// use ProbeWarehouse and DisplayLocation in probe.h).
#pragma once

#include <chrono>
#include <string>

#include "base/http.h"
#include "config/workspace.h"
#include "warehouse/probe.h"

namespace dw::warehouse {

// Opens the file read-only and reads its schema; a missing file is reported, never created.
WarehouseProbe ProbeSqliteWarehouse(const config::WarehouseConfig& wh, std::chrono::milliseconds timeout, HttpClient* http);
// Connects with the DSN (connect_timeout from `timeout`) and runs SELECT 1.
WarehouseProbe ProbePostgresWarehouse(const config::WarehouseConfig& wh, std::chrono::milliseconds timeout, HttpClient* http);
// The SQLite path; the DSN with its password hidden.
std::string SqliteLocation(const config::WarehouseConfig& wh);
std::string PostgresLocation(const config::WarehouseConfig& wh);
// The dbname the DSN (URL or keyword/value) names, "" when it names none or cannot be parsed.
std::string PostgresDatabase(const config::WarehouseConfig& wh);

}  // namespace dw::warehouse
