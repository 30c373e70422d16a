#include "base/identifiers.h"
#include "graph/dbt_manifest.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "config/cron.h"
#include "graph/ingest.h"
#include "graph/name_resolver.h"
#include "warehouse/backends.h"

namespace dw::graph {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}


std::string Str(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// "\"db\".\"main\".\"orders\"" -> "db.main.orders" (the spelling SQL readers produce).
std::string UnquoteRelation(const std::string& relation) {
  std::string out;
  for (char c : relation)
    if (c != '"' && c != '`') out += c;
  return out;
}

std::string TablePart(const std::string& s) {
  std::string out;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '$';
    out += ok ? c : '_';
  }
  return out.empty() ? "unnamed" : out;
}

Json Columns(const Json& node) {
  auto it = node.find("columns");
  if (it == node.end() || !it->is_object() || it->empty()) return nullptr;
  Json out = Json::array();
  for (const auto& [name, col] : it->items()) {
    Json c{{"name", name}};
    if (col.is_object() && col.contains("data_type") && col["data_type"].is_string())
      c["type"] = col["data_type"];
    out.push_back(c);
  }
  return out;
}

std::string MetaOwner(const Json& node) {
  for (const char* where : {"meta", "config"}) {
    auto it = node.find(where);
    if (it == node.end() || !it->is_object()) continue;
    const Json& m = std::string(where) == "config" ? it->value("meta", Json::object()) : *it;
    if (m.is_object() && m.contains("owner") && m["owner"].is_string()) return m["owner"];
  }
  return "";
}

// dbt://<package>/<name> for "model.<package>.<name>" (also seed, snapshot); "" otherwise.
std::string UnlistedNodeId(const std::string& unique_id) {
  size_t a = unique_id.find('.');
  if (a == std::string::npos) return "";
  std::string type = unique_id.substr(0, a);
  if (type != "model" && type != "seed" && type != "snapshot") return "";
  size_t b = unique_id.find('.', a + 1);
  if (b == std::string::npos || b + 1 >= unique_id.size()) return "";
  std::string name = unique_id.substr(b + 1);
  if (size_t v = name.find('.'); v != std::string::npos) name = name.substr(0, v);  // model.p.m.v2
  return "dbt://" + SanitizeInstance(unique_id.substr(a + 1, b - a - 1)) + "/" + SanitizeName(name);
}

// The table id of relation (database, schema, identifier) under `where`, or "" when it lands in
// no warehouse.
std::string RelationTableId(const RelationWarehouses& where, const std::string& database, const std::string& schema,
                            const std::string& identifier) {
  std::string warehouse;
  bool schemas = true;
  for (const auto& w : where.warehouses)
    if (!database.empty() && !w.database.empty() && Lower(w.database) == Lower(database)) {
      warehouse = w.name;
      schemas = w.schemas;
      break;
    }
  if (warehouse.empty()) {
    warehouse = where.fallback;
    for (const auto& w : where.warehouses)
      if (w.name == warehouse) schemas = w.schemas;
  }
  if (warehouse.empty() || identifier.empty()) return "";
  const std::string id = "table://" + warehouse + "/" + (schemas && !schema.empty() ? TablePart(schema) + "." : "") +
                         TablePart(identifier);
  for (const std::string& known : where.known_tables)
    if (Lower(known) == Lower(id)) return known;
  return id;
}

// The relation a model, seed or snapshot builds: its database, schema and alias, completed from
// relation_name where the manifest leaves a field out. An ephemeral model builds none.
struct BuiltTable {
  std::string database, schema, identifier, name;  // name: relation_name as dbt wrote it
};
std::optional<BuiltTable> BuiltRelation(const Json& node) {
  const Json& config = node.value("config", Json::object());
  if (config.is_object() && config.value("materialized", Json()).is_string() &&
      config["materialized"].get<std::string>() == "ephemeral")
    return std::nullopt;
  BuiltTable r{Str(node, "database"), Str(node, "schema"), Str(node, "alias"), Str(node, "relation_name")};
  if (!r.name.empty()) {
    std::vector<std::string> parts = RelationParts(r.name);
    if (r.identifier.empty()) r.identifier = parts.back();
    if (r.schema.empty() && parts.size() >= 2) r.schema = parts[parts.size() - 2];
    if (r.database.empty() && parts.size() >= 3) r.database = parts[parts.size() - 3];
  }
  // A manifest that says neither (a hand-written one) does not say where the model lands.
  if (r.name.empty() && r.schema.empty()) return std::nullopt;
  if (r.identifier.empty()) r.identifier = Str(node, "name");
  return r;
}

// The manifest schema versions read: every field this reader takes (resource_type, name,
// package_name, database, schema, alias, relation_name, config.materialized, depends_on.nodes,
// columns, meta, sources' identifier, exposures' type and owner) has the same place and meaning
// from v7 (dbt 1.3) to v12 (dbt 1.8 to 1.11); v20 (dbt Fusion 2.0) is v12's schema.
bool SupportedManifestVersion(const std::string& url) {
  const std::string_view prefix = "/manifest/v";
  size_t at = url.rfind(prefix);
  if (at == std::string::npos || !url.ends_with(".json")) return false;
  std::string number = url.substr(at + prefix.size(), url.size() - 5 - at - prefix.size());
  if (number.empty() || number.size() > 3 || number.find_first_not_of("0123456789") != std::string::npos) return false;
  int v = std::stoi(number);
  return (v >= 7 && v <= 12) || v == 20;
}

}  // namespace

