// What a workspace's `state:` value names: a SQLite file, or a PostgreSQL database given as a URL
// or as a libpq keyword/value string. Anything else that looks like a URL is a mistake (a typo in
// the scheme, another database), never a file name: it would create folders named after the
// URL's parts, a password among them.
#pragma once

#include <string>
#include <string_view>

namespace dw::config {

enum class StateLocationForm {
  kSqlitePath,        // a filesystem path
  kPostgresUrl,       // postgresql://... or postgres://...
  kPostgresKeywords,  // host=... dbname=... (starts with a libpq connection keyword and '=')
  kUnknownScheme,     // scheme://... with any other scheme
};

// Classifies `location` (already ${ENV}-substituted).
StateLocationForm ClassifyStateLocation(std::string_view location);

// The text before "://" ("" when there is none), to name a wrong scheme without echoing the rest
// of the value (which may hold a password).
std::string LocationScheme(std::string_view location);

}  // namespace dw::config
