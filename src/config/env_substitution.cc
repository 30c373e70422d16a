#include "config/env_substitution.h"

#include <cstdlib>

#include "base/utf8.h"

namespace dw::config {
namespace {

bool IsNameStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }

}  // namespace

EnvLookup ProcessEnv() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

Result<Substituted> SubstituteEnv(std::string_view text, const EnvLookup& env) {
  Substituted out;
  out.text.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c != '$' || i + 1 == text.size() || (text[i + 1] != '$' && text[i + 1] != '{')) {
      out.text += c;
      ++i;
      continue;
    }
    if (text[i + 1] == '$') {  // "$$" escapes a dollar
      out.text += '$';
      i += 2;
      continue;
    }
    size_t close = text.find('}', i + 2);
    if (close == std::string_view::npos)
      return InvalidArgument("'${' without a closing '}' in \"" + std::string(text) + "\"");
    std::string_view body = text.substr(i + 2, close - i - 2);
    std::string_view name = body;
    std::optional<std::string_view> fallback;
    if (size_t sep = body.find(":-"); sep != std::string_view::npos) {
      name = body.substr(0, sep);
      fallback = body.substr(sep + 2);
    }
    bool name_ok = !name.empty() && IsNameStart(name[0]);
    for (char n : name) name_ok = name_ok && IsNameChar(n);
    if (!name_ok)
      return InvalidArgument("'${" + std::string(body) + "}' is not a variable reference: use "
                             "${NAME} or ${NAME:-default}, and $$ for a literal $");
    if (fallback && fallback->find("${") != std::string_view::npos)
      return InvalidArgument("'${" + std::string(body) + "}': a default cannot hold another ${...} "
                             "reference");
    std::optional<std::string> value = env(std::string(name));
    if (fallback && (!value || value->empty())) {
      out.text += *fallback;
    } else if (value) {
      // The value is never quoted (it may be a secret); what it lands in is written as JSON later.
      if (!IsValidUtf8(*value))
        return InvalidArgument("environment variable " + std::string(name) + " is not UTF-8 text");
      out.text += *value;
      out.env_values.push_back(*value);
    } else {
      return InvalidArgument("environment variable " + std::string(name) +
                             " is not set (set it, or write ${" + std::string(name) +
                             ":-default} to give a default)");
    }
    i = close + 1;
  }
  return out;
}

}  // namespace dw::config
