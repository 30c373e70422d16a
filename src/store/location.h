// A state store location: a filesystem path (SQLite) or a postgresql:// URL. Helpers to tell which,
// and to print one without the password a URL may carry.
#pragma once

#include <string>

namespace dw::store {

// True iff `location` names a PostgreSQL database (starts with postgresql:// or postgres://).
bool IsPostgresLocation(const std::string& location);

// Returns `location` safe to print: a URL's `user:password@` becomes `user:***@` and a
// `password=` query parameter's value becomes `***`. A plain path is returned unchanged.
std::string RedactLocation(const std::string& location);

// Returns `text` (e.g. a driver's error message) with every occurrence of the password carried by
// `location`, raw or percent-decoded, replaced by "***".
std::string RedactPasswordIn(std::string text, const std::string& location);

}  // namespace dw::store
