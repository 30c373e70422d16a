// Tools of the dw-context-catalog agent: the context graph (lineage, blast radius, search, one
// asset). Each is a thin call into workspace/graph_answers.h.
#include "agents/agents.h"
#include "agents/workspace_guard.h"
#include "workspace/graph_answers.h"
#include "base/rfc3339.h"
#include "config/duration.h"
#include "graph/asset_lookup.h"

namespace dw::agents {
namespace {

mcp::ToolSpec TraceLineageTool(const std::shared_ptr<workspace::Services>& services) {
  mcp::ToolSpec t;
  t.name = "trace_cross_platform_lineage";
  t.title = "Trace lineage across platforms";
  t.description =
      "Upstream and/or downstream lineage of one asset in the context graph built from the team's "
      "notes, dbt, OpenLineage events and Kestra flows. Each edge lists the sources that assert it "
      "and when each last saw it; stale edges (no longer asserted) are marked; cycles are listed. "
      "Read-only.";
  t.input_schema = Json::parse(R"({
    "type": "object",
    "properties": {
      "asset": {"type": "string", "minLength": 1, "maxLength": 512,
                "description": "Canonical id (e.g. table://main/member_balances) or an alias."},
      "direction": {"type": "string", "enum": ["upstream", "downstream", "both"], "default": "both"},
      "depth": {"type": "integer", "minimum": 1, "maximum": 50, "default": 5},
      "columns": {"type": "boolean", "default": false, "description": "Include column-level lineage."},
      "include_stale": {"type": "boolean", "default": true}
    },
    "required": ["asset"],
    "additionalProperties": false
  })");
  t.output_schema = Json::parse(R"({
    "type": "object",
    "properties": {
      "asset": {"type": "string"}, "direction": {"type": "string"}, "depth": {"type": "integer"},
      "nodes": {"type": "array"}, "edges": {"type": "array"}, "cycles": {"type": "array"},
      "truncated": {"type": "boolean"}, "warnings": {"type": "array"}
    },
    "required": ["asset", "nodes", "edges", "cycles", "truncated"]
  })");
  t.annotations = {.read_only = true, .destructive = false, .idempotent = true, .open_world = false};
  t.handler = WhenWorkspaceLoaded(services, [services](const Json& args, mcp::ToolCall&) {
    graph::LineageOptions o;
    o.direction = args.value("direction", "both");
    o.depth = args.value("depth", graph::kDefaultLineageDepth);
    o.columns = args.value("columns", false);
    o.include_stale = args.value("include_stale", true);
    auto r = workspace::LineageAnswer(*services, args["asset"].get<std::string>(), o);
    if (!r.ok()) return mcp::ToolResult::Error(r.status().message());
    return mcp::ToolResult::Structured(std::move(r).value());
  });
  return t;
}

mcp::ToolSpec BlastRadiusTool(const std::shared_ptr<workspace::Services>& services) {
  mcp::ToolSpec t;
  t.name = "blast_radius_analysis";
  t.title = "Blast radius of damaged assets";
  t.description =
      "Everything downstream of one or more damaged assets, grouped by kind and depth with owners "
      "and domains; the consumers that act (syncs, flows, jobs with a schedule) with their next run "
      "and the time left, most urgent first; customer-facing assets flagged; and, with `since`, the "
      "count each asset's impact_sql returns (run read-only on the workspace warehouse). Says which "
      "sources the walked edges came from and how fresh they are. Read-only.";
  t.input_schema = Json::parse(R"({
    "type": "object",
    "properties": {
      "assets": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 512},
                 "minItems": 1, "maxItems": 50, "description": "Damaged asset ids or aliases."},
      "since": {"type": "string", "maxLength": 64,
                "description": "When the damage started: a timestamp (2026-11-24T14:02:00Z) or a duration back from now (6h); runs impact_sql."},
      "depth": {"type": "integer", "minimum": 1, "maximum": 50, "default": 50},
      "include_stale": {"type": "boolean", "default": false},
      "max_results": {"type": "integer", "minimum": 1, "maximum": 10000, "default": 10000}
    },
    "required": ["assets"],
    "additionalProperties": false
  })");
  t.output_schema = Json::parse(R"({
    "type": "object",
    "properties": {
      "roots": {"type": "array"}, "now": {"type": "string"}, "timezone": {"type": "string"},
      "total": {"type": "integer"}, "truncated": {"type": "boolean"},
      "by_kind": {"type": "object"}, "by_depth": {"type": "array"}, "consumers": {"type": "array"},
      "customer_facing": {"type": "array"}, "owners": {"type": "array"}, "impact": {"type": "array"},
      "placeholders": {"type": "array"}, "provenance": {"type": "object"},
      "stale_edges_skipped": {"type": "integer"}, "warnings": {"type": "array"}
    },
    "required": ["roots", "now", "total", "by_kind", "consumers", "customer_facing", "owners", "impact", "provenance"]
  })");
  t.annotations = {.read_only = true, .destructive = false, .idempotent = true, .open_world = true};
  t.handler = WhenWorkspaceLoaded(services, [services](const Json& args, mcp::ToolCall&) {
    std::optional<TimePoint> since;
    if (args.contains("since")) {
      auto s = config::ParseTimeOrAgo("since", args["since"].get<std::string>(), services->clock().Now());
      if (!s.ok()) return mcp::ToolResult::Error(s.status().message());
      since = *s;
    }
    graph::WalkOptions walk;
    walk.max_depth = args.value("depth", graph::kMaxBlastDepth);
    walk.include_stale = args.value("include_stale", false);
    walk.limit = args.value("max_results", 10000);
    auto r = workspace::BlastRadiusAnswer(*services, args["assets"].get<std::vector<std::string>>(), since, walk);
    if (!r.ok()) return mcp::ToolResult::Error(r.status().message());
    return mcp::ToolResult::Structured(std::move(r).value());
  });
  return t;
}

