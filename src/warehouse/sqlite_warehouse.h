#pragma once

#include <memory>
#include <string>

#include "warehouse/warehouse.h"

namespace dw::warehouse {

// Opens the SQLite file at `path` read-only (never creating it) as warehouse `name`.
Result<std::unique_ptr<Warehouse>> OpenSqliteWarehouse(const std::string& name,
                                                       const std::string& path);

// SQLite's SQL dialect (sqlite_dialect.cc), registered as "sqlite" in backends.cc.
const Dialect& SqliteDialect();

}  // namespace dw::warehouse
