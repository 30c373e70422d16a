#include "mcp/list_cursor.h"

#include <charconv>

namespace dw::mcp {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Base64Url(std::string_view in) {
  std::string out;
  unsigned bits = 0;
  int nbits = 0;
  for (unsigned char c : in) {
    bits = (bits << 8) | c;
    nbits += 8;
    while (nbits >= 6) {
      nbits -= 6;
      out += kAlphabet[(bits >> nbits) & 63];
    }
  }
  if (nbits > 0) out += kAlphabet[(bits << (6 - nbits)) & 63];
  return out;
}

std::optional<std::string> UnBase64Url(std::string_view in) {
  std::string out;
  unsigned bits = 0;
  int nbits = 0;
  for (char c : in) {
    const char* p = c == '\0' ? nullptr : std::char_traits<char>::find(kAlphabet, 64, c);
    if (!p) return std::nullopt;
    bits = (bits << 6) | static_cast<unsigned>(p - kAlphabet);
    nbits += 6;
    if (nbits >= 8) {
      nbits -= 8;
      out += static_cast<char>((bits >> nbits) & 0xFF);
    }
  }
  return out;
}

}  // namespace

std::string EncodeListCursor(std::string_view list, size_t offset) {
  return Base64Url(std::string(list) + ":" + std::to_string(offset));
}

std::optional<size_t> DecodeListCursor(std::string_view list, std::string_view cursor, size_t size) {
  if (cursor.size() > 64) return std::nullopt;
  std::optional<std::string> plain = UnBase64Url(cursor);
  if (!plain || plain->size() <= list.size() + 1 || plain->compare(0, list.size(), list) != 0 ||
      (*plain)[list.size()] != ':') {
    return std::nullopt;
  }
  const char* begin = plain->data() + list.size() + 1;
  const char* end = plain->data() + plain->size();
  size_t offset = 0;
  auto [ptr, ec] = std::from_chars(begin, end, offset);
  if (ec != std::errc() || ptr != end || offset > size) return std::nullopt;
  return offset;
}

}  // namespace dw::mcp
