// Reading the desk's query strings, path numbers, decision forms and cookies (request_parsing.h).
#include "desk/request_parsing.h"


#include <set>

namespace dw::desk {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// One urlencoded key or value: '+' is a space, %XX a byte; false for a malformed escape.
bool DecodeFormText(const std::string& in, std::string* o) {
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '+') {
      o->push_back(' ');
    } else if (in[i] == '%') {
      if (i + 2 >= in.size()) return false;
      const int hi = HexValue(in[i + 1]), lo = HexValue(in[i + 2]);
      if (hi < 0 || lo < 0) return false;
      o->push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      o->push_back(in[i]);
    }
  }
  return true;
}

}  // namespace

Result<IncidentListParams> ParseIncidentListParams(const Query& query, const config::Workspace& ws) {
  IncidentListParams p;
  std::set<std::string> seen;
  for (const auto& [key, value] : query) {
    if (!seen.insert(key).second) return InvalidArgument("parameter '" + key.substr(0, 80) + "' is given twice");
    if (value.empty()) continue;  // an empty select means "any"
    if (key == "domain") {
      if (!ws.domains.count(value))
        return InvalidArgument("domain '" + value.substr(0, 80) + "' is not a domain of this workspace");
      p.domain = value;
    } else if (key == "severity") {
      if (value == "SEV1" || value == "1") p.severity = 1;
      else if (value == "SEV2" || value == "2") p.severity = 2;
      else if (value == "SEV3" || value == "3") p.severity = 3;
      else return InvalidArgument("severity '" + value.substr(0, 80) + "' must be SEV1, SEV2 or SEV3");
    } else if (key == "status") {
      p.status = incidents::ParseIncidentStatus(value);
      if (!p.status)
        return InvalidArgument("status '" + value.substr(0, 80) +
                               "' must be open, acknowledged, mitigated, resolved or closed");
    } else {
      return InvalidArgument("unknown parameter '" + key.substr(0, 80) + "' (the page takes domain, severity, status)");
    }
  }
  return p;
}

Result<graph::AssetQuery> ParseAssetQuery(const Query& query) {
  graph::AssetQuery q;
  q.limit = 200;
  std::set<std::string> seen;
  for (const auto& [key, value] : query) {
    if (!seen.insert(key).second) return InvalidArgument("parameter '" + key.substr(0, 80) + "' is given twice");
    if (value.size() > 200)
      return InvalidArgument("parameter '" + key.substr(0, 80) + "' is longer than 200 characters");
    if (key == "q") q.text = value;
    else if (key == "kind") q.kind = value;
    else if (key == "owner") q.owner = value;
    else if (key == "domain") q.domain = value;
    else return InvalidArgument("unknown parameter '" + key.substr(0, 80) + "' (the page takes q, kind, owner, domain)");
  }
  return q;
}

std::optional<int64_t> ParsePositiveDecimal(const std::string& text, size_t max_digits) {
  // 18 digits always fit an int64_t; more are refused rather than risk an overflow.
  if (text.empty() || text.size() > max_digits || text.size() > 18 ||
      text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  int64_t value = 0;
  for (char c : text) value = value * 10 + (c - '0');
  if (value == 0) return std::nullopt;
  return value;
}

bool ParseForm(const std::string& body, std::map<std::string, std::string>* out) {
  size_t at = 0;
  while (at <= body.size() && !body.empty()) {
    size_t end = body.find('&', at);
    if (end == std::string::npos) end = body.size();
    const std::string pair = body.substr(at, end - at);
    at = end + 1;
    if (pair.empty()) {
      if (end == body.size()) break;
      continue;
    }
    const size_t eq = pair.find('=');
    std::string key, value;
    if (!DecodeFormText(pair.substr(0, eq), &key) ||
        (eq != std::string::npos && !DecodeFormText(pair.substr(eq + 1), &value)))
      return false;
    if (!out->emplace(key, value).second) return false;
    if (end == body.size()) break;
  }
  return true;
}

std::string CookieValue(const std::string& header, const std::string& name) {
  size_t at = 0;
  while (at < header.size()) {
    size_t end = header.find(';', at);
    if (end == std::string::npos) end = header.size();
    std::string part = header.substr(at, end - at);
    const size_t b = part.find_first_not_of(' ');
    part = b == std::string::npos ? "" : part.substr(b);
    if (part.rfind(name + "=", 0) == 0) return part.substr(name.size() + 1);
    at = end + 1;
  }
  return "";
}

}  // namespace dw::desk
