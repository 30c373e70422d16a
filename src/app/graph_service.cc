#include "app/graph_service.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "base/identifiers.h"
#include "graph/dbt_manifest.h"
#include "graph/kestra_flows.h"
#include "graph/notes_source.h"
#include "graph/openlineage_event.h"
#include "graph/openlineage_reader.h"
#include "warehouse/read_only_count.h"

namespace dw::app {
namespace {

// The file's bytes. A directory is refused by name: an ifstream opens one on Linux and reads
// nothing, which would ingest zero events and report success.
Result<std::string> ReadFile(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return InvalidArgument(path.string() + " is a directory; give the file to read");
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path.string() + ": cannot read the file");
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Unavailable(path.string() + ": reading the file failed");
  return ss.str();
}

std::string KestraInstance(const config::Workspace& ws) {
  for (const auto& [name, p] : ws.platforms)
    if (p.type == "kestra") return name;
  return "kestra";
}

}  // namespace

Json SummaryJson(const graph::ApplySummary& s) {
  return Json{{"assets_described", s.assets_described}, {"placeholders_added", s.placeholders_added},
              {"edges_added", s.edges_added},           {"edges_refreshed", s.edges_refreshed},
              {"edges_marked_stale", s.edges_marked_stale}, {"runs_recorded", s.runs_recorded}};
}

std::string DefaultWarehouse(const config::Workspace& ws) {
  if (ws.warehouses.size() == 1) return ws.warehouses.begin()->first;
  if (ws.warehouses.count("main") || ws.warehouses.empty()) return "main";
  return ws.warehouses.begin()->first;
}

std::vector<std::string> IngestWorkspaceSources(const config::Workspace& ws, graph::ContextGraph& graph) {
  std::vector<std::string> warnings;
  auto notes = graph.Apply(graph::NotesBatch(ws.assets));
  if (!notes.ok()) warnings.push_back("workspace notes: " + notes.status().message());
  if (!ws.lineage.dbt_manifest.empty()) {
    auto r = IngestDbtManifestFile(ws, graph, ws.lineage.dbt_manifest);
    if (!r.ok()) warnings.push_back("lineage.dbt_manifest: " + r.status().message());
  }
  if (!ws.lineage.kestra_flows.empty()) {
    graph::KestraFlowOptions options{KestraInstance(ws), DefaultWarehouse(ws)};
    auto batch = graph.Read([&](const graph::GraphIndex& index) {
      return graph::KestraFlowsBatch(ws.lineage.kestra_flows, options, index);
    });
    if (!batch.ok()) {
      warnings.push_back(batch.status().message());
    } else if (auto r = graph.Apply(*batch); !r.ok()) {
      warnings.push_back("lineage.kestra_flows: " + r.status().message());
    }
  }
  return warnings;
}

Result<Json> IngestDbtManifestFile(const config::Workspace& ws, graph::ContextGraph& graph,
                                   const std::filesystem::path& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  Json manifest = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (manifest.is_discarded()) return InvalidArgument(path.string() + ": not valid JSON");
  auto batch = graph.Read([&](const graph::GraphIndex& index) {
    return graph::DbtManifestBatch(manifest, DefaultWarehouse(ws), index);
  });
  if (!batch.ok()) return InvalidArgument(path.string() + ": " + batch.status().message());
  auto applied = graph.Apply(*batch);
  if (!applied.ok()) return applied.status();
  return SummaryJson(*applied);
}

// Applies the batches of several OpenLineage events as one write and summarises it.
static Result<Json> ApplyEventBatches(graph::ContextGraph& graph, std::vector<graph::SourceBatch> batches) {
  size_t events = batches.size();
  auto applied = graph.Apply(graph::MergeBatches(std::move(batches)));
  if (!applied.ok()) return applied.status();
  Json out = SummaryJson(*applied);
  out["events"] = events;
  return out;
}

Result<Json> IngestOpenLineageFile(graph::ContextGraph& graph, const std::filesystem::path& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  // The lines are parsed across the cores (the index is only read meanwhile).
  const int threads = static_cast<int>(std::max(1u, std::min(4u, std::thread::hardware_concurrency())));
  auto batches = graph.Read([&](const graph::GraphIndex& index) {
    return graph::RunEventLinesBatches(*text, index, graph.clock().Now(), threads);
  });
  if (!batches.ok()) return InvalidArgument(path.string() + ":" + batches.status().message());
  return ApplyEventBatches(graph, std::move(batches).value());
}

