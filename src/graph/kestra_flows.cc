#include "graph/kestra_flows.h"

#include "platforms/kestra/kestra_flow_files.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "config/yaml_budget.h"
#include "config/yaml_documents.h"
#include "graph/name_resolver.h"
#include "graph/sql_table_refs.h"

namespace dw::graph {
namespace {

struct FlowContext {
  const KestraFlowOptions& options;
  const GraphIndex& index;
  SourceBatch* batch;
  std::string flow_id;    // canonical
  std::string namespace_;  // the flow's namespace
};

std::string Scalar(const YAML::Node& map, const char* key) {
  if (!map.IsMap()) return "";
  YAML::Node n = map[key];
  return n && n.IsScalar() ? n.as<std::string>() : "";
}

std::string KvId(const FlowContext& c, const std::string& ns, const std::string& key) {
  return "kv://" + SanitizeInstance(c.options.instance) + "/" + SanitizeName(ns.empty() ? c.namespace_ : ns) +
         "/" + SanitizeName(key);
}

std::string TableId(const FlowContext& c, const std::string& qualified) {
  // Keep schema.table: BigQuery's project.dataset.table drops the project.
  std::vector<std::string> parts;
  std::stringstream ss(qualified);
  for (std::string p; std::getline(ss, p, '.');)
    if (!p.empty()) parts.push_back(p);
  if (parts.empty()) return "";
  std::string name = parts.size() >= 2 ? parts[parts.size() - 2] + "." + parts.back() : parts.back();
  std::string fallback = "table://" + c.options.warehouse + "/" + name;
  return ResolveTable(c.index, {qualified}, parts.back(), fallback);
}

void AddEdge(FlowContext& c, const std::string& src, const std::string& dst, const char* rel = "feeds") {
  if (src.empty() || dst.empty() || src == dst) return;
  for (const EdgeFacts& e : c.batch->edges)
    if (e.src == src && e.dst == dst && e.relation == rel) return;
  c.batch->edges.push_back({src, dst, rel, nullptr});
}

void AddSql(FlowContext& c, const std::string& sql) {
  TableRefs refs = ExtractTableRefs(sql);
  for (const std::string& t : refs.reads) AddEdge(c, TableId(c, t), c.flow_id);
  for (const std::string& t : refs.writes) AddEdge(c, c.flow_id, TableId(c, t));
}

// kv('key'), kv("key", "ns"), kv('key', namespace='ns') in any expression.
void AddKvReads(FlowContext& c, const std::string& text) {
  if (text.find("kv(") == std::string::npos) return;
  static const std::regex kKv(
      R"re(\bkv\(\s*['"]([^'"]+)['"]\s*(?:,\s*(?:namespace\s*=\s*)?['"]([^'"]+)['"]\s*)?[,)])re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kKv); it != std::sregex_iterator(); ++it)
    AddEdge(c, KvId(c, (*it)[2].matched ? (*it)[2].str() : "", (*it)[1].str()), c.flow_id);
}

void Walk(FlowContext& c, const YAML::Node& node) {
  if (node.IsScalar()) {
    AddKvReads(c, node.as<std::string>());
    return;
  }
  if (node.IsSequence()) {
    for (const auto& child : node) Walk(c, child);
    return;
  }
  if (!node.IsMap()) return;
  std::string type = Scalar(node, "type");
  if (type.ends_with("kv.Set")) AddEdge(c, c.flow_id, KvId(c, Scalar(node, "namespace"), Scalar(node, "key")));
  if (type.ends_with("kv.Get")) AddEdge(c, KvId(c, Scalar(node, "namespace"), Scalar(node, "key")), c.flow_id);
  if (std::string dest = Scalar(node, "destinationTable"); !dest.empty())
    AddEdge(c, c.flow_id, TableId(c, dest));
  for (const char* key : {"sql", "query"})
    if (std::string sql = Scalar(node, key); !sql.empty()) AddSql(c, sql);
  for (const char* key : {"sqls", "queries"})
    if (node[key] && node[key].IsSequence())
      for (const auto& q : node[key])
        if (q.IsScalar()) AddSql(c, q.as<std::string>());
  for (const auto& kv : node) Walk(c, kv.second);
}

void AddTrigger(FlowContext& c, const YAML::Node& trigger, AssetFacts* flow) {
  std::string type = Scalar(trigger, "type");
  auto upstream = [&](const YAML::Node& n) {
    std::string ns = Scalar(n, "namespace"), id = Scalar(n, "flowId");
    if (!ns.empty() && !id.empty())
      AddEdge(c, "kestra://" + SanitizeInstance(c.options.instance) + "/" + ns + "." + id, c.flow_id,
              "triggers");
  };
  if (type.ends_with(".Flow")) {
    if (trigger["preconditions"] && trigger["preconditions"]["flows"] &&
        trigger["preconditions"]["flows"].IsSequence())
      for (const auto& f : trigger["preconditions"]["flows"]) upstream(f);
    if (trigger["conditions"] && trigger["conditions"].IsSequence())
      for (const auto& cond : trigger["conditions"])
        if (Scalar(cond, "type").find("ExecutionFlow") != std::string::npos) upstream(cond);
  } else if (type.ends_with(".Schedule")) {
    if (flow->schedule.empty()) flow->schedule = Scalar(trigger, "cron");
  } else if (type.find(".kafka.") != std::string::npos || type.find(".pubsub.") != std::string::npos) {
    const bool pubsub = type.find(".pubsub.") != std::string::npos;
    std::vector<std::string> topics;
    YAML::Node t = trigger["topic"];
    if (t && t.IsScalar()) topics.push_back(t.as<std::string>());
    if (t && t.IsSequence())
      for (const auto& x : t)
        if (x.IsScalar()) topics.push_back(x.as<std::string>());
    if (topics.empty() && pubsub && !Scalar(trigger, "subscription").empty())
      topics.push_back(Scalar(trigger, "subscription"));
    const std::string kind = pubsub ? "pubsub" : "kafka";
    std::string instance = pubsub ? Scalar(trigger, "projectId") : "";
    if (instance.empty()) instance = kind;
    for (const std::string& topic : topics) {
      std::string fallback = kind + "://" + SanitizeInstance(instance) + "/" + SanitizeName(topic);
      AddEdge(c, ResolveName(c.index, {}, kind, SanitizeName(topic), fallback), c.flow_id);
    }
  }
}

}  // namespace

Status AddKestraFlow(const std::string& yaml_text, const std::string& file,
                     const KestraFlowOptions& options, const GraphIndex& index, SourceBatch* batch) {
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
  try {
    FlowContext c{options, index, batch,
                  "kestra://" + SanitizeInstance(options.instance) + "/" + ns + "." + id, ns};
    AssetFacts flow;
    flow.id = c.flow_id;
    flow.notes = Scalar(root, "description");
    if (root["labels"] && root["labels"].IsMap()) flow.owner = Scalar(root["labels"], "owner");
    if (root["triggers"] && root["triggers"].IsSequence())
      for (const auto& t : root["triggers"]) AddTrigger(c, t, &flow);
    for (const char* section : {"tasks", "errors", "finally", "afterExecution"})
      if (root[section]) Walk(c, root[section]);
    batch->assets.push_back(std::move(flow));
  } catch (const YAML::Exception& e) {
    return InvalidArgument(file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return Status::Ok();
}

Result<SourceBatch> KestraFlowsBatch(const std::filesystem::path& folder,
                                     const KestraFlowOptions& options, const GraphIndex& index) {
  Result<std::vector<std::filesystem::path>> files = platforms::kestra::FlowFilesIn(folder);
  if (!files.ok()) return files.status();
  SourceBatch batch;
  batch.origin = Origin::kKestra;
  // The folder owns its instance's flows: other sources of origin kestra are left alone.
  batch.stale_prefixes.push_back("kestra://" + SanitizeInstance(options.instance) + "/");
  for (const auto& f : *files) {
    std::ifstream in(f);
    if (!in) return Unavailable(f.string() + ": cannot read the file");
    std::stringstream ss;
    ss << in.rdbuf();
    DW_RETURN_IF_ERROR(AddKestraFlow(ss.str(), f.string(), options, index, &batch));
  }
  return batch;
}

}  // namespace dw::graph
