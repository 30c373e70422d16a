#include "base/identifiers.h"
#include "graph/jdbc_warehouse.h"

#include <algorithm>
#include <cctype>

#include "graph/name_resolver.h"

namespace dw::graph {
namespace {

std::string Lower(std::string_view s) { return AsciiLower(s); }

// The value of `key` among `a=b` pairs separated by any of `separators`, case-insensitively.
std::string Param(std::string_view text, std::string_view key, std::string_view separators) {
  size_t i = 0;
  while (i < text.size()) {
    size_t end = text.find_first_of(separators, i);
    if (end == std::string_view::npos) end = text.size();
    std::string_view pair = text.substr(i, end - i);
    size_t eq = pair.find('=');
    if (eq != std::string_view::npos && Lower(pair.substr(0, eq)) == Lower(key)) return std::string(pair.substr(eq + 1));
    i = end + 1;
  }
  return "";
}

// host[:port] of "//[user[:password]@]host[:port][/path]...", and the first path segment.
void Authority(std::string_view rest, JdbcTarget* t) {
  if (!rest.starts_with("//")) return;
  rest.remove_prefix(2);
  size_t end = rest.find_first_of("/?;");
  std::string_view authority = rest.substr(0, end);
  if (size_t at = authority.rfind('@'); at != std::string_view::npos) authority = authority.substr(at + 1);
  if (size_t comma = authority.find(','); comma != std::string_view::npos) authority = authority.substr(0, comma);
  if (!authority.empty() && authority.front() == '[') {  // [::1]:5432
    size_t close = authority.find(']');
    t->host = Lower(authority.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1));
  } else {
    t->host = Lower(authority.substr(0, authority.find(':')));
  }
  if (end != std::string_view::npos && rest[end] == '/') {
    std::string_view path = rest.substr(end + 1);
    path = path.substr(0, path.find_first_of("/?;"));
    t->database = std::string(path);
  }
}

}  // namespace

std::optional<JdbcTarget> ParseJdbcUrl(std::string_view url) {
  if (url.size() < 6 || Lower(url.substr(0, 5)) != "jdbc:") return std::nullopt;
  std::string_view rest = url.substr(5);
  size_t colon = rest.find(':');
  if (colon == 0 || colon == std::string_view::npos) return std::nullopt;
  JdbcTarget t;
  std::string scheme = Lower(rest.substr(0, colon));
  rest = rest.substr(colon + 1);
  if (scheme == "postgresql" || scheme == "pgsql") scheme = "postgres";
  if (scheme == "ch") scheme = "clickhouse";
  if (scheme == "avatica") {
    // Druid's SQL endpoint: jdbc:avatica:remote:url=http://broker:8082/druid/v2/sql/avatica/
    std::string inner = Param(rest.substr(rest.find(':') == std::string_view::npos ? 0 : rest.find(':') + 1), "url", ";");
    if (Lower(inner).find("/druid/") != std::string::npos) scheme = "druid";
    if (size_t s = inner.find("://"); s != std::string::npos) Authority(std::string_view(inner).substr(s + 1), &t);
    t.database.clear();
  } else if (scheme == "oracle") {
    // jdbc:oracle:thin:@host:1521:SID or @//host:1521/service
    size_t at = rest.find('@');
    if (at != std::string_view::npos) {
      std::string_view where = rest.substr(at + 1);
      if (where.starts_with("//")) {
        Authority(where, &t);
      } else {
        t.host = Lower(where.substr(0, where.find(':')));
        size_t last = where.rfind(':');
        if (last != std::string_view::npos && last != where.find(':')) t.database = std::string(where.substr(last + 1));
      }
    }
  } else if (scheme == "sqlite" || scheme == "duckdb" || scheme == "h2") {
    // A file or memory: no host, and the database is the file (not a name tables carry).
  } else {
    Authority(rest, &t);
    if (scheme == "sqlserver") t.database = Param(rest, "databaseName", ";");
    if (scheme == "snowflake") t.database = Param(rest.substr(rest.find('?') == std::string_view::npos ? rest.size() : rest.find('?') + 1), "db", "&");
    if (scheme == "bigquery") {
      t.host.clear();
      t.database = Param(rest, "ProjectId", ";");
    }
  }
  t.system = scheme;
  return t;
}

std::string WarehouseForJdbc(const JdbcTarget& target, const std::vector<KnownWarehouse>& warehouses) {
  std::vector<const KnownWarehouse*> same_system;
  for (const KnownWarehouse& w : warehouses)
    if (Lower(w.type) == target.system) same_system.push_back(&w);
  if (!target.database.empty())
    for (const KnownWarehouse* w : same_system)
      if (!w->database.empty() && Lower(w->database) == Lower(target.database)) return w->name;
  if (same_system.size() == 1 && (target.database.empty() || same_system[0]->database.empty()))
    return same_system[0]->name;
  std::string instance = target.system;
  if (!target.host.empty()) instance += "-" + target.host;
  if (!target.database.empty()) instance += "-" + target.database;
  return SanitizeInstance(instance);
}

}  // namespace dw::graph
