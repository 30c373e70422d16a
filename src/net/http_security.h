// The checks that keep a local MCP HTTP server from being driven by someone it was not meant for:
// Host/Origin validation against DNS rebinding (a web page whose name resolves to 127.0.0.1 must
// not reach the server through the user's browser) and the optional bearer token.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace dw::net {

// True iff `host` (a bare name or address, no port; IPv6 with or without brackets) names the
// loopback interface: "localhost", 127.0.0.0/8, "::1".
bool IsLoopbackHost(std::string_view host);

// True iff `host` is a wildcard bind address ("0.0.0.0", "::", "[::]").
bool IsWildcardHost(std::string_view host);

// Splits a Host header value ("name", "name:port", "[v6]:port") into its host part; returns false
// when the value is malformed (empty name, non-numeric port, unbalanced brackets).
bool ParseHostHeader(std::string_view value, std::string* host);

// Decides which Host and Origin values a server accepts. Loopback names are always accepted;
// `extra_hosts` (e.g. the non-loopback name the server is bound to) are accepted too.
class OriginPolicy {
 public:
  // `any_host`: accept every Host value (a wildcard bind protected by a bearer token, where the
  // names clients use cannot be known; the token is what stops a rebinding page there).
  OriginPolicy(std::vector<std::string> extra_hosts, bool any_host);

  // True iff the Host header value is acceptable. A missing Host (empty) is not.
  bool HostAllowed(std::string_view host_header) const;
  // True iff the Origin header value is acceptable: "http(s)://<allowed host>[:port]". Callers
  // skip this check when the request carries no Origin (non-browser clients send none).
  bool OriginAllowed(std::string_view origin) const;

 private:
  bool NameAllowed(std::string_view host) const;

  std::vector<std::string> extra_hosts_;  // lower-case, without brackets
  bool any_host_;
};

// Holds the expected bearer token as a digest and compares presented credentials in constant time
// (both sides are hashed first, so neither the content nor the length of the token leaks through
// timing). Never logs or exposes the token.
class BearerCheck {
 public:
  // An empty token disables the check (every request passes).
  explicit BearerCheck(const std::string& token);

  bool enabled() const { return enabled_; }
  // True iff the check is disabled or `authorization` is "Bearer <token>" (scheme
  // case-insensitive) with the configured token.
  bool Allows(std::string_view authorization) const;

 private:
  bool enabled_ = false;
  std::array<unsigned char, 32> digest_{};
};

}  // namespace dw::net
