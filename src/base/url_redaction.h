// Hiding the password of a URL or DSN before it is shown (errors, describe output, logs). In base
// because every stage that names an endpoint needs it: warehouses (DSNs), the state store, HTTP.
#pragma once

#include <string>
#include <string_view>

namespace dw {

// Returns `url` with any "user:password@" userinfo replaced by "user:***@".
std::string RedactUrl(std::string_view url);

// `s` with each %XX (two hex digits) replaced by its byte; anything else, a stray '%' included, as
// it is. How a driver reads a percent-encoded password, so that its decoded form is hidden too.
std::string PercentDecoded(std::string_view s);

}  // namespace dw
