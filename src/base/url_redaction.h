// Hiding the password of a URL or DSN before it is shown (errors, describe output, logs). In base
// because every stage that names an endpoint needs it: warehouses (DSNs), the state store, HTTP.
#pragma once

#include <string>
#include <string_view>

namespace dw {

// Returns `url` with any "user:password@" userinfo replaced by "user:***@".
std::string RedactUrl(std::string_view url);

}  // namespace dw