mcp::ToolSpec SearchAssetsTool(const std::shared_ptr<workspace::Services>& services) {
  mcp::ToolSpec t;
  t.name = "search_assets";
  t.title = "Search the context graph";
  t.description =
      "Find assets by a fragment of their id or an alias, by kind, owner or domain. Read-only.";
  t.input_schema = Json::parse(R"({
    "type": "object",
    "properties": {
      "query": {"type": "string", "maxLength": 256, "description": "Fragment of an id or alias (case-insensitive)."},
      "kind": {"type": "string", "enum": ["kafka", "pubsub", "flink", "table", "dbt", "kestra", "kv",
                                          "connect", "subject", "sync", "dashboard", "api", "job"]},
      "owner": {"type": "string", "maxLength": 256},
      "domain": {"type": "string", "maxLength": 128},
      "limit": {"type": "integer", "minimum": 1, "maximum": 200, "default": 50}
    },
    "additionalProperties": false
  })");
  t.output_schema = Json::parse(R"({
    "type": "object",
    "properties": {"assets": {"type": "array"}, "total": {"type": "integer"}, "truncated": {"type": "boolean"}},
    "required": ["assets", "total", "truncated"]
  })");
  t.annotations = {.read_only = true, .destructive = false, .idempotent = true, .open_world = false};
  t.handler = [services](const Json& args, mcp::ToolCall&) {
    graph::AssetQuery q;
    q.text = args.value("query", "");
    q.kind = args.value("kind", "");
    q.owner = args.value("owner", "");
    q.domain = args.value("domain", "");
    q.limit = args.value("limit", 50);
    auto out = workspace::AssetSearchAnswer(*services, q);
    if (!out.ok()) return mcp::ToolResult::Error(out.status().message());
    return mcp::ToolResult::Structured(std::move(out).value());
  };
  return t;
}

mcp::ToolSpec GetAssetTool(const std::shared_ptr<workspace::Services>& services) {
  mcp::ToolSpec t;
  t.name = "get_asset";
  t.title = "One asset of the context graph";
  t.description =
      "One asset by id or alias: kind, domain, owner, schedule, tags, notes, aliases, columns and "
      "its direct upstream and downstream edges. An unknown id answers found=false with the closest "
      "known ids. Read-only.";
  t.input_schema = Json::parse(R"({
    "type": "object",
    "properties": {"id": {"type": "string", "minLength": 1, "maxLength": 512}},
    "required": ["id"],
    "additionalProperties": false
  })");
  t.output_schema = Json::parse(R"({
    "type": "object",
    "properties": {
      "found": {"type": "boolean"}, "id": {"type": "string"}, "asset": {"type": "object"},
      "upstream": {"type": "array"}, "downstream": {"type": "array"}, "closest": {"type": "array"}
    },
    "required": ["found", "id"]
  })");
  t.annotations = {.read_only = true, .destructive = false, .idempotent = true, .open_world = false};
  t.handler = [services](const Json& args, mcp::ToolCall&) {
    auto out = workspace::AssetAnswer(*services, args["id"].get<std::string>());
    if (!out.ok()) return mcp::ToolResult::Error(out.status().message());
    return mcp::ToolResult::Structured(std::move(out).value());
  };
  return t;
}

}  // namespace

void AddContextCatalogTools(mcp::Catalog& catalog, const std::shared_ptr<workspace::Services>& services) {
  (void)catalog.AddTool(DescribeWorkspaceTool(services));
  (void)catalog.AddTool(TraceLineageTool(services));
  (void)catalog.AddTool(BlastRadiusTool(services));
  (void)catalog.AddTool(SearchAssetsTool(services));
  (void)catalog.AddTool(GetAssetTool(services));
}

}  // namespace dw::agents
