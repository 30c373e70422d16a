#include "config/state_location.h"

#include <array>
#include <cctype>

namespace dw::config {
namespace {

// libpq's connection keywords (PostgreSQL 15 docs, "Parameter Key Words"); a value starting with
// one of them and '=' is a keyword/value connection string.
constexpr std::array<std::string_view, 17> kLibpqKeywords = {
    "host",     "hostaddr", "port",    "dbname",          "user",        "password",
    "passfile", "service",  "sslmode", "connect_timeout", "options",     "sslcert",
    "sslkey",   "sslrootcert", "application_name", "target_session_attrs", "channel_binding"};

}  // namespace

std::string LocationScheme(std::string_view location) {
  size_t p = location.find("://");
  return p == std::string_view::npos ? "" : std::string(location.substr(0, p));
}

StateLocationForm ClassifyStateLocation(std::string_view location) {
  if (location.starts_with("postgresql://") || location.starts_with("postgres://"))
    return StateLocationForm::kPostgresUrl;
  if (location.find("://") != std::string_view::npos) return StateLocationForm::kUnknownScheme;
  size_t i = 0;
  while (i < location.size() && (location[i] == ' ' || location[i] == '\t')) ++i;
  size_t key_end = i;
  while (key_end < location.size() &&
         (std::isalnum(static_cast<unsigned char>(location[key_end])) || location[key_end] == '_'))
    ++key_end;
  size_t eq = key_end;
  while (eq < location.size() && (location[eq] == ' ' || location[eq] == '\t')) ++eq;
  if (eq < location.size() && location[eq] == '=') {
    std::string_view key = location.substr(i, key_end - i);
    for (std::string_view k : kLibpqKeywords)
      if (k == key) return StateLocationForm::kPostgresKeywords;
  }
  return StateLocationForm::kSqlitePath;
}

}  // namespace dw::config
