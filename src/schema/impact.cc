// AssessImpact: the changed fields followed from the subject's topic through the context graph.
#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "base/rfc3339.h"
#include "graph/next_act.h"
#include "graph/blast_radius.h"
#include "schema/schema.h"

namespace dw::schema {
namespace {

// How precisely a reach is known, finest first. A reach is as coarse as the coarsest hop on it.
enum class Lineage { kColumn = 0, kName = 1, kTable = 2 };
const char* LineageName(Lineage l) { return l == Lineage::kColumn ? "column" : l == Lineage::kName ? "column_name" : "table"; }

struct Reach {
  uint32_t depth = 0;
  std::set<std::string> columns;
  Lineage lineage = Lineage::kColumn;
  graph::AssetIndex via = graph::kNone;
};

bool IsJob(const std::string& kind) { return kind == "flink" || kind == "connect" || kind == "kestra" || kind == "job"; }

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The known column names of `a` (lower case), or nullopt when the graph does not know them.
std::optional<std::map<std::string, std::string>> Columns(const graph::GraphIndex& index, graph::AssetIndex a) {
  const Json& cols = index.details(a).columns;
  if (!cols.is_array() || cols.empty()) return std::nullopt;
  std::map<std::string, std::string> out;
  for (const auto& c : cols)
    if (c.is_object() && c.contains("name") && c["name"].is_string()) out[Lower(c["name"].get<std::string>())] = c["name"].get<std::string>();
  return out;
}

std::vector<graph::AssetIndex> TopicAssets(const graph::GraphIndex& index, const std::string& subject) {
  std::vector<graph::AssetIndex> out;
  const std::string tag = "schema-subject:" + subject;
  for (graph::AssetIndex a = 0; a < index.asset_count(); ++a) {
    const auto& tags = index.details(a).tags;
    if (std::find(tags.begin(), tags.end(), tag) != tags.end()) out.push_back(a);
  }
  if (!out.empty()) return out;
  std::string topic = TopicOfSubject(subject);
  uint32_t kafka = graph::KindIndex("kafka");
  if (topic.empty() || kafka == graph::kNone) return out;
  for (graph::AssetIndex a = 0; a < index.asset_count(); ++a)
    if (index.asset(a).kind == kafka && graph::MatchName(index.id(a)) == topic) out.push_back(a);
  if (out.empty())
    if (auto alias = index.FindAlias(topic); alias != graph::kNone) out.push_back(alias);
  return out;
}

}  // namespace

Result<Json> AssessImpact(const graph::GraphIndex& index, const std::string& subject, const ParsedSchema& before,
                          int64_t before_version, const ParsedSchema& after, const CompatibilityReport& verdict,
                          const ImpactOptions& options, TimePoint now) {
  if (Status s = ValidateSubject(subject); !s.ok()) return s;
  std::vector<FieldChange> changes = ChangedFields(before, after);
  Json changed = Json::array();
  std::set<std::string> followed;
  for (const auto& c : changes) {
    Json j = {{"field", c.field}, {"change", c.change}};
    if (!c.from_type.empty()) j["from_type"] = c.from_type;
    if (!c.to_type.empty()) j["to_type"] = c.to_type;
    if (!c.renamed_to.empty()) j["renamed_to"] = c.renamed_to;
    changed.push_back(j);
    // Readers break where a field's values stop arriving under its name or change type; an added
    // field only adds a column.
    if (c.change != "added") followed.insert(c.field);
  }
  std::vector<graph::AssetIndex> roots = TopicAssets(index, subject);
  std::string topic = TopicOfSubject(subject);
  if (roots.empty())
    return NotFound("no asset of the context graph stands for subject " + subject +
                    (topic.empty() ? " (it does not follow TopicNameStrategy <topic>-value/-key)"
                                   : " (looked for a kafka asset named " + topic + ")") +
                    "; add the topic to assets: in dataworkers.yaml, or tag it schema-subject:" + subject);

  std::map<graph::AssetIndex, Reach> reached;
  std::deque<graph::AssetIndex> queue;
  for (auto r : roots) {
    reached[r] = Reach{0, {followed.begin(), followed.end()}, Lineage::kColumn, graph::kNone};
    queue.push_back(r);
  }
  Json not_affected = Json::array();
  std::set<graph::AssetIndex> unaffected_seen;
  // Hops the graph knows only as table lineage (no column edges, no known columns): the changed
  // fields are carried across them whole, and the answer says so rather than widen silently.
  std::set<std::pair<graph::AssetIndex, graph::AssetIndex>> table_hops;
  size_t steps = 0;
  bool truncated = false;
  while (!queue.empty() && !followed.empty()) {
    if (++steps > 100000) {
      truncated = true;
      break;
    }
    graph::AssetIndex a = queue.front();
    queue.pop_front();
    Reach from = reached[a];
    if (static_cast<int>(from.depth) >= options.max_depth) continue;
    std::set<std::string> affected_assets;
    for (const auto& [x, r] : reached) affected_assets.insert(index.id(x));
    for (graph::EdgeIndex e : index.out(a)) {
      const auto& edge = index.edge(e);
      if (edge.IsStale()) continue;
      graph::AssetIndex b = edge.dst;
      std::string kind = index.kind_name(b);
      Reach next{from.depth + 1, {}, from.lineage, a};
      const Json& lineage = index.edge_columns(e);
      if (edge.relation == graph::Relation::kTriggers) {
        next.columns = from.columns;
        next.lineage = Lineage::kTable;
      } else if (lineage.is_array() && !lineage.empty()) {
        for (const auto& c : lineage)
          for (const auto& src : c.value("from", Json::array()))
            if (src.is_object() && from.columns.count(src.value("column", "")) && affected_assets.count(src.value("asset", "")))
              next.columns.insert(c.value("column", ""));
      } else if (IsJob(kind)) {
        next.columns = from.columns;  // a job carries the fields it reads by name
      } else if (auto cols = Columns(index, b)) {
        for (const auto& c : from.columns)
          if (auto it = cols->find(Lower(c)); it != cols->end()) next.columns.insert(it->second);
        next.lineage = std::max(from.lineage, Lineage::kName);
      } else {
        next.columns = from.columns;
        next.lineage = Lineage::kTable;
        table_hops.insert({a, b});
      }
      if (next.columns.empty()) {
        if (!reached.count(b) && unaffected_seen.insert(b).second)
          not_affected.push_back({{"asset", index.id(b)}, {"reads", index.id(a)},
                                  {"reason", lineage.is_array() && !lineage.empty()
                                                 ? "its column lineage takes none of the changed fields"
                                                 : "its known columns include none of the changed fields"}});
        continue;
      }
      auto it = reached.find(b);
      if (it == reached.end()) {
        reached[b] = next;
        queue.push_back(b);
      } else {
        size_t before_size = it->second.columns.size();
        it->second.columns.insert(next.columns.begin(), next.columns.end());
        if (it->second.columns.size() != before_size) queue.push_back(b);
      }
    }
  }

  Json assets = Json::array(), sinks = Json::array(), tables = Json::array(), models = Json::array(), consumers = Json::array();
  std::map<std::string, std::vector<std::string>> owners;
  std::vector<std::pair<std::vector<graph::AssetIndex>::size_type, graph::AssetIndex>> order;
  std::vector<graph::AssetIndex> ordered;
  for (const auto& [a, r] : reached)
    if (r.depth > 0) ordered.push_back(a);
  std::sort(ordered.begin(), ordered.end(), [&](auto x, auto y) {
    return reached[x].depth != reached[y].depth ? reached[x].depth < reached[y].depth : index.id(x) < index.id(y);
  });
  for (graph::AssetIndex a : ordered) {
    const Reach& r = reached[a];
    const auto& entry = index.asset(a);
    std::string kind = index.kind_name(a);
    Json j = {{"asset", index.id(a)}, {"kind", kind}, {"depth", r.depth}, {"via", index.id(r.via)},
              {"fields", std::vector<std::string>(r.columns.begin(), r.columns.end())},
              {"lineage", LineageName(r.lineage)}, {"coarser", r.lineage != Lineage::kColumn}};
    if (entry.owner) {
      j["owner"] = index.str(entry.owner);
      owners[index.str(entry.owner)].push_back(index.id(a));
    }
    if (entry.domain) j["domain"] = index.str(entry.domain);
    if (entry.flags & graph::kCustomerFacing) j["customer_facing"] = true;
    assets.push_back(j);
    if (IsJob(kind) && r.depth == 1) sinks.push_back(j);
    if (kind == "table") tables.push_back(j);
    if (kind == "dbt") models.push_back(j);
    if (std::optional<graph::NextAct> act = graph::NextActOf(index.details(a), now, options.timezone)) {
      Json c = j;
      c["schedule"] = index.details(a).schedule;
      graph::WriteNextAct(*act, now, &c);
      consumers.push_back(c);
    }
  }
  std::sort(consumers.begin(), consumers.end(), [](const Json& x, const Json& y) {
    return x.value("time_left_seconds", INT64_MAX) < y.value("time_left_seconds", INT64_MAX);
  });
  Json owner_list = Json::array();
  for (const auto& [o, list] : owners) owner_list.push_back({{"owner", o}, {"assets", list}});
  Json topics = Json::array();
  for (auto r : roots) topics.push_back(index.id(r));
  Json table_only = Json::array();
  for (const auto& [from_asset, to_asset] : table_hops)
    if (reached.count(to_asset)) table_only.push_back({{"from", index.id(from_asset)}, {"to", index.id(to_asset)}});

  std::string summary;
  if (followed.empty()) {
    summary = "no existing field is removed, renamed or retyped; nothing downstream reads a changed field";
  } else {
    std::string names;
    for (const auto& f : followed) names += (names.empty() ? "" : ", ") + f;
    summary = "changed field(s) " + names + " reach " + std::to_string(ordered.size()) + " asset(s): " + std::to_string(tables.size()) +
              " table(s), " + std::to_string(models.size()) + " dbt model(s), " + std::to_string(consumers.size()) + " scheduled consumer(s)";
    if (!consumers.empty()) summary += "; next to act: " + consumers[0]["asset"].get<std::string>() +
                                       (consumers[0].contains("time_left") ? " in " + consumers[0]["time_left"].get<std::string>() : "");
    if (!table_only.empty())
      summary += "; " + std::to_string(table_only.size()) + " hop(s) have table lineage only (first: " +
                 table_only[0]["from"].get<std::string>() + " -> " + table_only[0]["to"].get<std::string>() +
                 "), so what lies past them may read none of the changed fields";
    if (!verdict.compatible) summary += "; the registry would refuse it at " + std::string(LevelName(verdict.level));
    else if (verdict.level == Level::kNone) summary += "; under NONE the registry accepts it, so readers break silently";
  }
  return Json{{"subject", subject},
              {"topics", topics},
              {"compared_with_version", before_version},
              {"verdict", ReportJson(verdict)},
              {"changed_fields", changed},
              {"fields_followed", std::vector<std::string>(followed.begin(), followed.end())},
              {"reached", assets},
              {"sinks", sinks},
              {"tables", tables},
              {"models", models},
              {"consumers", consumers},
              {"owners", owner_list},
              {"not_affected", not_affected},
              {"table_lineage_only", table_only},
              {"truncated", truncated},
              {"summary", summary}};
}

}  // namespace dw::schema
