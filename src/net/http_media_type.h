// Reading media types from HTTP headers (Content-Type, Accept), for the server and its protocols.
#pragma once

#include <string>
#include <string_view>

namespace dw::net {

// The media type of a header value without parameters, trimmed and lower-cased
// ("Application/JSON; charset=utf-8" -> "application/json").
std::string MediaType(std::string_view value);

}  // namespace dw::net
