#include "base/http.h"

#include <cctype>

namespace dw {

std::string EncodePathSegment(std::string_view segment) {
  static const char* hex = "0123456789ABCDEF";
  // "." and ".." are dot-segments a client or server would resolve: encode them so a name like
  // ".." stays one segment and never climbs the path.
  if (segment == "." || segment == "..") return segment.size() == 1 ? "%2E" : "%2E%2E";
  std::string out;
  out.reserve(segment.size());
  for (unsigned char c : segment) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

std::string JoinUrl(std::string_view base, const std::vector<std::string>& segments) {
  std::string out(base);
  while (!out.empty() && out.back() == '/') out.pop_back();
  for (const auto& s : segments) {
    out.push_back('/');
    out += EncodePathSegment(s);
  }
  return out;
}

}  // namespace dw