RelationWarehouses RelationWarehousesOf(const config::Workspace& ws) {
  RelationWarehouses out;
  for (const auto& [name, wh] : ws.warehouses)
    out.warehouses.push_back({name, warehouse::WarehouseDatabase(wh), warehouse::NamesTablesWithSchemas(wh.type)});
  out.fallback = ws.warehouses.empty() ? "" : DefaultWarehouse(ws);
  for (const auto& c : ws.checks) out.known_tables.push_back(c.asset_id);
  return out;
}

Result<SourceBatch> DbtManifestBatch(const Json& manifest, const std::string& warehouse, const GraphIndex& index) {
  RelationWarehouses where;
  where.fallback = warehouse;
  return DbtManifestBatch(manifest, where, index);
}

Result<SourceBatch> DbtManifestBatch(const Json& manifest, const RelationWarehouses& where, const GraphIndex& index) {
  if (!manifest.is_object()) return InvalidArgument("$: a dbt manifest is a JSON object");
  const Json& meta = manifest.value("metadata", Json::object());
  std::string version = meta.is_object() ? Str(meta, "dbt_schema_version") : "";
  if (version.empty())
    return InvalidArgument("$.metadata.dbt_schema_version: missing; is this a dbt manifest.json?");
  if (!SupportedManifestVersion(version))
    return InvalidArgument("$.metadata.dbt_schema_version: '" + version + "' is not supported; " +
                           kSupportedManifests);
  const std::string project = SanitizeInstance(Str(meta, "project_name"));

  SourceBatch batch;
  batch.origin = Origin::kDbt;
  std::map<std::string, std::string> id_of;      // unique_id -> canonical id of the node itself
  std::map<std::string, std::string> output_of;  // unique_id -> what a reader of it reads (its table)

  auto section = [&](const char* name) -> Result<const Json*> {
    auto it = manifest.find(name);
    if (it == manifest.end() || it->is_null()) return static_cast<const Json*>(nullptr);
    if (!it->is_object()) return InvalidArgument(std::string("$.") + name + ": expected an object");
    return &*it;
  };

  auto nodes = section("nodes");
  if (!nodes.ok()) return nodes.status();
  auto sources = section("sources");
  if (!sources.ok()) return sources.status();
  auto exposures = section("exposures");
  if (!exposures.ok()) return exposures.status();

  if (*sources)
    for (const auto& [uid, src] : (*sources)->items()) {
      const std::string path = "$.sources['" + uid + "']";
      if (!src.is_object()) return InvalidArgument(path + ": expected an object");
      std::string table = Str(src, "identifier");
      if (table.empty()) table = Str(src, "name");
      if (table.empty()) return InvalidArgument(path + ".name: missing");
      std::string relation = Str(src, "relation_name");
      std::string fallback = RelationTableId(where, Str(src, "database"), Str(src, "schema"), table);
      if (fallback.empty()) fallback = "table://unknown/" + TablePart(table);
      std::vector<std::string> names = {relation, UnquoteRelation(relation)};
      std::string id = ResolveName(index, names, "table", TablePart(table), fallback);
      AssetFacts f;
      f.id = id;
      f.owner = MetaOwner(src);
      f.notes = Str(src, "description");
      for (const std::string& n : names)
        if (!n.empty() && n != id) f.aliases.push_back(n);
      f.aliases.push_back(uid);
      f.columns = Columns(src);
      id_of[uid] = id;
      output_of[uid] = id;
      // A source table is read by this manifest's models: its edges are restated with it.
      batch.stale_assets.push_back(id);
      batch.assets.push_back(std::move(f));
    }

  if (*nodes)
    for (const auto& [uid, node] : (*nodes)->items()) {
      const std::string path = "$.nodes['" + uid + "']";
      if (!node.is_object()) return InvalidArgument(path + ": expected an object");
      std::string type = Str(node, "resource_type");
      if (type != "model" && type != "seed" && type != "snapshot") continue;
      std::string name = Str(node, "name");
      if (name.empty()) return InvalidArgument(path + ".name: missing");
      std::string package = Str(node, "package_name");
      std::string id = "dbt://" + SanitizeInstance(package.empty() ? project : package) + "/" +
                       SanitizeName(name);
      AssetFacts f;
      f.id = id;
      f.owner = MetaOwner(node);
      f.notes = Str(node, "description");
      id_of[uid] = id;
      output_of[uid] = id;
      // The table it builds is the asset the checks see; the model is its producer.
      std::optional<BuiltTable> built = BuiltRelation(node);
      std::string table = built ? RelationTableId(where, built->database, built->schema, built->identifier) : "";
      if (!table.empty()) {
        std::vector<std::string> names = {table, built->name, UnquoteRelation(built->name)};
        if (!built->database.empty() && !built->schema.empty())
          names.push_back(built->database + "." + built->schema + "." + built->identifier);
        // A name an older graph recorded on the model itself is not the table.
        if (std::string known = ResolveName(index, names, "table", "", table); known.starts_with("table://"))
          table = known;
        AssetFacts t;
        t.id = table;
        t.owner = f.owner;
        t.columns = Columns(node);
        for (const std::string& n : names)
          if (!n.empty() && n != table && std::find(t.aliases.begin(), t.aliases.end(), n) == t.aliases.end())
            t.aliases.push_back(n);
        t.aliases.push_back(uid);
        output_of[uid] = table;
        batch.assets.push_back(std::move(t));
        EdgeFacts e;
        e.src = id;
        e.dst = table;
        batch.edges.push_back(std::move(e));
      }
      f.columns = Columns(node);  // what the model selects, for column-level impact through it
      batch.assets.push_back(std::move(f));
    }

  if (*exposures)
    for (const auto& [uid, exp] : (*exposures)->items()) {
      const std::string path = "$.exposures['" + uid + "']";
      if (!exp.is_object()) return InvalidArgument(path + ": expected an object");
      std::string name = Str(exp, "name");
      if (name.empty()) return InvalidArgument(path + ".name: missing");
      std::string kind = Str(exp, "type") == "dashboard" ? "dashboard" : "api";
      std::string package = Str(exp, "package_name");
      std::string fallback = kind + "://" + SanitizeInstance(package.empty() ? project : package) +
                             "/" + SanitizeName(name);
      std::string id = ResolveName(index, {}, kind, SanitizeName(name), fallback);
      AssetFacts f;
      f.id = id;
      const Json& owner = exp.value("owner", Json::object());
      if (owner.is_object()) f.owner = !Str(owner, "email").empty() ? Str(owner, "email") : Str(owner, "name");
      f.notes = Str(exp, "description");
      // What the exposure says about its consumer: customer-facing (meta.customer_facing, or a
      // high maturity: what dbt itself calls the exposures people depend on), and when it acts
      // (meta.schedule, a cron in the workspace's time zone).
      const Json& meta = exp.value("meta", Json::object());
      if (meta.is_object() && meta.contains("customer_facing")) {
        if (!meta["customer_facing"].is_boolean())
          return InvalidArgument(path + ".meta.customer_facing: expected true or false");
        f.customer_facing = meta["customer_facing"].get<bool>();
      } else if (Lower(Str(exp, "maturity")) == "high") {
        f.customer_facing = true;
      }
      if (meta.is_object() && meta.contains("schedule")) {
        const std::string cron = meta["schedule"].is_string() ? meta["schedule"].get<std::string>() : "";
        Result<config::CronSchedule> parsed = config::ParseCron(cron);
        if (!parsed.ok())
          return InvalidArgument(path + ".meta.schedule: expected a cron schedule (" + parsed.status().message() + ")");
        f.schedule = cron;
      }
      id_of[uid] = id;
      // An exposure is this manifest's own: the edges into it are restated (or go stale) with it.
      batch.stale_assets.push_back(id);
      batch.assets.push_back(std::move(f));
    }

  // Edges, once every node has its id: depends_on.nodes lists what a node reads.
  auto add_edges = [&](const Json* sec, const char* sec_name) -> Status {
    if (!sec) return Status::Ok();
    for (const auto& [uid, node] : sec->items()) {
      auto me = id_of.find(uid);
      if (me == id_of.end()) continue;
      const Json& deps = node.value("depends_on", Json::object());
      if (!deps.is_object()) continue;
      auto list = deps.find("nodes");
      if (list == deps.end()) continue;
      if (!list->is_array())
        return InvalidArgument(std::string("$.") + sec_name + "['" + uid +
                               "'].depends_on.nodes: expected an array");
      for (const Json& dep : *list) {
        if (!dep.is_string()) continue;
        const std::string dep_id = dep.get<std::string>();
        auto up = output_of.find(dep_id);
        std::string src;
        if (up != output_of.end()) {
          src = up->second;
        } else {
          // A model outside this (perhaps partial) manifest is still a model: a placeholder.
          src = UnlistedNodeId(dep_id);
          if (src.empty()) continue;  // tests, macros, metrics, unknown sources: not placeable
        }
        EdgeFacts e;
        e.src = src;
        e.dst = me->second;
        batch.edges.push_back(std::move(e));
      }
    }
    return Status::Ok();
  };
  DW_RETURN_IF_ERROR(add_edges(*nodes, "nodes"));
  DW_RETURN_IF_ERROR(add_edges(*exposures, "exposures"));
  // The manifest owns its projects' dbt:// namespaces (the root project and every package with a
  // node in it), so another project's manifest never stales these edges, nor these theirs.
  std::set<std::string> prefixes = {"dbt://" + project + "/"};
  for (const AssetFacts& a : batch.assets)
    if (a.id.starts_with("dbt://")) prefixes.insert(a.id.substr(0, a.id.find('/', 6) + 1));
  batch.stale_prefixes.assign(prefixes.begin(), prefixes.end());
  return batch;
}

}  // namespace dw::graph
