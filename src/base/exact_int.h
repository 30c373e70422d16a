// A JSON number read as an integer without undefined behaviour: converting a double outside
// int64_t's range to int64_t is undefined in C++ (UBSan reports it; the schema fuzz target found a
// "maxItems": 6.6e121 that did it), so every such conversion of untrusted input goes through here.
#pragma once

#include <cstdint>
#include <optional>

namespace dw {

// The integer `d` is, when int64_t holds it exactly; nullopt for a fraction, NaN, an infinity or
// a value out of range.
inline std::optional<int64_t> ExactInt64(double d) {
  // -2^63 is exact as a double; 2^63 is the first value out of range. NaN fails both comparisons.
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return std::nullopt;
  const auto i = static_cast<int64_t>(d);
  if (static_cast<double>(i) != d) return std::nullopt;
  return i;
}

}  // namespace dw
