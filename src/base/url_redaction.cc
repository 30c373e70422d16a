#include "base/url_redaction.h"

#include <cctype>

namespace dw {

std::string RedactUrl(std::string_view url) {
  std::string s(url);
  auto scheme = s.find("://");
  if (scheme == std::string::npos) return s;
  auto host_start = scheme + 3;
  auto at = s.find('@', host_start);
  auto slash = s.find('/', host_start);
  if (at == std::string::npos || (slash != std::string::npos && at > slash)) return s;
  auto colon = s.find(':', host_start);
  if (colon != std::string::npos && colon < at) s.replace(colon + 1, at - colon - 1, "***");
  return s;
}

std::string PercentDecoded(std::string_view s) {
  auto hex = [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
  };
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace dw
