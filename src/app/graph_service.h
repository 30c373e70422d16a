// The context graph's operations as the surfaces call them (CLI, MCP tools, the OpenLineage HTTP
// route): ingestion from files and events, lineage and blast-radius answers with impact counts.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/services.h"
#include "base/json.h"
#include "graph/blast_radius.h"
#include "graph/context_graph.h"
#include "graph/lineage_query.h"
#include "mcp/http_transport.h"

namespace dw::app {

// Ingests the workspace's notes, then lineage.dbt_manifest and lineage.kestra_flows when set.
// Returns one sentence per source that failed (the others are still ingested).
std::vector<std::string> IngestWorkspaceSources(const config::Workspace& ws, graph::ContextGraph& graph);

// The warehouse that tables named by dbt sources and Kestra SQL live in: the only configured one,
// else "main" when configured, else the first by name ("main" when none is configured).
std::string DefaultWarehouse(const config::Workspace& ws);

// `dw ingest dbt PATH`: reads a manifest.json and applies it. The summary as JSON; errors name
// the file and the JSON path.
Result<Json> IngestDbtManifestFile(const config::Workspace& ws, graph::ContextGraph& graph,
                                   const std::filesystem::path& path);

// `dw ingest openlineage FILE`: one run event per line (blank lines skipped). All or nothing: the
// first bad line fails the whole file ("FILE:LINE: $.path: why") and nothing is stored.
Result<Json> IngestOpenLineageFile(graph::ContextGraph& graph, const std::filesystem::path& path);

// One run event (or a JSON array of them) as received over HTTP, read by the streaming reader
// (max_depth > 0 limits nesting) and stored by group commit with whatever other requests queued
// meanwhile. The reply's counts are of that whole group ("group_events" events). kInvalidArgument
// names the JSON path of the problem ("$[2].inputs[0].name: required" inside an array); nothing of
// the body is stored then. Other codes are the commit's failure (nothing of the group stored).
Result<Json> IngestOpenLineageText(graph::ContextGraph& graph, std::string_view text, int max_depth);

// POST /api/v1/lineage: 201 with the summary once committed; 400 {"error": "$.path: why"}; 500
// when the commit fails; 503 when the graph cannot be opened. Reads request.raw_body (register
// the route with raw_body), else the text of request.body.
mcp::JsonRouteReply LineageRoute(Services& services, const mcp::JsonRouteRequest& request);

// The lineage answer for `asset` (see graph::TraceLineage), with the graph's warnings.
Result<Json> LineageAnswer(Services& services, const std::string& asset, const graph::LineageOptions& options);

// The blast-radius answer for `assets` at the clock's now, impact_sql counts for `since` run on the
// workspace's warehouse (the asset's own warehouse for table://, else the default one).
Result<Json> BlastRadiusAnswer(Services& services, const std::vector<std::string>& assets,
                               std::optional<TimePoint> since, const graph::WalkOptions& walk);

// {added, refreshed, ...} of one Apply.
Json SummaryJson(const graph::ApplySummary& s);

}  // namespace dw::app
