#pragma once

#include <memory>
#include <string>

#include <chrono>

#include "warehouse/warehouse.h"

namespace dw::warehouse {

// Opens the SQLite file at `path` read-only (never creating it) as warehouse `name`. Reading its
// schema, which proves it is a database, waits for a lock another process holds no longer than
// `lock_wait` (and never more than 5 s).
Result<std::unique_ptr<Warehouse>> OpenSqliteWarehouse(
    const std::string& name, const std::string& path,
    std::chrono::milliseconds lock_wait = std::chrono::milliseconds(5000));

// SQLite's SQL dialect (sqlite_dialect.cc), registered as "sqlite" in backends.cc.
const Dialect& SqliteDialect();

}  // namespace dw::warehouse
