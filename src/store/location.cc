#include "store/location.h"

#include <cctype>
#include <string_view>
#include <vector>

#include "base/redaction.h"
#include "base/url_redaction.h"
#include "config/state_location.h"

namespace dw::store {
namespace {

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Byte range of the password inside a URL's userinfo, if it has one.
struct Span {
  size_t begin = std::string::npos;
  size_t end = std::string::npos;
  bool found() const { return begin != std::string::npos; }
};

Span UserinfoPassword(const std::string& url) {
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return {};
  size_t start = scheme_end + 3;
  // The userinfo ends at the last '@' before the query: a password may itself hold '@' or '/'
  // when the user did not percent-encode it, and libpq reads it the same way.
  size_t query = url.find('?', start);
  size_t at = url.rfind('@', query == std::string::npos ? std::string::npos : query);
  if (at == std::string::npos || at < start) return {};
  size_t colon = url.find(':', start);
  if (colon == std::string::npos || colon > at) return {};
  return {colon + 1, at};
}

// Value ranges of every `password=` parameter in the query string.
std::vector<Span> QueryPasswords(const std::string& url) {
  std::vector<Span> spans;
  size_t query = url.find('?');
  if (query == std::string::npos) return spans;
  size_t pos = query + 1;
  while (pos <= url.size()) {
    size_t amp = url.find('&', pos);
    size_t end = amp == std::string::npos ? url.size() : amp;
    std::string_view param(url.data() + pos, end - pos);
    if (StartsWith(param, "password=")) spans.push_back({pos + 9, end});
    if (amp == std::string::npos) break;
    pos = amp + 1;
  }
  return spans;
}

void ReplaceAll(std::string& text, const std::string& needle, std::string_view with) {
  if (needle.empty()) return;
  for (size_t pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + with.size())) {
    text.replace(pos, needle.size(), with);
  }
}

}  // namespace

bool IsPostgresLocation(const std::string& location) {
  config::StateLocationForm form = config::ClassifyStateLocation(location);
  return form == config::StateLocationForm::kPostgresUrl ||
         form == config::StateLocationForm::kPostgresKeywords;
}

std::string RedactLocation(const std::string& location) {
  if (!StartsWith(location, "postgresql://") && !StartsWith(location, "postgres://"))
    return RedactConnectionPasswords(location);
  std::vector<Span> spans = QueryPasswords(location);
  Span userinfo = UserinfoPassword(location);
  if (userinfo.found()) spans.insert(spans.begin(), userinfo);
  // Replace from the back so earlier offsets stay valid (query spans follow the userinfo one).
  std::string out = location;
  for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
    out.replace(it->begin, it->end - it->begin, "***");
  }
  return out;
}

std::string RedactPasswordIn(std::string text, const std::string& location) {
  if (!IsPostgresLocation(location)) return RedactConnectionPasswords(std::move(text));
  // Drivers quote a URL they cannot parse whole; the redacted form replaces it however short
  // the password.
  ReplaceAll(text, location, RedactLocation(location));
  std::vector<Span> spans = QueryPasswords(location);
  Span userinfo = UserinfoPassword(location);
  if (userinfo.found()) spans.push_back(userinfo);
  for (const Span& span : spans) {
    std::string raw = location.substr(span.begin, span.end - span.begin);
    // A very short password replaced everywhere would mask unrelated letters; those are hidden
    // where they stand alone by the registered-secret net (base/redaction.h) instead.
    if (raw.size() < 4) continue;
    ReplaceAll(text, raw, "***");
    ReplaceAll(text, PercentDecoded(raw), "***");
  }
  return RedactConnectionPasswords(std::move(text));
}

}  // namespace dw::store
