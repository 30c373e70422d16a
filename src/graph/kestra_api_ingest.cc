#include "graph/kestra_api_ingest.h"

#include <yaml-cpp/yaml.h>

#include "graph/ingest.h"
#include "graph/kestra_flows.h"
#include "graph/name_resolver.h"
#include "platforms/kestra/kestra_client.h"

namespace dw::graph {
namespace {

Result<const config::PlatformConfig*> KestraPlatform(const config::Workspace& ws, const std::string& name) {
  std::vector<std::string> kestras;
  for (const auto& [n, p] : ws.platforms)
    if (p.type == "kestra") kestras.push_back(n);
  if (name.empty()) {
    if (kestras.size() == 1) return &ws.platforms.at(kestras[0]);
    if (kestras.empty()) return NotFound("the workspace has no platform of type kestra");
    std::string list;
    for (const auto& k : kestras) list += (list.empty() ? "" : ", ") + k;
    return InvalidArgument("the workspace has several Kestra platforms (" + list + "): name one");
  }
  auto it = ws.platforms.find(name);
  if (it == ws.platforms.end() || it->second.type != "kestra") {
    std::string list;
    for (const auto& k : kestras) list += (list.empty() ? "" : ", ") + k;
    return NotFound("no Kestra platform named \"" + name + "\"" +
                    (list.empty() ? " (the workspace has none)" : " (Kestra platforms: " + list + ")"));
  }
  return &it->second;
}

// The flow's own id and namespace as its YAML states them, so that a source that disagrees with
// the listing is caught before it asserts edges under another flow's name.
std::pair<std::string, std::string> DeclaredName(const std::string& yaml) {
  try {
    YAML::Node root = YAML::Load(yaml);
    if (!root.IsMap()) return {};
    auto scalar = [&](const char* key) {
      return root[key] && root[key].IsScalar() ? root[key].as<std::string>() : std::string();
    };
    return {scalar("namespace"), scalar("id")};
  } catch (const YAML::Exception&) {
    return {};  // AddKestraFlow reports the parse error with its line
  }
}

}  // namespace

Result<Json> IngestKestraFlowsFromApi(const config::Workspace& ws, net::HttpClient& http,
                                      ContextGraph& graph, const KestraFlowIngestOptions& options) {
  auto platform = KestraPlatform(ws, options.platform);
  if (!platform.ok()) return platform.status();
  const std::string& name = (*platform)->name;
  platforms::kestra::KestraClient client(**platform, http);

  std::vector<platforms::kestra::Flow> flows;
  for (int page = 1;; ++page) {
    auto p = client.SearchFlows(page, options.page_size);
    if (!p.ok()) return Status(p.status().code(), name + ": " + p.status().message());
    flows.insert(flows.end(), p->results.begin(), p->results.end());
    if (flows.size() > options.max_flows)
      return ResourceExhausted(name + ": more than " + std::to_string(options.max_flows) + " flows listed");
    // A short page is the last; `total` also counts deleted flows, so it only bounds the paging.
    if (p->results.size() < static_cast<size_t>(options.page_size) ||
        static_cast<int64_t>(page) * options.page_size >= p->total)
      break;
  }

  KestraFlowOptions flow_options = KestraOptionsOf(ws, name);
  KestraFlowsRead read;
  SourceBatch& batch = read.batch;
  batch.origin = Origin::kKestra;
  batch.stale_prefixes.push_back("kestra://" + SanitizeInstance(name) + "/");
  size_t disabled = 0;
  for (const auto& listed : flows) {
    std::string label = name + " flow " + listed.namespace_ + "." + listed.id;
    // A call that fails is the platform's problem, not the flow's: nothing is stored, so that a
    // flow the server could not serve this once does not lose its edges.
    auto flow = client.GetFlow(listed.namespace_, listed.id);
    if (!flow.ok()) return Status(flow.status().code(), label + ": " + flow.status().message());
    // A flow that cannot be read is skipped with its reason; the others are still read.
    if (flow->source.empty()) {
      read.skipped.push_back(label + ": the API returned no source for the flow");
      continue;
    }
    auto [ns, id] = DeclaredName(flow->source);
    if (!ns.empty() && !id.empty() && (ns != listed.namespace_ || id != listed.id)) {
      read.skipped.push_back(label + ": its source declares " + ns + "." + id);
      continue;
    }
    size_t first_new = batch.assets.size();
    std::vector<std::string> problems;
    Status added = graph.Read([&](const GraphIndex& index) {
      return AddKestraFlow(flow->source, label, flow_options, index, &batch, &problems);
    });
    if (!read.Count(added, problems)) continue;
    if (flow->disabled) {
      // A disabled flow still describes where data would go, but it will not act: no next run.
      ++disabled;
      const std::string flow_id = "kestra://" + SanitizeInstance(name) + "/" + SanitizeName(listed.namespace_) + "." +
                                  SanitizeName(listed.id);
      for (size_t i = first_new; i < batch.assets.size(); ++i) {
        auto& a = batch.assets[i];
        if (a.id != flow_id) continue;
        a.schedule_disabled = true;
        // The revision that disabled it was saved at `updated`: disabled at least since then.
        if (flow->updated_ms) a.disabled_since = FormatRfc3339(FromUnixMillis(*flow->updated_ms));
        a.notes = "Disabled in Kestra." + (a.notes.empty() ? "" : " " + a.notes);
      }
    }
  }
  auto applied = graph.Apply(batch);
  if (!applied.ok()) return applied.status();
  Json out = SummaryJson(*applied);
  out["platform"] = name;
  out["flows"] = flows.size();
  out["disabled"] = disabled;
  out["flows_read"] = read.flows;
  out["flows_skipped"] = read.skipped.size();
  out["flows_partly_read"] = read.partly_read_flows;
  out["warnings"] = KestraReadWarnings(read, name);
  return out;
}

}  // namespace dw::graph
