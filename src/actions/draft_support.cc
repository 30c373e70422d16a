// Small readers the drafting shares: the team's Kestra flow files, asset id parts, owners and
// reachability in the context graph.
#include <algorithm>
#include <deque>
#include <fstream>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "actions/drafting.h"
#include "base/identifiers.h"
#include "config/yaml_documents.h"
#include "platforms/kestra/kestra_flow_files.h"

namespace dw::actions {
namespace fs = std::filesystem;

DraftedProposal DraftedKestraFlowDiff(const DraftContext& c, const std::string& title, const KestraFlowDiffProposal& d,
                                      const std::string& undo) {
  DraftedProposal p;
  p.kind = ProposalKind::kKestraFlowDiff;
  p.drafted = true;
  p.title = title;
  p.touches = {c.cause.asset_id};
  p.why = c.cause.explanation;
  p.evidence = c.cause.evidence;
  p.undo = undo;
  p.content = KestraFlowDiffToJson(d);
  return p;
}

DraftedProposal NotDrafted(ProposalKind kind, const std::string& title, const std::string& why) {
  DraftedProposal p;
  p.kind = kind;
  p.drafted = false;
  p.title = title;
  p.not_drafted = "not drafted: " + why;
  return p;
}

std::string KindOf(const std::string& asset_id) {
  Result<AssetId> id = ParseAssetId(asset_id);
  return id.ok() ? id->kind : "";
}

std::optional<KestraFlowName> KestraFlowOf(const std::string& asset_id) {
  Result<AssetId> id = ParseAssetId(asset_id);
  if (!id.ok() || id->kind != "kestra") return std::nullopt;
  size_t dot = id->name.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == id->name.size()) return std::nullopt;
  return KestraFlowName{id->instance, id->name.substr(0, dot), id->name.substr(dot + 1)};
}

std::string OwnerOf(const graph::GraphIndex& index, const std::string& asset) {
  graph::AssetIndex a = index.Find(asset);
  if (a == graph::kNone) return "";
  return index.str(index.asset(a).owner);
}

bool Reaches(const graph::GraphIndex& index, const std::string& from, const std::string& to) {
  graph::AssetIndex a = index.Find(from), b = index.Find(to);
  if (a == graph::kNone || b == graph::kNone || a == b) return false;
  std::set<graph::AssetIndex> seen{a};
  std::deque<graph::AssetIndex> todo{a};
  while (!todo.empty()) {
    graph::AssetIndex x = todo.front();
    todo.pop_front();
    for (graph::EdgeIndex e : index.out(x)) {
      const graph::EdgeEntry& edge = index.edge(e);
      if (edge.IsStale()) continue;
      if (edge.dst == b) return true;
      if (seen.insert(edge.dst).second) todo.push_back(edge.dst);
    }
  }
  return false;
}

namespace {

Result<std::string> ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot read " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

Result<FlowFile> FindFlowFile(const config::Workspace& ws, const std::string& namespace_,
                              const std::string& id) {
  if (ws.lineage.kestra_flows.empty())
    return NotFound("the workspace names no folder of Kestra flow YAML (lineage.kestra_flows), so flow " +
                    namespace_ + "." + id + " has no source to draft from");
  Result<std::vector<fs::path>> files = platforms::kestra::FlowFilesIn(ws.lineage.kestra_flows);
  if (!files.ok()) return NotFound("cannot read the Kestra flow folder: " + files.status().message());
  for (const fs::path& p : *files) {
    Result<std::string> text = ReadText(p);
    if (!text.ok()) continue;
    try {
      config::RequireUtf8Text(*text);  // its text goes into the diff's JSON
      YAML::Node doc = YAML::Load(*text);
      if (!doc.IsMap() || !doc["id"] || !doc["namespace"]) continue;
      if (doc["id"].as<std::string>() != id || doc["namespace"].as<std::string>() != namespace_) continue;
      FlowFile f;
      f.path = p;
      f.text = *text;
      f.namespace_ = namespace_;
      f.id = id;
      if (doc["triggers"] && doc["triggers"].IsSequence())
        for (const YAML::Node& t : doc["triggers"])
          if (t.IsMap() && t["id"]) {
            f.trigger_ids.push_back(t["id"].as<std::string>());
            f.trigger_types.push_back(t["type"] ? t["type"].as<std::string>() : "");
          }
      if (doc["inputs"] && doc["inputs"].IsSequence())
        for (const YAML::Node& i : doc["inputs"])
          if (i.IsMap() && i["id"] && i["type"] && i["type"].as<std::string>() == "DATE")
            f.date_inputs.push_back(i["id"].as<std::string>());
      return f;
    } catch (const YAML::Exception&) {
      continue;  // a file that is not YAML (or not UTF-8) is not this flow; the graph's ingest reports it
    }
  }
  return NotFound("no file in " + ws.lineage.kestra_flows + " holds flow " + namespace_ + "." + id);
}

}  // namespace dw::actions
