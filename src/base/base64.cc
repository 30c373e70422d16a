#include "base/base64.h"

#include <cstdint>

namespace dw {
namespace {

constexpr char kStandard[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char kUrl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Encode(std::string_view in, const char* alphabet, bool pad) {
  std::string out;
  out.reserve(4 * ((in.size() + 2) / 3));
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v = (uint32_t(uint8_t(in[i])) << 16) | (uint32_t(uint8_t(in[i + 1])) << 8) | uint8_t(in[i + 2]);
    for (int k = 18; k >= 0; k -= 6) out.push_back(alphabet[(v >> k) & 63]);
  }
  const size_t left = in.size() - i;
  if (left > 0) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    if (left == 2) v |= uint32_t(uint8_t(in[i + 1])) << 8;
    out.push_back(alphabet[(v >> 18) & 63]);
    out.push_back(alphabet[(v >> 12) & 63]);
    if (left == 2) out.push_back(alphabet[(v >> 6) & 63]);
    if (pad) out.append(3 - left, '=');
  }
  return out;
}

int Sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

}  // namespace

std::string Base64(std::string_view bytes) { return Encode(bytes, kStandard, true); }

std::string Base64Url(std::string_view bytes) { return Encode(bytes, kUrl, false); }

std::optional<std::string> DecodeBase64(std::string_view text) {
  size_t end = text.size();
  size_t pad = 0;
  while (end > 0 && text[end - 1] == '=' && pad < 2) {
    --end;
    ++pad;
  }
  // With padding the whole length is a multiple of 4; without, 1 character left over is never
  // produced by an encoder.
  if (pad > 0 && (text.size() % 4 != 0 || end % 4 + pad != 4)) return std::nullopt;
  if (end % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(end / 4 * 3 + 2);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < end; ++i) {
    const int s = Sextet(text[i]);
    if (s < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(s);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  // The bits left over must be zero (an encoder never sets them).
  if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) return std::nullopt;
  return out;
}

}  // namespace dw
