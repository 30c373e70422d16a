#include "observe/quality/schema_drift.h"

#include <map>

namespace dw::observe::quality {

Json SchemaDrift::ToJson() const {
  Json cols = Json::array();
  for (const warehouse::Column& c : columns) cols.push_back({{"name", c.name}, {"type", c.type}});
  Json changed = Json::array();
  for (const TypeChange& t : type_changed)
    changed.push_back({{"column", t.column}, {"before", t.before}, {"after", t.after}});
  return {{"columns", cols}, {"added", added}, {"removed", removed}, {"type_changed", changed}};
}

std::string SchemaDrift::Describe(bool recorded) const {
  const std::string n = std::to_string(columns.size()) + " columns";
  if (first_run)
    return recorded ? "first run: baseline of " + n + " recorded" : "first run: " + n + "; not recorded, so no baseline is set";
  if (!Changed()) return "no change in " + n;
  std::string out;
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  if (!added.empty()) out += "added " + list(added);
  if (!removed.empty()) out += (out.empty() ? "" : "; ") + std::string("removed ") + list(removed);
  for (const TypeChange& t : type_changed)
    out += (out.empty() ? "" : "; ") + t.column + " changed type from " + t.before + " to " + t.after;
  return out;
}

SchemaDrift CompareSchema(const std::optional<Json>& previous, const warehouse::TableSchema& table) {
  SchemaDrift drift;
  drift.columns = table.columns;
  if (!previous || !previous->is_object() || !previous->contains("columns") ||
      !(*previous)["columns"].is_array()) {
    drift.first_run = true;
    return drift;
  }
  std::map<std::string, std::string> before;
  for (const Json& c : (*previous)["columns"]) {
    if (c.is_object() && c.contains("name") && c["name"].is_string() && c.contains("type") &&
        c["type"].is_string())
      before[c["name"].get<std::string>()] = c["type"].get<std::string>();
  }
  std::map<std::string, std::string> now;
  for (const warehouse::Column& c : table.columns) {
    now[c.name] = c.type;
    auto it = before.find(c.name);
    if (it == before.end()) drift.added.push_back(c.name);
    else if (it->second != c.type) drift.type_changed.push_back({c.name, it->second, c.type});
  }
  for (const Json& c : (*previous)["columns"])
    if (c.is_object() && c.contains("name") && c["name"].is_string() &&
        !now.count(c["name"].get<std::string>()))
      drift.removed.push_back(c["name"].get<std::string>());
  return drift;
}

}  // namespace dw::observe::quality
