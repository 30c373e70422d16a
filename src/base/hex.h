// Bytes as lower-case hexadecimal: digests, random tokens and MACs are shown and compared this way.
#pragma once

#include <cstddef>
#include <string>

namespace dw {

// Two lower-case hex digits per byte of `bytes[0..n)`.
std::string LowerHex(const unsigned char* bytes, size_t n);

}  // namespace dw
