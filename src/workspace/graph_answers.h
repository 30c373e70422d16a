// The context graph's answers as the surfaces ask for them (CLI, MCP tools, the OpenLineage HTTP
// route): lineage and blast radius with impact counts run on the workspace's warehouses, and the
// intake route. Ingestion itself is the graph stage's (graph/ingest.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "graph/asset_lookup.h"
#include "graph/blast_radius.h"
#include "graph/context_graph.h"
#include "graph/lineage_query.h"
#include "net/http_server.h"
#include "workspace/services.h"

namespace dw::workspace {

// POST /api/v1/lineage: 201 with the summary once committed; 400 {"error": "$.path: why"}; 500
// when the commit fails; 503 when the graph cannot be opened or the store is busy. Reads
// request.raw_body (register the route with raw_body), else the text of request.body.
net::JsonRouteReply LineageRoute(Services& services, const net::JsonRouteRequest& request);

// The lineage answer for `asset` (see graph::TraceLineage), with the graph's warnings.
Result<Json> LineageAnswer(Services& services, const std::string& asset, const graph::LineageOptions& options);

// The blast-radius answer for `assets` at the clock's now, impact_sql counts for `since` run on the
// workspace's warehouse (the asset's own warehouse for table://, else the default one).
Result<Json> BlastRadiusAnswer(Services& services, const std::vector<std::string>& assets,
                               std::optional<TimePoint> since, const graph::WalkOptions& walk);

// search_assets: {assets: [asset JSON], total, truncated} for `query` (see graph::SearchAssets).
Result<Json> AssetSearchAnswer(Services& services, const graph::AssetQuery& query);

// get_asset: the asset by id or alias with its direct edges (at most 100 each way): {found: true,
// id, asset, upstream, downstream}; an unknown id answers {found: false, id, closest: 5 ids}.
Result<Json> AssetAnswer(Services& services, const std::string& id);

}  // namespace dw::workspace
