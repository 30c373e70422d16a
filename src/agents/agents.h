// The five Data Workers agents and the MCP catalog each one serves. An agent lists only tools that
// work; the tools of later capabilities are added here as they land.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "workspace/services.h"
#include "mcp/catalog.h"
#include "mcp/session.h"

namespace dw::agents {

struct AgentInfo {
  std::string name;         // e.g. "dw-incidents"
  std::string title;
  std::string instructions;  // sent as the initialize result's `instructions`
  // Adds the agent's tools (each a thin call into a service) to `catalog`.
  void (*add_tools)(mcp::Catalog& catalog, const std::shared_ptr<workspace::Services>& services);
};

// The agents, in a fixed order: dw-incidents, dw-quality, dw-context-catalog, dw-connectors,
// dw-schema.
const std::vector<AgentInfo>& AllAgents();

// The agent called `name`, or nullptr.
const AgentInfo* FindAgent(std::string_view name);

// "dw-incidents, dw-quality, ..." for error messages.
std::string AgentNameList();

// The catalog one agent serves over MCP.
std::shared_ptr<const mcp::Catalog> BuildAgentCatalog(const AgentInfo& agent,
                                                      const std::shared_ptr<workspace::Services>& services);

// The union of every agent's tools (a tool that several agents share appears once), served on
// the HTTP server's /mcp endpoint.
std::shared_ptr<const mcp::Catalog> BuildCombinedCatalog(const std::shared_ptr<workspace::Services>& services);

// serverInfo and instructions for `agent`.
mcp::ServerInfo ServerInfoFor(const AgentInfo& agent);

// The tool every agent has: what is configured, with reachability probes (read-only).
mcp::ToolSpec DescribeWorkspaceTool(const std::shared_ptr<workspace::Services>& services);
// run_quality_check (dw-quality).
mcp::ToolSpec RunQualityCheckTool(const std::shared_ptr<workspace::Services>& services);
// get_warehouse_spend (dw-quality): what the warehouses' queries cost, by model, user, label or dw.
mcp::ToolSpec GetWarehouseSpendTool(const std::shared_ptr<workspace::Services>& services);

// dw-incidents: record metric points and/or evaluate workspace monitors, with verdicts.
mcp::ToolSpec MonitorMetricsTool(const std::shared_ptr<workspace::Services>& services);
// dw-incidents: the ranked causes of one incident (incidents/).
mcp::ToolSpec DiagnoseIncidentTool(const std::shared_ptr<workspace::Services>& services);
// dw-incidents: draft, store and (L2+) send the proposals for an incident (actions/).
mcp::ToolSpec RemediateTool(const std::shared_ptr<workspace::Services>& services);
// dw-incidents: incidents from the store, filtered, with recurrence counts.
mcp::ToolSpec GetIncidentHistoryTool(const std::shared_ptr<workspace::Services>& services);
// dw-incidents: dw://metrics/{metric}/plot.svg, the picture of a stored metric.
mcp::ResourceTemplateSpec MetricPlotResource(const std::shared_ptr<workspace::Services>& services);

// Per-agent tool registration (one file each).
void AddIncidentsTools(mcp::Catalog& catalog, const std::shared_ptr<workspace::Services>& services);
void AddQualityTools(mcp::Catalog& catalog, const std::shared_ptr<workspace::Services>& services);
void AddContextCatalogTools(mcp::Catalog& catalog, const std::shared_ptr<workspace::Services>& services);
void AddConnectorsTools(mcp::Catalog& catalog, const std::shared_ptr<workspace::Services>& services);
void AddSchemaTools(mcp::Catalog& catalog, const std::shared_ptr<workspace::Services>& services);

}  // namespace dw::agents
