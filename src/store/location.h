// A state store location: a filesystem path (SQLite), or a PostgreSQL database as a postgresql://
// URL or a libpq keyword/value string (config/state_location.h decides). Helpers to tell which,
// and to print one without the password it may carry.
#pragma once

#include <string>

namespace dw::store {

// True iff `location` names a PostgreSQL database (a postgresql:// or postgres:// URL, or a libpq
// keyword/value string such as "host=db dbname=dw").
bool IsPostgresLocation(const std::string& location);

// Returns `location` safe to print: a URL's `user:password@` becomes `user:***@`, and a
// `password=` value (URL query or keyword/value, quoted or not) becomes `***`.
std::string RedactLocation(const std::string& location);

// Returns `text` (e.g. a driver's error message) with every occurrence of the password carried by
// `location`, raw or percent-decoded, replaced by "***".
std::string RedactPasswordIn(std::string text, const std::string& location);

}  // namespace dw::store
