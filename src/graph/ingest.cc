#include "graph/ingest.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

#include "graph/dbt_manifest.h"
#include "graph/kestra_flows.h"
#include "platforms/kestra/kestra_flow_files.h"
#include "graph/notes_source.h"
#include "graph/openlineage_event.h"
#include "warehouse/backends.h"

namespace dw::graph {
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

Result<Json> IngestDbtManifestFile(const config::Workspace& ws, ContextGraph& graph,
                                   const std::filesystem::path& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  Json manifest = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (manifest.is_discarded()) return InvalidArgument(path.string() + ": not valid JSON");
  auto batch = graph.Read([&](const GraphIndex& index) {
    return DbtManifestBatch(manifest, RelationWarehousesOf(ws), index);
  });
  if (!batch.ok()) return InvalidArgument(path.string() + ": " + batch.status().message());
  auto applied = graph.Apply(*batch);
  if (!applied.ok()) return applied.status();
  return SummaryJson(*applied);
}

// The workspace's own sources: notes, then lineage.dbt_manifest and lineage.kestra_flows when set.
// One sentence per source that failed (the others are still ingested).
std::vector<std::string> IngestWorkspaceSources(const config::Workspace& ws, ContextGraph& graph) {
  std::vector<std::string> warnings;
  auto notes = graph.Apply(NotesBatch(ws.assets));
  if (!notes.ok()) warnings.push_back("workspace notes: " + notes.status().message());
  if (!ws.lineage.dbt_manifest.empty()) {
    auto r = IngestDbtManifestFile(ws, graph, ws.lineage.dbt_manifest);
    if (!r.ok()) warnings.push_back("lineage.dbt_manifest: " + r.status().message());
  }
  if (!ws.lineage.kestra_flows.empty()) {
    KestraFlowOptions options = KestraOptionsOf(ws, platforms::kestra::FlowFolderInstance(ws));
    auto read = graph.Read([&](const GraphIndex& index) {
      return KestraFlowsBatch(ws.lineage.kestra_flows, options, index);
    });
    if (!read.ok()) {
      warnings.push_back(read.status().message());
    } else {
      for (std::string& w : KestraReadWarnings(*read, "lineage.kestra_flows")) warnings.push_back(std::move(w));
      if (auto r = graph.Apply(read->batch); !r.ok())
        warnings.push_back("lineage.kestra_flows: " + r.status().message());
    }
  }
  return warnings;
}

// At most this many refused lines are listed in the answer (all are counted).
constexpr size_t kListedRefusals = 100;

Result<Json> IngestOpenLineageFile(ContextGraph& graph, const std::filesystem::path& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  // The lines are parsed across the cores (the index is only read meanwhile).
  const int threads = static_cast<int>(std::max(1u, std::min(4u, std::thread::hardware_concurrency())));
  EventLines lines = graph.Read([&](const GraphIndex& index) {
    return RunEventLinesBatches(*text, index, graph.clock().Now(), threads);
  });
  // Each line is one event: a bad line costs only itself, unless no line could be read at all.
  if (lines.batches.empty() && !lines.refused.empty()) {
    const RefusedLine& first = lines.refused.front();
    return InvalidArgument(path.string() + ":" + std::to_string(first.line) + ": " + first.reason + " (no line of " +
                           std::to_string(lines.refused.size()) + " could be read)");
  }
  size_t events = lines.batches.size();
  auto applied = graph.Apply(MergeBatches(std::move(lines.batches)));
  if (!applied.ok()) return applied.status();
  Json out = SummaryJson(*applied);
  out["events"] = events;
  out["refused_count"] = lines.refused.size();
  Json refused = Json::array();
  for (size_t i = 0; i < lines.refused.size() && i < kListedRefusals; ++i)
    refused.push_back({{"line", lines.refused[i].line}, {"error", lines.refused[i].reason}});
  out["refused"] = std::move(refused);
  return out;
}

Result<Json> IngestOpenLineageBody(ContextGraph& graph, std::string_view text, int max_depth) {
  auto read = ReadOpenLineageBody(text, max_depth);
  if (!read.ok()) return read.status();
  auto ingested = IngestRunEvents(graph, *read);
  if (!ingested.ok()) return ingested.status();
  Json out = SummaryJson(ingested->applied);
  out["events"] = ingested->events;
  out["group_events"] = ingested->group_events;
  return out;
}

}  // namespace

