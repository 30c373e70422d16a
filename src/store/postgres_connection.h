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
// Connects to the PostgreSQL server at libpq URL or connection string `url`. `purpose` names what
// the connection is for in error messages ("the state store", "warehouse 'main'"); errors never
// contain the password. `server_options` are settings for every session, in libpq's `options`
// form ("-c default_transaction_read_only=on"), added to any the URL sets.
Result<std::unique_ptr<SqlConnection>> OpenPostgresConnection(
    const std::string& url, const std::string& purpose = "the state store",
    const std::string& server_options = "");

}  // namespace dw::store