namespace {

// The events of an HTTP body, or kInvalidArgument naming what is wrong with it.
Result<graph::RunEventText> ReadLineageBody(std::string_view text, int max_depth) {
  graph::RunEventTextError why = graph::RunEventTextError::kNone;
  auto read = graph::ParseRunEventText(text, /*allow_array=*/true, max_depth, &why);
  if (!read.ok())
    return InvalidArgument(why == graph::RunEventTextError::kTooDeep ? read.status().message()
                                                                     : "the body is not valid JSON");
  if (!read->array && read->events.front().shape == graph::JsonShape::kNull)
    return InvalidArgument("$: the body is empty; send an OpenLineage run event");
  return read;
}

// What one intake stored: the summary of its commit group, its own events, the group's.
struct Ingested {
  graph::ApplySummary applied;
  size_t events = 0;
  size_t group_events = 0;
};

Json IngestedJson(const Ingested& in) {
  Json out = SummaryJson(in.applied);
  out["events"] = in.events;
  out["group_events"] = in.group_events;
  return out;
}

// IngestedJson as text, written directly (the route answers every event with it); the same keys
// in the same (sorted) order as nlohmann writes them.
std::string IngestedText(const Ingested& in) {
  const graph::ApplySummary& s = in.applied;
  return fmt::format(
      "{{\"assets_described\":{},\"edges_added\":{},\"edges_marked_stale\":{},\"edges_refreshed\":{},"
      "\"events\":{},\"group_events\":{},\"placeholders_added\":{},\"runs_recorded\":{}}}",
      s.assets_described, s.edges_added, s.edges_marked_stale, s.edges_refreshed, in.events,
      in.group_events, s.placeholders_added, s.runs_recorded);
}

// Resolves the events under the shared lock and stores them by group commit.
Result<Ingested> IngestRunEvents(graph::ContextGraph& graph, const graph::RunEventText& read) {
  const std::vector<graph::RunEventFields>& events = read.events;
  std::vector<graph::SourceBatch> batches;
  batches.reserve(events.size());
  Status failed;
  graph.Read([&](const graph::GraphIndex& index) {
    for (size_t i = 0; i < events.size() && failed.ok(); ++i) {
      auto b = graph::RunEventFieldsBatch(events[i], index, graph.clock().Now());
      if (!b.ok()) {
        std::string msg = b.status().message();
        // "$.x" inside element i is "$[i].x" of the body.
        failed = read.array ? InvalidArgument("$[" + std::to_string(i) + "]" + msg.substr(msg.rfind('$', 0) == 0 ? 1 : 0))
                            : b.status();
      } else {
        batches.push_back(std::move(b).value());
      }
    }
    return 0;
  });
  if (!failed.ok()) return failed;
  auto applied = graph.ApplyGrouped(std::move(batches));
  if (!applied.ok()) return applied.status();
  return Ingested{applied->applied, events.size(), applied->group_batches};
}

}  // namespace

Result<Json> IngestOpenLineageText(graph::ContextGraph& graph, std::string_view text, int max_depth) {
  auto read = ReadLineageBody(text, max_depth);
  if (!read.ok()) return read.status();
  auto ingested = IngestRunEvents(graph, *read);
  if (!ingested.ok()) return ingested.status();
  return IngestedJson(*ingested);
}

mcp::JsonRouteReply LineageRoute(Services& services, const mcp::JsonRouteRequest& request) {
  // Routes registered without raw_body hand over a parsed body: read its text the same way.
  std::string dumped;
  std::string_view text = request.raw_body;
  if (!request.body.is_null()) text = dumped = request.body.dump();
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return {400, Json{{"error", "$: the body is empty; send an OpenLineage run event"}}};
  // Parsed before touching the graph: no lock is held while the text is read.
  auto read = ReadLineageBody(text, request.max_json_depth);
  if (!read.ok()) return {400, Json{{"error", read.status().message()}}};
  // No per-request refresh check: the write syncs with the store's generation first.
  auto graph = services.graph_for_write();
  if (!graph.ok()) return {503, Json{{"error", "the context graph is unavailable: " + graph.status().message()}}};
  auto r = IngestRunEvents(**graph, *read);
  if (!r.ok()) {
    // 503 is retryable: the store was locked, or other processes kept writing the graph.
    const StatusCode code = r.status().code();
    int status = code == StatusCode::kInvalidArgument ? 400 : code == StatusCode::kUnavailable ? 503 : 500;
    return {status, Json{{"error", r.status().message()}}};
  }
  return {201, Json::object(), IngestedText(*r)};
}

Result<Json> LineageAnswer(Services& services, const std::string& asset, const graph::LineageOptions& options) {
  auto graph = services.graph();
  if (!graph.ok()) return graph.status();
  auto r = (*graph)->Read([&](const graph::GraphIndex& index) { return graph::TraceLineage(index, asset, options); });
  if (!r.ok()) return r.status();
  (*r)["warnings"] = services.graph_warnings();
  return r;
}

Result<Json> BlastRadiusAnswer(Services& services, const std::vector<std::string>& assets,
                               std::optional<TimePoint> since, const graph::WalkOptions& walk) {
  auto graph = services.graph();
  if (!graph.ok()) return graph.status();
  const config::Workspace& ws = services.workspace();
  graph::BlastRadiusOptions options;
  options.walk = walk;
  options.since = since;
  options.timezone = ws.timezone;
  const TimePoint now = services.clock().Now();
  auto report = (*graph)->Read([&](const graph::GraphIndex& index) {
    return graph::BlastRadius(index, assets, options, now);
  });
  if (!report.ok()) return report.status();
  // Counts run outside the graph lock: they are warehouse queries.
  graph::FillImpactCounts(&*report, since, [&](const std::string& asset, const std::string& sql,
                                               TimePoint at) -> Result<int64_t> {
    std::string wh_name = DefaultWarehouse(ws);
    if (auto id = ParseAssetId(asset); id.ok() && id->kind == "table") wh_name = id->instance;
    auto wh = ws.warehouses.find(wh_name);
    if (wh == ws.warehouses.end())
      return FailedPrecondition("no warehouse '" + wh_name + "' to run the impact_sql of " + asset);
    return warehouse::RunReadOnlyCount(wh->second, sql, {{"since", FormatRfc3339(at)}});
  });
  report->body["timezone"] = ws.timezone;
  report->body["warnings"] = services.graph_warnings();
  return report->body;
}

}  // namespace dw::app
