#include "base/identifiers.h"
#include "observe/quality/dbt_tests.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "warehouse/backends.h"

namespace dw::observe::quality {
namespace {

using Kind = ImportedTest::Kind;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Str(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const Json& Obj(const Json& j, const char* key) {
  static const Json empty = Json::object();
  if (!j.is_object()) return empty;
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : empty;
}


// A column name as dbt writes it: plain, or quoted ("Id", `Id`) when the test sets quote: true.
// nullopt for an expression (coalesce(a, b), a || b), which is not a column of the table.
std::optional<std::string> PlainColumn(std::string name) {
  if (name.size() >= 2 && (name.front() == '"' || name.front() == '`') && name.back() == name.front())
    return name.substr(1, name.size() - 2);
  if (name.empty()) return std::nullopt;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '$') return std::nullopt;
  return name;
}

// True when `v` (any depth) holds a string with Jinja the manifest left unrendered.
bool HoldsJinja(const Json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    return s.find("{{") != std::string::npos || s.find("{%") != std::string::npos;
  }
  if (v.is_array() || v.is_object())
    for (const auto& [_, x] : v.items())
      if (HoldsJinja(x)) return true;
  return false;
}

// The relation a model, seed, snapshot or source builds or names, or why it has none.
struct Relation {
  std::string database, schema, identifier;
};
std::optional<Relation> RelationOf(const Json& node, std::string* why) {
  const Json& config = Obj(node, "config");
  if (Str(config, "materialized") == "ephemeral") {
    *why = "it tests an ephemeral model, which builds no table";
    return std::nullopt;
  }
  Relation r{Str(node, "database"), Str(node, "schema"), Str(node, "alias")};
  if (r.identifier.empty()) r.identifier = Str(node, "identifier");  // a source
  const std::string relation = Str(node, "relation_name");
  if (!relation.empty()) {
    std::vector<std::string> parts = RelationParts(relation);
    if (r.identifier.empty()) r.identifier = parts.back();
    if (r.schema.empty() && parts.size() >= 2) r.schema = parts[parts.size() - 2];
    if (r.database.empty() && parts.size() >= 3) r.database = parts[parts.size() - 3];
  }
  if (r.identifier.empty()) r.identifier = Str(node, "name");
  if (r.identifier.empty()) {
    *why = "the manifest does not say which table it builds";
    return std::nullopt;
  }
  return r;
}

std::optional<TableRef> Place(const DbtRelationPlaces& where, const Relation& r, std::string* why) {
  TableRef ref;
  bool schemas = true;
  for (const auto& w : where.warehouses)
    if (!r.database.empty() && !w.database.empty() && Lower(w.database) == Lower(r.database)) {
      ref.warehouse = w.name;
      schemas = w.schemas;
      break;
    }
  if (ref.warehouse.empty()) {
    ref.warehouse = where.fallback;
    for (const auto& w : where.warehouses)
      if (w.name == ref.warehouse) schemas = w.schemas;
  }
  if (ref.warehouse.empty()) {
    *why = "the workspace configures no warehouse for its table";
    return std::nullopt;
  }
  ref.schema = schemas ? r.schema : "";
  ref.table = r.identifier;
  return ref;
}

// The node `id` names: a model, seed, snapshot (nodes) or a source (sources).
const Json* NodeOf(const Json& manifest, const std::string& id) {
  for (const char* section : {"nodes", "sources"}) {
    const Json& s = Obj(manifest, section);
    auto it = s.find(id);
    if (it != s.end() && it->is_object()) return &*it;
  }
  return nullptr;
}

// "ref('customers')", "ref('pkg', 'customers')", "source('raw', 'customers')" -> the node of
// `depends_on` it names, or "".
std::string ParentOf(const std::string& to, const Json& depends_on, const std::string& child) {
  std::vector<std::string> args;
  std::string cur;
  char quote = 0;
  for (char c : to) {
    if (quote != 0) {
      if (c == quote) {
        args.push_back(cur);
        cur.clear();
        quote = 0;
      } else {
        cur += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
    }
  }
  if (args.empty()) return "";
  const bool source = to.find("source(") != std::string::npos;
  for (const Json& n : depends_on) {
    if (!n.is_string()) continue;
    const std::string id = n.get<std::string>();
    if (id == child && depends_on.size() > 1) continue;
    std::vector<std::string> parts = RelationParts(id);  // dots split the unique id alike
    if (source && id.starts_with("source.") && parts.size() >= 4 && parts[parts.size() - 2] == args[0] &&
        parts.back() == args.back())
      return id;
    if (!source && !id.starts_with("source.") && parts.size() >= 3 &&
        (parts[2] == args.back() || parts.back() == args.back()))
      return id;
  }
  return "";
}

// "day" -> 24h, for dbt_utils.recency's datepart.
std::optional<std::chrono::milliseconds> DatePart(const std::string& part) {
  using std::chrono::milliseconds;
  const std::string p = Lower(part);
  if (p == "second") return milliseconds(1000);
  if (p == "minute") return milliseconds(60'000);
  if (p == "hour") return milliseconds(3'600'000);
  if (p == "day") return milliseconds(86'400'000);
  if (p == "week") return milliseconds(7 * 86'400'000LL);
  return std::nullopt;
}

const char* kKnown =
    "not_null, unique, accepted_values, relationships, dbt_utils.expression_is_true, "
    "dbt_utils.unique_combination_of_columns, dbt_utils.not_null_proportion, dbt_utils.recency, "
    "dbt_utils.at_least_one";

// Fills `t` from the test's macro and kwargs, or returns why it cannot be.
std::string Translate(const std::string& macro, const Json& kwargs, const Json& node, const Json& manifest,
                      const std::string& model, const TableRef& table, const DbtRelationPlaces& where,
                      ImportedTest& t) {
  if (HoldsJinja(kwargs)) return "its arguments hold Jinja the manifest left unrendered";
  if (kwargs.contains("group_by_columns") && !kwargs["group_by_columns"].is_null() &&
      !(kwargs["group_by_columns"].is_array() && kwargs["group_by_columns"].empty()))
    return "group_by_columns (a verdict per group) has no translation into one table scan";
  auto column = [&](const char* key, std::string* out) -> std::string {
    const std::string raw = Str(kwargs, key);
    if (raw.empty()) return std::string("it names no ") + key;
    std::optional<std::string> plain = PlainColumn(raw);
    if (!plain) return std::string(key) + " '" + raw + "' is an expression, not a column of the table";
    *out = *plain;
    return "";
  };
  std::string why;
  if (macro == "not_null" || macro == "dbt_utils.at_least_one") {
    t.kind = macro == "not_null" ? Kind::kNotNull : Kind::kAtLeastOne;
    return column("column_name", &t.column);
  }
  if (macro == "unique") {
    t.kind = Kind::kUniqueKey;
    why = column("column_name", &t.column);
    if (why.empty()) t.key = {t.column};
    t.column.clear();
    return why;
  }
  if (macro == "accepted_values") {
    t.kind = Kind::kAcceptedValues;
    why = column("column_name", &t.column);
    if (!why.empty()) return why;
    const Json values = kwargs.value("values", Json());
    if (!values.is_array() || values.empty()) return "it lists no values";
    const bool quote = !kwargs.contains("quote") || !kwargs["quote"].is_boolean() || kwargs["quote"].get<bool>();
    for (const Json& v : values) {
      if (!v.is_string() && !v.is_number() && !v.is_boolean()) return "a value is neither text, a number nor true/false";
      if (v.is_string() && !quote) return "quote: false makes its values SQL expressions, which are not translated";
      t.values.push_back(v);
    }
    return "";
  }
  if (macro == "relationships") {
    t.kind = Kind::kRelationships;
    why = column("column_name", &t.column);
    if (!why.empty()) return why;
    std::string field = Str(kwargs, "field");
    std::optional<std::string> plain = PlainColumn(field);
    if (!plain) return field.empty() ? "it names no field" : "field '" + field + "' is an expression";
    t.to_field = *plain;
    const std::string to = Str(kwargs, "to");
    const Json deps = Obj(node, "depends_on").value("nodes", Json::array());
    const std::string parent_id = ParentOf(to, deps, model);
    const Json* parent = parent_id.empty() ? nullptr : NodeOf(manifest, parent_id);
    if (parent == nullptr) return "its parent '" + to + "' is not among the nodes it depends on";
    std::optional<Relation> rel = RelationOf(*parent, &why);
    if (!rel) return "its parent " + parent_id + ": " + why;
    std::optional<TableRef> ref = Place(where, *rel, &why);
    if (!ref) return "its parent " + parent_id + ": " + why;
    if (ref->warehouse != table.warehouse)
      return "its parent " + parent_id + " lives in warehouse '" + ref->warehouse + "', the model in '" +
             table.warehouse + "': one statement cannot read both";
    t.to_schema = ref->schema;
    t.to_table = ref->table;
    return "";
  }
  if (macro == "dbt_utils.expression_is_true") {
    t.kind = Kind::kExpression;
    const std::string expression = Str(kwargs, "expression");
    if (expression.empty()) return "it has no expression";
    const std::string col = Str(kwargs, "column_name");
    t.expression = col.empty() ? expression : col + " " + expression;
    return "";
  }
  if (macro == "dbt_utils.unique_combination_of_columns") {
    t.kind = Kind::kUniqueKey;
    const Json cols = kwargs.value("combination_of_columns", Json());
    if (!cols.is_array() || cols.empty()) return "it lists no combination_of_columns";
    for (const Json& c : cols) {
      std::optional<std::string> plain = c.is_string() ? PlainColumn(c.get<std::string>()) : std::nullopt;
      if (!plain) return "combination_of_columns holds " + c.dump() + ", not a column name";
      t.key.push_back(*plain);
    }
    return "";
  }
  if (macro == "dbt_utils.not_null_proportion") {
    t.kind = Kind::kNotNull;
    why = column("column_name", &t.column);
    if (!why.empty()) return why;
    const Json at_least = kwargs.value("at_least", Json());
    if (!at_least.is_number() || at_least.get<double>() < 0 || at_least.get<double>() > 1)
      return "at_least is not a proportion between 0 and 1";
    if (kwargs.contains("at_most") && kwargs["at_most"].is_number() && kwargs["at_most"].get<double>() < 1)
      return "at_most below 1 (too few NULLs fails) has no translation";
    t.tuning.max_fraction = 1.0 - at_least.get<double>();
    return "";
  }
  if (macro == "dbt_utils.recency") {
    t.kind = Kind::kRecency;
    why = column("field", &t.column);
    if (!why.empty()) return why;
    if (kwargs.value("ignore_time_component", false) == true)
      return "ignore_time_component (whole dates) has no translation";
    std::optional<std::chrono::milliseconds> unit = DatePart(Str(kwargs, "datepart"));
    if (!unit) return "datepart '" + Str(kwargs, "datepart") + "' is not second, minute, hour, day or week";
    const Json interval = kwargs.value("interval", Json());
    if (!interval.is_number_integer() || interval.get<int64_t>() <= 0) return "interval is not a positive whole number";
    t.max_age = *unit * interval.get<int64_t>();
    return "";
  }
  return "its macro " + macro + " is not one the product pushes down (it pushes down: " + kKnown + ")";
}

}  // namespace

DbtRelationPlaces DbtRelationPlacesOf(const config::Workspace& ws) {
  DbtRelationPlaces out;
  for (const auto& [name, wh] : ws.warehouses)
    out.warehouses.push_back({name, warehouse::WarehouseDatabase(wh), warehouse::NamesTablesWithSchemas(wh.type)});
  if (ws.warehouses.size() == 1) out.fallback = ws.warehouses.begin()->first;
  else if (ws.warehouses.count("main")) out.fallback = "main";
  else if (!ws.warehouses.empty()) out.fallback = ws.warehouses.begin()->first;
  return out;
}

Result<DbtTestImport> ImportDbtTests(const Json& manifest, const DbtRelationPlaces& where) {
  if (!manifest.is_object() || !manifest.contains("nodes") || !manifest["nodes"].is_object())
    return InvalidArgument("$.nodes: a dbt manifest holds its models and tests under nodes");
  DbtTestImport out;
  out.project = Str(Obj(manifest, "metadata"), "project_name");
  std::map<std::string, size_t> table_at;  // asset id -> index in out.tables
  for (const auto& [id, node] : manifest["nodes"].items()) {
    if (Str(node, "resource_type") != "test") continue;
    ++out.tests;
    if (out.project.empty()) out.project = Str(node, "package_name");
    DbtTestNotImported refused{Str(node, "name"), id, Str(node, "attached_node"), ""};
    if (refused.name.empty()) refused.name = id;
    auto refuse = [&](std::string reason) {
      refused.reason = std::move(reason);
      out.not_imported.push_back(refused);
    };
    const Json& meta = Obj(node, "test_metadata");
    if (meta.empty()) {
      refuse("a singular test (its own SQL): the product cannot fold a query it did not write into the "
             "table's one scan");
      continue;
    }
    const Json deps = Obj(node, "depends_on").value("nodes", Json::array());
    if (refused.model.empty() && deps.is_array() && deps.size() == 1 && deps[0].is_string())
      refused.model = deps[0].get<std::string>();
    if (refused.model.empty()) {
      refuse("the manifest does not say which model it tests (no attached_node)");
      continue;
    }
    const Json* model = NodeOf(manifest, refused.model);
    if (model == nullptr) {
      refuse("the model it tests, " + refused.model + ", is not in the manifest");
      continue;
    }
    std::string why;
    std::optional<Relation> rel = RelationOf(*model, &why);
    std::optional<TableRef> ref = rel ? Place(where, *rel, &why) : std::nullopt;
    if (!ref) {
      refuse(why);
      continue;
    }
    const std::string ns = Str(meta, "namespace");
    const std::string macro = (ns.empty() ? "" : ns + ".") + Str(meta, "name");
    const Json& config = Obj(node, "config");
    for (const char* cond : {"warn_if", "error_if"}) {
      std::string v = Str(config, cond);
      v.erase(std::remove_if(v.begin(), v.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }), v.end());
      if (!v.empty() && v != "!=0") why = std::string(cond) + " '" + Str(config, cond) + "' (a failure count threshold) has no translation";
    }
    const std::string fail_calc = Str(config, "fail_calc");
    if (!fail_calc.empty() && Lower(fail_calc) != "count(*)") why = "fail_calc '" + fail_calc + "' has no translation";
    if (!why.empty()) {
      refuse(why);
      continue;
    }
    ImportedTest t;
    t.name = refused.name;
    t.test = macro;
    t.model = refused.model;
    t.where = Str(config, "where");
    if (Lower(Str(config, "severity")) == "warn") t.tuning.level = CheckLevel::kWarn;
    const Json& kwargs = Obj(meta, "kwargs");
    why = Translate(macro, kwargs, node, manifest, refused.model, *ref, where, t);
    if (why.empty() && HoldsJinja(Json(t.where))) why = "its where holds Jinja the manifest left unrendered";
    // An allowed rate a team keeps beside the test (dbt has none of its own for these macros).
    const Json& test_meta = Obj(config, "meta");
    for (const char* rate : {"max_fraction", "mostly"}) {
      if (!why.empty() || !test_meta.contains(rate)) continue;
      const Json& v = test_meta[rate];
      if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 1) {
        why = std::string("meta.") + rate + " is not a fraction between 0 and 1";
      } else if (t.kind != Kind::kNotNull && t.kind != Kind::kAcceptedValues) {
        why = std::string("meta.") + rate + " applies to not_null and accepted_values only";
      } else {
        t.tuning.max_fraction = std::string(rate) == "mostly" ? 1.0 - v.get<double>() : v.get<double>();
      }
    }
    if (!why.empty()) {
      refuse(why);
      continue;
    }
    const std::string asset = ref->AssetIdString();
    auto [it, fresh] = table_at.emplace(asset, out.tables.size());
    if (fresh) out.tables.push_back({*ref, {}});
    out.tables[it->second].tests.push_back(std::move(t));
  }
  return out;
}

Result<DbtTestImport> ImportDbtTestsFile(const std::filesystem::path& path, const DbtRelationPlaces& where) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path.string() + ": cannot be read (lineage.dbt_manifest)");
  std::ostringstream text;
  text << in.rdbuf();
  Json manifest = Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (manifest.is_discarded()) return InvalidArgument(path.string() + ": not valid JSON");
  Result<DbtTestImport> out = ImportDbtTests(manifest, where);
  if (!out.ok()) return InvalidArgument(path.string() + ": " + out.status().message());
  return out;
}

}  // namespace dw::observe::quality
