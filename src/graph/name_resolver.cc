#include "graph/name_resolver.h"

namespace dw::graph {

std::string ResolveName(const GraphIndex& index, const std::vector<std::string>& names,
                        std::string_view kind, std::string_view short_name,
                        const std::string& fallback) {
  for (const std::string& n : names) {
    if (n.empty()) continue;
    if (index.Find(n) != kNone) return n;
    AssetIndex a = index.FindAlias(n);
    if (a != kNone) return index.id(a);
  }
  if (index.Find(fallback) != kNone) return fallback;
  uint32_t k = KindIndex(kind);
  if (k != kNone && !short_name.empty()) {
    AssetIndex only = kNone;
    if (index.CountByShortName(static_cast<uint8_t>(k), short_name, &only) == 1) return index.id(only);
  }
  return fallback;
}

std::string ResolveTable(const GraphIndex& index, const std::vector<std::string>& names,
                         std::string_view short_name, const std::string& fallback) {
  std::string id = ResolveName(index, names, "table", short_name, fallback);
  if (id != fallback || index.Find(fallback) != kNone) return id;
  return ResolveName(index, {}, "dbt", short_name, fallback);
}

std::string SanitizeInstance(std::string_view text) {
  std::string out;
  for (char c : text) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.';
    out += ok ? c : '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "unknown" : out;
}

std::string SanitizeTablePart(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              c == '$' || c == '.';
    out += ok ? c : '_';
  }
  return out;
}

std::string SanitizeName(std::string_view text) {
  std::string out;
  for (char c : text) {
    bool bad = c <= ' ' || c > '~' || std::string_view("?#\"'`\\,[]{}<>|").find(c) != std::string_view::npos;
    out += bad ? '_' : c;
  }
  while (!out.empty() && out.back() == '/') out.pop_back();
  return out.empty() ? "unnamed" : out;
}

}  // namespace dw::graph
