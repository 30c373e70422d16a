#include "base/url_redaction.h"

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

}  // namespace dw
