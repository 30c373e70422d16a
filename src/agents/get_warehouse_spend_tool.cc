// get_warehouse_spend (dw-quality): what the warehouses' queries cost, totalled by dbt model, user,
// label, or ours against everyone else's, from each warehouse's own accounting. Read-only.
#include "agents/agents.h"
#include "agents/workspace_guard.h"
#include "config/duration.h"
#include "observe/spend/warehouse_spend.h"
#include "workspace/services.h"

namespace dw::agents {

mcp::ToolSpec GetWarehouseSpendTool(const std::shared_ptr<workspace::Services>& services) {
  mcp::ToolSpec t;
  t.name = "get_warehouse_spend";
  t.title = "Get warehouse spend";
  t.description =
      "What each warehouse that bills per query spent (Snowflake compute credits from QUERY_ATTRIBUTION_HISTORY; "
      "BigQuery bytes billed and slot time from INFORMATION_SCHEMA.JOBS), totalled by dbt model, user, label or "
      "dw (Data Workers' own checks against everyone else's). Reads the warehouses' accounting; changes nothing.";
  t.input_schema = Json::parse(R"({
    "type": "object",
    "properties": {
      "since": {"type": "string", "maxLength": 64, "description": "A timestamp (2026-11-24T00:00:00Z) or this long ago (7d, 24h); default 7d."},
      "by": {"type": "string", "enum": ["model", "user", "label", "dw"], "description": "How to total: dbt model (from dbt's query comment or tag), user, label (query tag or job labels), or dw."}
    },
    "additionalProperties": false
  })");
  t.output_schema = observe::spend::SpendReportSchema();
  t.annotations = {.read_only = true, .destructive = false, .idempotent = true, .open_world = true};
  t.handler = WhenWorkspaceLoaded(services, [services](const Json& args, mcp::ToolCall&) -> mcp::ToolResult {
    const TimePoint now = services->clock().Now();
    Result<TimePoint> since = config::ParseTimeOrAgo("since", args.value("since", std::string("7d")), now);
    if (!since.ok()) return mcp::ToolResult::Error(since.status().message());
    Result<observe::spend::SpendReport> report =
        observe::spend::ReportSpend(services->workspace(), services->http(), *since, now, args.value("by", std::string("model")));
    if (!report.ok()) return mcp::ToolResult::Error(report.status().message());
    return mcp::ToolResult::Structured(report->ToJson());
  });
  return t;
}

}  // namespace dw::agents
