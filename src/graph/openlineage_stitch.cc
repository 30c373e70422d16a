#include "graph/openlineage_stitch.h"

#include "base/identifiers.h"
#include "graph/name_resolver.h"

namespace dw::graph {

std::optional<OlWarehouseDataset> ParseOlWarehouseDataset(std::string_view ns, std::string_view name) {
  std::string_view scheme = ns, authority;
  if (size_t p = ns.find("://"); p != std::string_view::npos) {
    scheme = ns.substr(0, p);
    authority = ns.substr(p + 3);
    if (size_t slash = authority.find('/'); slash != std::string_view::npos) authority = authority.substr(0, slash);
  }
  const std::string system = AsciiLower(scheme);
  OlWarehouseDataset d;
  if (system == "postgres" || system == "postgresql") {
    d.target.system = "postgres";
    // host:port, or [v6]:port; credentials never belong in a namespace but are dropped if sent.
    if (size_t at = authority.rfind('@'); at != std::string_view::npos) authority = authority.substr(at + 1);
    if (!authority.empty() && authority.front() == '[') {
      size_t close = authority.find(']');
      d.target.host = AsciiLower(authority.substr(1, close == std::string_view::npos ? close : close - 1));
    } else {
      d.target.host = AsciiLower(authority.substr(0, authority.find(':')));
    }
  } else if (system == "snowflake") {
    d.target.system = "snowflake";
    d.target.host = AsciiLower(authority);  // {organization}-{account}
  } else if (system == "bigquery" && authority.empty()) {
    d.target.system = "bigquery";
  } else {
    return std::nullopt;
  }
  // {database}.{schema}.{table} ({project}.{dataset}.{table}); a producer that leaves the database
  // out (schema.table) still names the table, matched only where the database does not matter.
  std::vector<std::string> parts = RelationParts(name);
  for (const std::string& p : parts)
    if (p.empty()) return std::nullopt;
  if (parts.size() == 3) {
    d.target.database = parts[0];
    d.table = SanitizeTablePart(parts[1] + "." + parts[2]);
  } else if (parts.size() == 2 && d.target.system != "bigquery") {
    d.table = SanitizeTablePart(parts[0] + "." + parts[1]);
  } else {
    return std::nullopt;
  }
  return d;
}

std::string StitchOlDataset(const OlWarehouseDataset& dataset, const std::vector<KnownWarehouse>& warehouses) {
  bool has_system = false;
  for (const KnownWarehouse& w : warehouses) has_system = has_system || AsciiLower(w.type) == dataset.target.system;
  if (!has_system) return "";
  return "table://" + WarehouseForJdbc(dataset.target, warehouses) + "/" + dataset.table;
}

}  // namespace dw::graph
