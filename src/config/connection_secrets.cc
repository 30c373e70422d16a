#include "config/connection_secrets.h"

namespace dw::config {

std::vector<std::string> EmbeddedPasswords(std::string_view text) {
  std::vector<std::string> found;
  // URL form: the userinfo ends at the last '@' before the path.
  if (size_t scheme = text.find("://"); scheme != std::string_view::npos) {
    std::string_view rest = text.substr(scheme + 3);
    std::string_view authority = rest.substr(0, rest.find('/'));
    size_t at = authority.rfind('@');
    if (at != std::string_view::npos) {
      std::string_view userinfo = authority.substr(0, at);
      size_t colon = userinfo.find(':');
      if (colon != std::string_view::npos && colon + 1 < userinfo.size())
        found.emplace_back(userinfo.substr(colon + 1));
    }
  }
  // libpq keyword form: password=value or password='quoted value'.
  for (size_t pos = text.find("password="); pos != std::string_view::npos;
       pos = text.find("password=", pos + 1)) {
    if (pos > 0 && text[pos - 1] != ' ' && text[pos - 1] != '\t' && text[pos - 1] != '?' &&
        text[pos - 1] != '&')
      continue;
    std::string_view value = text.substr(pos + 9);
    size_t end;
    if (!value.empty() && value.front() == '\'') {
      value.remove_prefix(1);
      end = value.find('\'');
    } else {
      end = value.find_first_of(" \t&");
    }
    value = value.substr(0, end);
    if (!value.empty()) found.emplace_back(value);
  }
  return found;
}

}  // namespace dw::config
