#pragma once

#include <memory>
#include <string>

#include "warehouse/warehouse.h"

namespace dw::warehouse {

// Connects to PostgreSQL with libpq connection string or URL `dsn` as warehouse `name`, in
// read-only transactions (default_transaction_read_only). Errors never contain the password.
Result<std::unique_ptr<Warehouse>> OpenPostgresWarehouse(const std::string& name,
                                                         const std::string& dsn);

// PostgreSQL's SQL dialect (postgres_dialect.cc), registered as "postgres" in backends.cc.
const Dialect& PostgresDialect();

}  // namespace dw::warehouse
