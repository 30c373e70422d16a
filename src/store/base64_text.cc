#include "store/base64_text.h"

#include <array>

namespace dw::store {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> DecodeTable() {
  std::array<int8_t, 256> t{};
  for (auto& x : t) x = -1;
  for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
  return t;
}
constexpr std::array<int8_t, 256> kDecode = DecodeTable();

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out((bytes.size() + 2) / 3 * 4, '=');
  const auto* in = reinterpret_cast<const unsigned char*>(bytes.data());
  char* o = out.data();
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3, o += 4) {
    uint32_t v = static_cast<uint32_t>(in[i]) << 16 | static_cast<uint32_t>(in[i + 1]) << 8 | in[i + 2];
    o[0] = kAlphabet[v >> 18];
    o[1] = kAlphabet[(v >> 12) & 63];
    o[2] = kAlphabet[(v >> 6) & 63];
    o[3] = kAlphabet[v & 63];
  }
  if (size_t rest = bytes.size() - i; rest > 0) {
    uint32_t v = static_cast<uint32_t>(in[i]) << 16 | (rest == 2 ? static_cast<uint32_t>(in[i + 1]) << 8 : 0);
    o[0] = kAlphabet[v >> 18];
    o[1] = kAlphabet[(v >> 12) & 63];
    if (rest == 2) o[2] = kAlphabet[(v >> 6) & 63];
  }
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0)
    return DataLoss("base64 text of " + std::to_string(text.size()) + " characters is not a multiple of 4");
  std::string out;
  out.reserve(text.size() / 4 * 3);
  const auto* in = reinterpret_cast<const unsigned char*>(text.data());
  size_t i = 0;
  // Every quad but the last has no padding: four table lookups, any invalid one shows as < 0.
  for (; i + 4 < text.size(); i += 4) {
    int a = kDecode[in[i]], b = kDecode[in[i + 1]], c = kDecode[in[i + 2]], d = kDecode[in[i + 3]];
    if ((a | b | c | d) < 0) break;  // the careful loop below names the offset
    uint32_t x = static_cast<uint32_t>(a) << 18 | static_cast<uint32_t>(b) << 12 |
                 static_cast<uint32_t>(c) << 6 | static_cast<uint32_t>(d);
    char three[3] = {static_cast<char>(x >> 16), static_cast<char>((x >> 8) & 0xff), static_cast<char>(x & 0xff)};
    out.append(three, 3);
  }
  for (; i < text.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      char c = text[i + static_cast<size_t>(k)];
      bool last_quad = i + 4 == text.size();
      if (c == '=' && last_quad && k >= 2 && (k == 3 || text[i + 3] == '=')) {
        v[k] = 0;
        ++pad;
        continue;
      }
      v[k] = kDecode[static_cast<unsigned char>(c)];
      if (v[k] < 0 || pad > 0)
        return DataLoss("base64 text has an invalid character at offset " + std::to_string(i + static_cast<size_t>(k)));
    }
    uint32_t x = static_cast<uint32_t>(v[0]) << 18 | static_cast<uint32_t>(v[1]) << 12 |
                 static_cast<uint32_t>(v[2]) << 6 | static_cast<uint32_t>(v[3]);
    out += static_cast<char>(x >> 16);
    if (pad < 2) out += static_cast<char>((x >> 8) & 0xff);
    if (pad < 1) out += static_cast<char>(x & 0xff);
  }
  return out;
}

}  // namespace dw::store
