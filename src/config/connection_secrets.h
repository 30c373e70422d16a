// Finds the secret inside a connection string, so logs can show a DSN or URL with only its
// password hidden (redacting the whole string would hide the host, which people need to debug).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dw::config {

// Returns the passwords embedded in `text`: the password of a URL's userinfo
// (`scheme://user:PASSWORD@host`) and the value of libpq `password=...` keywords. Empty when none.
std::vector<std::string> EmbeddedPasswords(std::string_view text);

}  // namespace dw::config
