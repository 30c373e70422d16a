// Whether text is UTF-8. JSON requires it, and nlohmann's dump() throws on anything else, so text
// from a source that does not check it (a YAML file's scalars: yaml-cpp passes bytes through) is
// checked before it goes into a Json that will be written.
#pragma once

#include <cstddef>
#include <string_view>

namespace dw {

// True when `s` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past
// U+10FFFF); the empty string is.
bool IsValidUtf8(std::string_view s);

// The offset of the first byte of `s` that does not begin a well-formed UTF-8 sequence (as
// IsValidUtf8 judges it), or std::string_view::npos when there is none.
size_t FirstInvalidUtf8(std::string_view s);

}  // namespace dw
