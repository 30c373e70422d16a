#include "base/ip_range.h"

#include <arpa/inet.h>

#include <algorithm>

#include <cstring>

namespace dw {
namespace {

// Reads a literal address into `out` (16 bytes; IPv4 in the first 4); sets `v6`.
bool ReadAddress(std::string_view text, std::array<uint8_t, 16>* out, bool* v6) {
  if (text.empty() || text.size() > 45) return false;
  const std::string s(text);
  out->fill(0);
  in_addr a4{};
  if (inet_pton(AF_INET, s.c_str(), &a4) == 1) {
    std::memcpy(out->data(), &a4, 4);
    *v6 = false;
    return true;
  }
  in6_addr a6{};
  if (inet_pton(AF_INET6, s.c_str(), &a6) == 1) {
    std::memcpy(out->data(), &a6, 16);
    *v6 = true;
    return true;
  }
  return false;
}

bool PrefixMatches(const uint8_t* a, const uint8_t* b, int prefix) {
  const int whole = prefix / 8, rest = prefix % 8;
  if (std::memcmp(a, b, static_cast<size_t>(whole)) != 0) return false;
  if (rest == 0) return true;
  const uint8_t mask = static_cast<uint8_t>(0xff << (8 - rest));
  return (a[whole] & mask) == (b[whole] & mask);
}

}  // namespace

Result<IpRange> ParseIpRange(std::string_view text) {
  IpRange r;
  r.text = std::string(text);
  const size_t slash = text.find('/');
  const std::string_view addr = text.substr(0, slash);
  if (!ReadAddress(addr, &r.network, &r.v6))
    return InvalidArgument("'" + r.text.substr(0, 60) + "' is not an address range such as 10.0.0.0/8 or 127.0.0.1/32");
  const int max = r.v6 ? 128 : 32;
  r.prefix = max;
  if (slash != std::string_view::npos) {
    const std::string_view p = text.substr(slash + 1);
    if (p.empty() || p.size() > 3 || p.find_first_not_of("0123456789") != std::string_view::npos ||
        std::stoi(std::string(p)) > max)
      return InvalidArgument("'" + r.text.substr(0, 60) + "': the prefix length must be a number from 0 to " +
                             std::to_string(max));
    r.prefix = std::stoi(std::string(p));
  }
  std::array<uint8_t, 16> masked{};
  const int bytes = r.v6 ? 16 : 4;
  for (int i = 0; i < bytes; ++i) {
    const int bits = std::min(8, std::max(0, r.prefix - 8 * i));
    masked[i] = static_cast<uint8_t>(r.network[i] & (bits == 0 ? 0 : 0xff << (8 - bits)));
  }
  if (masked != r.network)
    return InvalidArgument("'" + r.text.substr(0, 60) + "' has address bits set past its /" + std::to_string(r.prefix) +
                           " prefix (write the network address, e.g. 10.0.0.0/8)");
  return r;
}

bool InIpRange(const IpRange& range, std::string_view address) {
  std::array<uint8_t, 16> a{};
  bool v6 = false;
  if (!ReadAddress(address, &a, &v6)) return false;
  // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is the IPv4 peer it names.
  static const uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (v6 && !range.v6 && std::memcmp(a.data(), kMapped, 12) == 0) {
    std::memmove(a.data(), a.data() + 12, 4);
    v6 = false;
  }
  if (v6 != range.v6) return false;
  return PrefixMatches(a.data(), range.network.data(), range.prefix);
}

}  // namespace dw
