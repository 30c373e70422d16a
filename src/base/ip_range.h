// Address ranges in CIDR notation ("10.0.0.0/8", "127.0.0.1/32", "fd00::/8"): which peers the
// desk trusts to name a person (desk.trusted_proxies). IPv4 and IPv6; an IPv4-mapped IPv6 peer
// ("::ffff:10.1.2.3", as a dual-stack socket reports it) matches the IPv4 range.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace dw {

struct IpRange {
  bool v6 = false;
  std::array<uint8_t, 16> network{};  // the first 4 bytes for IPv4
  int prefix = 0;                     // 0..32 (IPv4) or 0..128 (IPv6)
  std::string text;                   // as written
};

// Parses "ADDRESS/PREFIX" (a bare address means /32 or /128). kInvalidArgument, saying what is
// wrong, for anything else, or when the address has bits set past the prefix ("10.1.0.0/8": the
// writer probably meant something else).
Result<IpRange> ParseIpRange(std::string_view text);

// True iff `address` (a literal IPv4 or IPv6 address, as a socket reports its peer) is inside
// `range`. False for anything that is not an address.
bool InIpRange(const IpRange& range, std::string_view address);

}  // namespace dw