IngestSource IngestSource::DbtManifestFile(std::filesystem::path p) {
  IngestSource s;
  s.kind = Kind::kDbtManifestFile;
  s.path = std::move(p);
  return s;
}

IngestSource IngestSource::OpenLineageFile(std::filesystem::path p) {
  IngestSource s;
  s.kind = Kind::kOpenLineageFile;
  s.path = std::move(p);
  return s;
}

IngestSource IngestSource::OpenLineageBody(std::string_view text, int max_depth) {
  IngestSource s;
  s.kind = Kind::kOpenLineageBody;
  s.body = text;
  s.max_json_depth = max_depth;
  return s;
}

IngestSource IngestSource::KestraApi(KestraFlowIngestOptions options) {
  IngestSource s;
  s.kind = Kind::kKestraApi;
  s.kestra = std::move(options);
  return s;
}

Result<Json> Ingest(const config::Workspace& ws, net::HttpClient& http, ContextGraph& graph,
                    const IngestSource& source) {
  switch (source.kind) {
    case IngestSource::Kind::kWorkspace:
      return Json{{"warnings", IngestWorkspaceSources(ws, graph)}};
    case IngestSource::Kind::kDbtManifestFile:
      return IngestDbtManifestFile(ws, graph, source.path);
    case IngestSource::Kind::kOpenLineageFile:
      return IngestOpenLineageFile(graph, source.path);
    case IngestSource::Kind::kOpenLineageBody:
      return IngestOpenLineageBody(graph, source.body, source.max_json_depth);
    case IngestSource::Kind::kKestraApi:
      return IngestKestraFlowsFromApi(ws, http, graph, source.kestra);
  }
  return InvalidArgument("unknown ingestion source");
}

Json SummaryJson(const ApplySummary& s) {
  return Json{{"assets_described", s.assets_described}, {"placeholders_added", s.placeholders_added},
              {"edges_added", s.edges_added},           {"edges_refreshed", s.edges_refreshed},
              {"edges_marked_stale", s.edges_marked_stale}, {"runs_recorded", s.runs_recorded}};
}

KestraFlowOptions KestraOptionsOf(const config::Workspace& ws, const std::string& instance) {
  return KestraFlowOptions{instance, DefaultWarehouse(ws), KnownWarehousesOf(ws)};
}

std::vector<KnownWarehouse> KnownWarehousesOf(const config::Workspace& ws) {
  std::vector<KnownWarehouse> out;
  for (const auto& [name, wh] : ws.warehouses) out.push_back({name, wh.type, warehouse::WarehouseDatabase(wh)});
  return out;
}

std::string DefaultWarehouse(const config::Workspace& ws) {
  if (ws.warehouses.size() == 1) return ws.warehouses.begin()->first;
  if (ws.warehouses.count("main") || ws.warehouses.empty()) return "main";
  return ws.warehouses.begin()->first;
}

Result<RunEventText> ReadOpenLineageBody(std::string_view text, int max_depth) {
  RunEventTextError why = RunEventTextError::kNone;
  auto read = ParseRunEventText(text, /*allow_array=*/true, max_depth, &why);
  if (!read.ok())
    return InvalidArgument(why == RunEventTextError::kTooDeep ? read.status().message()
                                                              : "the body is not valid JSON");
  if (!read->array && read->events.front().shape == JsonShape::kNull)
    return InvalidArgument("$: the body is empty; send an OpenLineage run event");
  return read;
}

Result<IngestedEvents> IngestRunEvents(ContextGraph& graph, const RunEventText& read) {
  const std::vector<RunEventFields>& events = read.events;
  std::vector<SourceBatch> batches;
  batches.reserve(events.size());
  Status failed;
  graph.Read([&](const GraphIndex& index) {
    for (size_t i = 0; i < events.size() && failed.ok(); ++i) {
      auto b = RunEventFieldsBatch(events[i], index, graph.clock().Now());
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
  return IngestedEvents{applied->applied, events.size(), applied->group_batches};
}

std::string IngestedEventsText(const IngestedEvents& in) {
  const ApplySummary& s = in.applied;
  return fmt::format(
      "{{\"assets_described\":{},\"edges_added\":{},\"edges_marked_stale\":{},\"edges_refreshed\":{},"
      "\"events\":{},\"group_events\":{},\"placeholders_added\":{},\"runs_recorded\":{}}}",
      s.assets_described, s.edges_added, s.edges_marked_stale, s.edges_refreshed, in.events,
      in.group_events, s.placeholders_added, s.runs_recorded);
}

}  // namespace dw::graph
