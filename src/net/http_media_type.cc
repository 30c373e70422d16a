#include "net/http_media_type.h"

#include <algorithm>
#include <cctype>

namespace dw::net {

std::string MediaType(std::string_view value) {
  std::string_view s = value.substr(0, value.find(';'));
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace dw::net
