#include "graph/kestra_flows.h"

#include "platforms/kestra/kestra_flow_files.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

#include "config/cron.h"
#include "config/time_zone.h"
#include "config/yaml_budget.h"
#include "config/yaml_documents.h"
#include "graph/kestra_templates.h"
#include "graph/name_resolver.h"
#include "graph/sql_table_refs.h"

namespace dw::graph {
namespace {

struct FlowContext {
  const KestraFlowOptions& options;
  const GraphIndex& index;
  SourceBatch* batch;
  std::string file;
  std::string flow_id;     // canonical
  std::string namespace_;  // the flow's namespace
  KestraTemplates templates;
  std::vector<std::string> problems;
  std::map<std::string, std::string> templated;  // asset id -> the template that names it
};

// A value read as a name: the text to use, and the template it came from when only known at run time.
struct Name {
  std::string text;
  std::string template_text;  // non-empty: a placeholder stands in for run-time parts
};

std::string Scalar(const YAML::Node& map, const char* key) {
  if (!map.IsMap()) return "";
  YAML::Node n = map[key];
  return n && n.IsScalar() ? n.as<std::string>() : "";
}

void Problem(FlowContext& c, const std::string& where, const std::string& why) {
  c.problems.push_back(c.file + ": " + where + ": " + why);
}

// `value` as a name, templates rendered; nullopt (and a problem) when a template never closes.
std::optional<Name> NameOf(FlowContext& c, const std::string& where, const std::string& value) {
  RenderedValue r = c.templates.Render(value);
  if (r.kind == RenderedValue::Kind::kBroken) {
    Problem(c, where, r.problem + "; the value is left out");
    return std::nullopt;
  }
  return Name{r.text, r.kind == RenderedValue::Kind::kTemplated ? value : ""};
}

// `id`, remembered as named by a template when `name` is one.
std::string Mark(FlowContext& c, std::string id, const Name& name) {
  if (!name.template_text.empty() && !id.empty()) c.templated.emplace(id, name.template_text);
  return id;
}

std::string KestraId(const KestraFlowOptions& options, const std::string& ns, const std::string& id) {
  return "kestra://" + SanitizeInstance(options.instance) + "/" + SanitizeName(ns) + "." + SanitizeName(id);
}

std::string KvId(FlowContext& c, const std::string& where, const std::string& ns_value, const std::string& key_value) {
  auto key = NameOf(c, where + ": key", key_value);
  auto ns = NameOf(c, where + ": namespace", ns_value);
  if (!key || !ns || key->text.empty()) return "";
  Name both{"", key->template_text.empty() ? ns->template_text : key->template_text};
  return Mark(c,
              "kv://" + SanitizeInstance(c.options.instance) + "/" +
                  SanitizeName(ns->text.empty() ? c.namespace_ : ns->text) + "/" + SanitizeName(key->text),
              both);
}

// A part of a table name as ids allow it: letters, digits, '_', '-', '$'; others become '_'
// (a quoted "My Table" is My_Table).
std::string TablePart(const std::string& part) {
  std::string out;
  for (char c : part)
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '$' ? c : '_';
  return out;
}

std::string TableId(FlowContext& c, const std::string& where, const std::string& qualified,
                    const std::string& warehouse) {
  auto name = NameOf(c, where, qualified);
  if (!name) return "";
  // Keep schema.table: BigQuery's project.dataset.table drops the project.
  std::vector<std::string> parts;
  std::stringstream ss(name->text);
  for (std::string p; std::getline(ss, p, '.');)
    if (!p.empty()) parts.push_back(TablePart(p));
  if (parts.empty()) return "";
  std::string short_name = parts.size() >= 2 ? parts[parts.size() - 2] + "." + parts.back() : parts.back();
  std::string fallback = "table://" + warehouse + "/" + short_name;
  // A template is not a name another source knows, and a table of a connection's own warehouse is
  // not another warehouse's table of the same name.
  if (!name->template_text.empty() || warehouse != c.options.warehouse) return Mark(c, fallback, *name);
  return ResolveTable(c.index, {name->text}, parts.back(), fallback);
}

void AddEdge(FlowContext& c, const std::string& src, const std::string& dst, const char* rel = "feeds") {
  if (src.empty() || dst.empty() || src == dst) return;
  for (const EdgeFacts& e : c.batch->edges)
    if (e.src == src && e.dst == dst && e.relation == rel) return;
  c.batch->edges.push_back({src, dst, rel, nullptr});
}

void AddSql(FlowContext& c, const std::string& where, const std::string& sql, const std::string& warehouse) {
  // Templates stay in the text: the SQL reader keeps one that stands where a name is.
  RenderedValue rendered = c.templates.Render(sql, /*placeholders=*/false);
  if (rendered.kind == RenderedValue::Kind::kBroken) {
    Problem(c, where, rendered.problem + "; its SQL is left out");
    return;
  }
  TableRefs refs = ExtractTableRefs(rendered.text);
  for (const std::string& t : refs.reads) AddEdge(c, TableId(c, where, t, warehouse), c.flow_id);
  for (const std::string& t : refs.writes) AddEdge(c, c.flow_id, TableId(c, where, t, warehouse));
}

// The warehouse a task's or trigger's SQL runs in: the one its JDBC `url` names, else `inherited`.
std::string WarehouseOf(FlowContext& c, const YAML::Node& node, const std::string& inherited) {
  std::string url = Scalar(node, "url");
  if (url.empty()) return inherited;
  RenderedValue r = c.templates.Render(url);
  if (r.kind != RenderedValue::Kind::kLiteral && r.kind != RenderedValue::Kind::kResolved) return inherited;
  std::optional<JdbcTarget> target = ParseJdbcUrl(r.text);
  return target ? WarehouseForJdbc(*target, c.options.warehouses) : inherited;
}

void AddSqlProperties(FlowContext& c, const YAML::Node& node, const std::string& where, const std::string& warehouse) {
  for (const char* key : {"sql", "query", "afterSQL"})
    if (std::string sql = Scalar(node, key); !sql.empty()) AddSql(c, where + ": " + key, sql, warehouse);
  for (const char* key : {"sqls", "queries"})
    if (node[key] && node[key].IsSequence())
      for (const auto& q : node[key])
        if (q.IsScalar()) AddSql(c, where + ": " + key, q.as<std::string>(), warehouse);
}

// kv('key'), kv("key", "ns"), kv('key', namespace='ns') in any expression.
void AddKvReads(FlowContext& c, const std::string& where, const std::string& text) {
  if (text.find("kv(") == std::string::npos) return;
  static const std::regex kKv(
      R"re(\bkv\(\s*['"]([^'"]+)['"]\s*(?:,\s*(?:namespace\s*=\s*)?['"]([^'"]+)['"]\s*)?[,)])re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kKv); it != std::sregex_iterator(); ++it)
    AddEdge(c, KvId(c, where, (*it)[2].matched ? (*it)[2].str() : "", (*it)[1].str()), c.flow_id);
}

// The topics (or, for Pub/Sub, the subscription) a Kafka or Pub/Sub trigger or task names, as ids.
std::vector<std::string> TopicIds(FlowContext& c, const YAML::Node& node, const std::string& type,
                                  const std::string& where) {
  const bool pubsub = type.find(".pubsub.") != std::string::npos;
  std::vector<std::string> topics;
  YAML::Node t = node["topic"];
  if (!t) t = node["topics"];
  if (t && t.IsScalar()) topics.push_back(t.as<std::string>());
  if (t && t.IsSequence())
    for (const auto& x : t)
      if (x.IsScalar()) topics.push_back(x.as<std::string>());
  if (topics.empty() && pubsub && !Scalar(node, "subscription").empty())
    topics.push_back(Scalar(node, "subscription"));
  const std::string kind = pubsub ? "pubsub" : "kafka";
  // The project is the instance when it is known; a templated one (a secret) is not a name.
  std::string instance = kind;
  if (pubsub)
    if (auto project = NameOf(c, where + ": projectId", Scalar(node, "projectId"));
        project && project->template_text.empty() && !project->text.empty())
      instance = project->text;
  std::vector<std::string> ids;
  for (const std::string& topic_value : topics) {
    auto topic = NameOf(c, where + ": topic", topic_value);
    if (!topic || topic->text.empty()) continue;
    std::string fallback = kind + "://" + SanitizeInstance(instance) + "/" + SanitizeName(topic->text);
    ids.push_back(topic->template_text.empty()
                      ? ResolveName(c.index, {}, kind, SanitizeName(topic->text), fallback)
                      : Mark(c, fallback, *topic));
  }
  return ids;
}

bool IsMessaging(const std::string& type) {
  return type.find(".kafka.") != std::string::npos || type.find(".pubsub.") != std::string::npos;
}

// A task that calls another flow: the calling flow triggers it.
void AddSubflow(FlowContext& c, const YAML::Node& node, const std::string& where) {
  YAML::Node target = node;
  if (node["subflow"] && node["subflow"].IsMap()) target = node["subflow"];  // ForEachItem
  auto ns = NameOf(c, where + ": namespace", Scalar(target, "namespace"));
  auto id = NameOf(c, where + ": flowId", Scalar(target, "flowId"));
  if (!ns || !id || ns->text.empty() || id->text.empty()) return;
  Name both{"", ns->template_text.empty() ? id->template_text : ns->template_text};
  AddEdge(c, c.flow_id, Mark(c, KestraId(c.options, ns->text, id->text), both), "triggers");
}

std::string WhereOf(const YAML::Node& node, const std::string& path, const char* what) {
  std::string id = Scalar(node, "id");
  return id.empty() ? path : std::string(what) + " " + id;
}

void Walk(FlowContext& c, const YAML::Node& node, const std::string& where, const std::string& warehouse) {
  if (node.IsScalar()) {
    AddKvReads(c, where, node.as<std::string>());
    return;
  }
  if (node.IsSequence()) {
    size_t i = 0;
    for (const auto& child : node) Walk(c, child, where + "[" + std::to_string(i++) + "]", warehouse);
    return;
  }
  if (!node.IsMap()) return;
  const std::string here = WhereOf(node, where, "task");
  const std::string type = Scalar(node, "type");
  const std::string wh = WarehouseOf(c, node, warehouse);
  if (type.ends_with("kv.Set")) AddEdge(c, c.flow_id, KvId(c, here, Scalar(node, "namespace"), Scalar(node, "key")));
  if (type.ends_with("kv.Get")) AddEdge(c, KvId(c, here, Scalar(node, "namespace"), Scalar(node, "key")), c.flow_id);
  if (type.ends_with(".Subflow") || type == "io.kestra.core.tasks.flows.Flow" ||
      type == "io.kestra.plugin.core.flow.Flow" || type.ends_with(".ForEachItem"))
    AddSubflow(c, node, here);
  if (IsMessaging(type)) {
    const bool writes = type.ends_with(".Produce") || type.ends_with(".Publish");
    const bool reads = type.ends_with(".Consume");
    for (const std::string& topic : (writes || reads) ? TopicIds(c, node, type, here) : std::vector<std::string>{})
      writes ? AddEdge(c, c.flow_id, topic) : AddEdge(c, topic, c.flow_id);
  }
  if (std::string dest = Scalar(node, "destinationTable"); !dest.empty())
    AddEdge(c, c.flow_id, TableId(c, here + ": destinationTable", dest, wh));
  AddSqlProperties(c, node, here, wh);
  for (const auto& kv : node) {
    std::string key = kv.first.IsScalar() ? kv.first.as<std::string>() : "?";
    Walk(c, kv.second, here + "." + key, wh);
  }
}

// A Schedule trigger's cron, checked as Kestra would check it: 5 fields (6 with withSeconds, read
// to the minute), in the trigger's time zone. Returns false (and a problem) when Kestra would
// refuse it.
bool ReadSchedule(FlowContext& c, const YAML::Node& trigger, const std::string& where, std::string* cron,
                  std::string* zone) {
  *cron = Scalar(trigger, "cron");
  if (cron->empty()) {
    Problem(c, where, "a Schedule trigger needs a cron; the trigger is left out");
    return false;
  }
  if (Scalar(trigger, "withSeconds") == "true") {
    std::istringstream in(*cron);
    std::vector<std::string> fields;
    for (std::string f; in >> f;) fields.push_back(f);
    if (fields.size() == 6) {
      if (!std::all_of(fields[0].begin(), fields[0].end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
        Problem(c, where, "cron '" + *cron + "' fires more than once a minute; only minute schedules are read");
        return false;
      }
      *cron = fields[1] + " " + fields[2] + " " + fields[3] + " " + fields[4] + " " + fields[5];
    }
  }
  if (auto parsed = config::ParseCron(*cron); !parsed.ok()) {
    Problem(c, where, "cron " + parsed.status().message() + "; the trigger is left out");
    return false;
  }
  *zone = Scalar(trigger, "timezone");
  if (!zone->empty())
    if (auto z = config::TimeZone::Load(*zone); !z.ok()) {
      Problem(c, where, "timezone '" + *zone + "': " + z.status().message() + "; the trigger is left out");
      return false;
    }
  return true;
}

struct ScheduleChoice {
  std::string cron, zone;
  bool disabled = true;
  bool found = false;
};

void AddTrigger(FlowContext& c, const YAML::Node& trigger, const std::string& path, ScheduleChoice* schedule) {
  const std::string type = Scalar(trigger, "type");
  const std::string where = WhereOf(trigger, path, "trigger");
  auto upstream = [&](const YAML::Node& n) {
    auto ns = NameOf(c, where + ": namespace", Scalar(n, "namespace"));
    auto id = NameOf(c, where + ": flowId", Scalar(n, "flowId"));
    if (!ns || !id || ns->text.empty() || id->text.empty()) return;
    Name both{"", ns->template_text.empty() ? id->template_text : ns->template_text};
    AddEdge(c, Mark(c, KestraId(c.options, ns->text, id->text), both), c.flow_id, "triggers");
  };
  if (type.ends_with(".Flow")) {
    if (trigger["preconditions"] && trigger["preconditions"]["flows"] &&
        trigger["preconditions"]["flows"].IsSequence())
      for (const auto& f : trigger["preconditions"]["flows"]) upstream(f);
    if (trigger["conditions"] && trigger["conditions"].IsSequence())
      for (const auto& cond : trigger["conditions"])
        if (Scalar(cond, "type").find("ExecutionFlow") != std::string::npos) upstream(cond);
  } else if (type.ends_with(".Schedule")) {
    std::string cron, zone;
    if (!ReadSchedule(c, trigger, where, &cron, &zone)) return;
    const bool disabled = Scalar(trigger, "disabled") == "true";
    // The first enabled schedule is the flow's; a flow whose schedules are all disabled keeps the
    // first, disabled.
    if (!schedule->found || (schedule->disabled && !disabled)) *schedule = {cron, zone, disabled, true};
  } else if (IsMessaging(type)) {
    for (const std::string& topic : TopicIds(c, trigger, type, where)) AddEdge(c, topic, c.flow_id);
  }
  // A JDBC (or BigQuery) trigger polls with SQL, and may write with afterSQL.
  AddSqlProperties(c, trigger, where, WarehouseOf(c, trigger, c.options.warehouse));
}

// The statically known values templates may use: variables, inputs' defaults, the flow's names.
KestraTemplates TemplatesOf(const YAML::Node& root, const std::string& ns, const std::string& id) {
  std::map<std::string, std::string> values{{"flow.namespace", ns}, {"flow.id", id}};
  if (root["variables"] && root["variables"].IsMap())
    for (const auto& kv : root["variables"])
      if (kv.first.IsScalar() && kv.second.IsScalar())
        values["vars." + kv.first.as<std::string>()] = kv.second.as<std::string>();
  if (root["inputs"] && root["inputs"].IsSequence())
    for (const auto& input : root["inputs"]) {
      std::string name = Scalar(input, "id");
      if (name.empty()) name = Scalar(input, "name");  // before Kestra 0.15
      std::string fallback = Scalar(input, "defaults");
      if (!name.empty() && input["defaults"] && input["defaults"].IsScalar()) values["inputs." + name] = fallback;
    }
  return KestraTemplates(std::move(values));
}

}  // namespace

Status AddKestraFlow(const std::string& yaml_text, const std::string& file, const KestraFlowOptions& options,
                     const GraphIndex& index, SourceBatch* batch, std::vector<std::string>* problems) {
  YAML::Node root;
  try {
    config::RequireUtf8Text(yaml_text);
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    return InvalidArgument(file + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
  if (!config::YamlWithinNodeBudget(root))
    return InvalidArgument(file + ":1: the flow expands to more than " + std::to_string(config::kMaxYamlNodes) +
                           " YAML nodes once its aliases (*name) are followed");
  if (!root.IsMap()) return InvalidArgument(file + ":1: a Kestra flow is a YAML mapping");
  std::string id = Scalar(root, "id"), ns = Scalar(root, "namespace");
  if (id.empty()) return InvalidArgument(file + ":1: id: a Kestra flow needs an id");
  if (ns.empty()) return InvalidArgument(file + ":1: namespace: a Kestra flow needs a namespace");
  if (HoldsTemplate(id) || HoldsTemplate(ns))
    return InvalidArgument(file + ":1: a Kestra flow's id and namespace are names, not templates");
  // Read into a batch of its own, so that a flow refused half-way adds nothing.
  SourceBatch mine;
  try {
    FlowContext c{options, index, &mine, file, KestraId(options, ns, id),
                  ns, TemplatesOf(root, ns, id), {}, {}};
    AssetFacts flow;
    flow.id = c.flow_id;
    flow.notes = Scalar(root, "description");
    if (root["labels"] && root["labels"].IsMap()) flow.owner = Scalar(root["labels"], "owner");
    ScheduleChoice schedule;
    if (root["triggers"] && root["triggers"].IsSequence()) {
      size_t i = 0;
      for (const auto& t : root["triggers"]) AddTrigger(c, t, "triggers[" + std::to_string(i++) + "]", &schedule);
    }
    if (schedule.found) {
      flow.schedule = schedule.cron;
      flow.schedule_timezone = schedule.zone;
      flow.schedule_disabled = schedule.disabled || Scalar(root, "disabled") == "true";
    }
    for (const char* section : {"tasks", "errors", "finally", "afterExecution"})
      if (root[section]) Walk(c, root[section], section, options.warehouse);
    mine.assets.push_back(std::move(flow));
    for (const auto& [asset, text] : c.templated) {
      if (asset == c.flow_id) continue;
      AssetFacts a;
      a.id = asset;
      a.tags = {"templated"};
      a.notes = "Named by a template in Kestra flow " + ns + "." + id + ": " + text.substr(0, 200) +
                " (only known when the flow runs).";
      mine.assets.push_back(std::move(a));
    }
    if (problems != nullptr) problems->insert(problems->end(), c.problems.begin(), c.problems.end());
  } catch (const YAML::Exception& e) {
    return InvalidArgument(file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  for (auto& a : mine.assets) batch->assets.push_back(std::move(a));
  for (auto& e : mine.edges) {
    bool seen = false;
    for (const EdgeFacts& x : batch->edges) seen = seen || (x.src == e.src && x.dst == e.dst && x.relation == e.relation);
    if (!seen) batch->edges.push_back(std::move(e));
  }
  return Status::Ok();
}

Result<KestraFlowsRead> KestraFlowsBatch(const std::filesystem::path& folder, const KestraFlowOptions& options,
                                         const GraphIndex& index) {
  Result<std::vector<std::filesystem::path>> files = platforms::kestra::FlowFilesIn(folder);
  if (!files.ok()) return files.status();
  KestraFlowsRead read;
  read.batch.origin = Origin::kKestra;
  // The folder owns its instance's flows: other sources of origin kestra are left alone.
  read.batch.stale_prefixes.push_back("kestra://" + SanitizeInstance(options.instance) + "/");
  for (const auto& f : *files) {
    std::ifstream in(f);
    if (!in) {
      read.skipped.push_back(f.string() + ": cannot read the file");
      continue;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    std::vector<std::string> problems;
    read.Count(AddKestraFlow(ss.str(), f.string(), options, index, &read.batch, &problems), problems);
  }
  return read;
}

std::vector<std::string> KestraReadWarnings(const KestraFlowsRead& read, const std::string& source) {
  std::vector<std::string> out;
  if (read.skipped.empty() && read.partly.empty()) return out;
  out.push_back(source + ": " + std::to_string(read.skipped.size()) + " flow(s) skipped, " +
                std::to_string(read.partly_read_flows) + " partly read, " + std::to_string(read.flows) +
                " read");
  for (const std::string& s : read.skipped) out.push_back(source + ": skipped " + s);
  for (const std::string& p : read.partly) out.push_back(source + ": partly read " + p);
  return out;
}

}  // namespace dw::graph
