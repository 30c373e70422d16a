#include "net/http_security.h"

#include <algorithm>
#include <cctype>

#include <openssl/crypto.h>
#include <openssl/evp.h>

namespace dw::net {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view StripBrackets(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    return host.substr(1, host.size() - 2);
  return host;
}

bool AllDigits(std::string_view s) {
  return !s.empty() && s.size() <= 5 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// True iff `s` is a dotted quad whose first octet is 127.
bool IsLoopbackV4(std::string_view s) {
  if (s.substr(0, 4) != "127.") return false;
  int dots = 0;
  size_t run = 0;
  for (char c : s) {
    if (c == '.') {
      if (run == 0 || run > 3) return false;
      ++dots;
      run = 0;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      ++run;
    } else {
      return false;
    }
  }
  return dots == 3 && run > 0 && run <= 3;
}

using Digest = std::array<unsigned char, 32>;

Digest Sha256(std::string_view data) {
  Digest out{};
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_sha256(), nullptr);
  return out;
}

}  // namespace

bool IsLoopbackHost(std::string_view host) {
  std::string h = Lower(StripBrackets(host));
  if (h == "localhost" || h == "::1" || h == "0:0:0:0:0:0:0:1") return true;
  return IsLoopbackV4(h);
}

bool IsWildcardHost(std::string_view host) {
  std::string_view h = StripBrackets(host);
  return h == "0.0.0.0" || h == "::" || h.empty();
}

bool ParseHostHeader(std::string_view value, std::string* host) {
  std::string_view name;
  std::string_view rest;
  if (!value.empty() && value.front() == '[') {
    size_t close = value.find(']');
    if (close == std::string_view::npos || close == 1) return false;
    name = value.substr(0, close + 1);
    rest = value.substr(close + 1);
  } else {
    size_t colon = value.find(':');
    name = value.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view() : value.substr(colon);
    if (name.empty()) return false;
    for (char c : name) {
      unsigned char u = static_cast<unsigned char>(c);
      // Host names and IPv4 literals only: anything else (spaces, '@', '/') is an attack or junk.
      if (!std::isalnum(u) && c != '-' && c != '.' && c != '_') return false;
    }
  }
  if (!rest.empty() && (rest.front() != ':' || !AllDigits(rest.substr(1)))) return false;
  *host = Lower(StripBrackets(name));
  return true;
}

OriginPolicy::OriginPolicy(std::vector<std::string> extra_hosts, bool any_host)
    : any_host_(any_host) {
  for (const auto& h : extra_hosts) extra_hosts_.push_back(Lower(StripBrackets(h)));
}

bool OriginPolicy::NameAllowed(std::string_view host) const {
  if (any_host_ || IsLoopbackHost(host)) return true;
  return std::find(extra_hosts_.begin(), extra_hosts_.end(), host) != extra_hosts_.end();
}

bool OriginPolicy::HostAllowed(std::string_view host_header) const {
  std::string host;
  if (!ParseHostHeader(host_header, &host)) return false;
  return NameAllowed(host);
}

bool OriginPolicy::OriginAllowed(std::string_view origin) const {
  std::string lower = Lower(origin);
  std::string_view rest = lower;
  if (rest.substr(0, 7) == "http://") {
    rest.remove_prefix(7);
  } else if (rest.substr(0, 8) == "https://") {
    rest.remove_prefix(8);
  } else {
    return false;  // "null", file://, chrome-extension://, ...: never a page we serve
  }
  // An Origin is scheme://host[:port] with no path; a trailing slash is tolerated.
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  std::string host;
  if (!ParseHostHeader(rest, &host)) return false;
  // A wildcard bind accepts any Host, but a browser page from elsewhere is still refused:
  // the Origin names who wrote the page, and only pages on the machine itself may talk to us.
  if (IsLoopbackHost(host)) return true;
  return std::find(extra_hosts_.begin(), extra_hosts_.end(), host) != extra_hosts_.end();
}

BearerCheck::BearerCheck(const std::string& token) : enabled_(!token.empty()) {
  if (enabled_) digest_ = Sha256(token);
}

bool BearerCheck::Allows(std::string_view authorization) const {
  if (!enabled_) return true;
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size() ||
      Lower(authorization.substr(0, kScheme.size())) != kScheme)
    return false;
  std::string_view presented = authorization.substr(kScheme.size());
  while (!presented.empty() && presented.front() == ' ') presented.remove_prefix(1);
  Digest got = Sha256(presented);
  return CRYPTO_memcmp(got.data(), digest_.data(), got.size()) == 0;
}

}  // namespace dw::net
