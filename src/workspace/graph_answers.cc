#include "workspace/graph_answers.h"

#include "base/identifiers.h"
#include "graph/ingest.h"
#include "workspace/incident_desk.h"

namespace dw::workspace {

net::JsonRouteReply LineageRoute(Services& services, const net::JsonRouteRequest& request) {
  // Routes registered without raw_body hand over a parsed body: read its text the same way.
  std::string dumped;
  std::string_view text = request.raw_body;
  if (!request.body.is_null()) text = dumped = request.body.dump();
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return {400, Json{{"error", "$: the body is empty; send an OpenLineage run event"}}};
  // Parsed before touching the graph: no lock is held while the text is read.
  auto read = graph::ReadOpenLineageBody(text, request.max_json_depth);
  if (!read.ok()) return {400, Json{{"error", read.status().message()}}};
  // No per-request refresh check: the write syncs with the store's generation first.
  auto graph = services.graph_for_write();
  if (!graph.ok()) return {503, Json{{"error", "the context graph is unavailable: " + graph.status().message()}}};
  auto r = graph::IngestRunEvents(**graph, *read);
  if (!r.ok()) {
    // 503 is retryable: the store was locked, or other processes kept writing the graph.
    const StatusCode code = r.status().code();
    int status = code == StatusCode::kInvalidArgument ? 400 : code == StatusCode::kUnavailable ? 503 : 500;
    return {status, Json{{"error", r.status().message()}}};
  }
  return {201, Json::object(), graph::IngestedEventsText(*r)};
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
  graph::FillImpactCounts(&*report, since, [&](const std::string& asset, const std::string& sql, TimePoint at) {
    return CountImpact(services, asset, sql, at);
  });
  report->body["timezone"] = ws.timezone;
  report->body["warnings"] = services.graph_warnings();
  return report->body;
}

Result<Json> AssetSearchAnswer(Services& services, const graph::AssetQuery& query) {
  if (!services.workspace_status().ok()) return services.workspace_status();
  auto graph = services.graph();
  if (!graph.ok()) return graph.status();
  return (*graph)->Read([&](const graph::GraphIndex& index) {
    graph::AssetMatches m = graph::SearchAssets(index, query);
    Json assets = Json::array();
    for (graph::AssetIndex a : m.assets) assets.push_back(graph::AssetJson(index, a));
    return Json{{"assets", assets}, {"total", m.total}, {"truncated", m.total > m.assets.size()}};
  });
}

Result<Json> AssetAnswer(Services& services, const std::string& id) {
  if (!services.workspace_status().ok()) return services.workspace_status();
  auto graph = services.graph();
  if (!graph.ok()) return graph.status();
  return (*graph)->Read([&](const graph::GraphIndex& index) {
    Result<graph::AssetIndex> found = graph::FindAsset(index, id);
    if (!found.ok()) return Json{{"found", false}, {"id", id}, {"closest", graph::ClosestIds(index, id, 5)}};
    const graph::AssetIndex a = *found;
    Json up = Json::array(), down = Json::array();
    for (graph::EdgeIndex e : index.in(a))
      if (up.size() < 100) up.push_back(graph::EdgeJson(index, e, false));
    for (graph::EdgeIndex e : index.out(a))
      if (down.size() < 100) down.push_back(graph::EdgeJson(index, e, false));
    return Json{{"found", true}, {"id", index.id(a)}, {"asset", graph::AssetJson(index, a, true)},
                {"upstream", up}, {"downstream", down}};
  });
}

}  // namespace dw::workspace
