// Server-Sent Events framing (WHATWG HTML, "event stream interpretation") for the POST response
// streams of Streamable HTTP.
#pragma once

#include <string>
#include <string_view>

namespace dw::net {

// Returns one SSE event "id: <id>\nevent: message\ndata: <line>\n...\n\n". `data` is split on
// line breaks (CR, LF or CRLF) into several data: lines, so any payload survives the framing;
// compact JSON has none, so in practice this is a single line.
std::string FormatSseEvent(std::string_view id, std::string_view data);

}  // namespace dw::net
