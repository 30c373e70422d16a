// SqlConnection over libpq to a PostgreSQL database named by a postgresql:// URL.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "store/sql_connection.h"

namespace dw::store {

// Seconds libpq waits for the server before giving up, unless the URL sets connect_timeout.
inline constexpr int kPostgresConnectTimeoutSeconds = 10;

// Connects to the database named by `url`. kUnavailable if the server cannot be reached or refuses
// the login; messages name the URL with its password redacted and never contain the password.
Result<std::unique_ptr<SqlConnection>> OpenPostgresConnection(const std::string& url);

}  // namespace dw::store
