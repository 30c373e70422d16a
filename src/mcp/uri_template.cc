#include "mcp/uri_template.h"

namespace dw::mcp {
namespace {

bool IsVarChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decodes `s`; nullopt on a malformed escape.
std::optional<std::string> PercentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    int hi = HexValue(s[i + 1]), lo = HexValue(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

bool IsValueChar(char c) { return c != '/' && c != '?' && c != '#'; }

}  // namespace

Status CheckUriTemplate(std::string_view tmpl) {
  bool previous_was_var = false;
  for (size_t i = 0; i < tmpl.size();) {
    if (tmpl[i] == '}') return InvalidArgument("unmatched '}' in URI template " + std::string(tmpl));
    if (tmpl[i] != '{') {
      previous_was_var = false;
      ++i;
      continue;
    }
    size_t close = tmpl.find('}', i);
    if (close == std::string_view::npos) {
      return InvalidArgument("unmatched '{' in URI template " + std::string(tmpl));
    }
    std::string_view name = tmpl.substr(i + 1, close - i - 1);
    if (name.empty()) return InvalidArgument("empty variable in URI template " + std::string(tmpl));
    for (char c : name) {
      if (!IsVarChar(c)) {
        return InvalidArgument("variable '" + std::string(name) +
                               "' is not a level-1 variable name in URI template " +
                               std::string(tmpl));
      }
    }
    if (previous_was_var) {
      return InvalidArgument("adjacent variables in URI template " + std::string(tmpl));
    }
    previous_was_var = true;
    i = close + 1;
  }
  return Status::Ok();
}

std::optional<std::map<std::string, std::string>> MatchUriTemplate(std::string_view tmpl,
                                                                   std::string_view uri) {
  std::map<std::string, std::string> vars;
  size_t t = 0, u = 0;
  while (t < tmpl.size()) {
    if (tmpl[t] != '{') {
      if (u >= uri.size() || uri[u] != tmpl[t]) return std::nullopt;
      ++t;
      ++u;
      continue;
    }
    size_t close = tmpl.find('}', t);
    std::string name(tmpl.substr(t + 1, close - t - 1));
    t = close + 1;
    // The value runs up to the next literal character of the template (or to the end); adjacent
    // variables are excluded by CheckUriTemplate, so that character is a literal.
    size_t end = u;
    while (end < uri.size() && IsValueChar(uri[end]) && (t >= tmpl.size() || uri[end] != tmpl[t])) {
      ++end;
    }
    if (end == u) return std::nullopt;
    std::optional<std::string> value = PercentDecode(uri.substr(u, end - u));
    if (!value) return std::nullopt;
    vars[name] = std::move(*value);
    u = end;
  }
  if (u != uri.size()) return std::nullopt;
  return vars;
}

}  // namespace dw::mcp
