// Opaque pagination cursors for tools/list, resources/list, resources/templates/list and
// prompts/list. A cursor names the list it pages and the offset of the next page, base64url-encoded
// so clients treat it as opaque and a cursor from one list is refused by another.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dw::mcp {

// The cursor for the page of `list` ("tools", "prompts", ...) that starts at `offset`.
std::string EncodeListCursor(std::string_view list, size_t offset);

// The offset encoded in `cursor` when it was made by EncodeListCursor for `list` and does not point
// past `size`; nullopt otherwise.
std::optional<size_t> DecodeListCursor(std::string_view list, std::string_view cursor, size_t size);

}  // namespace dw::mcp
