// Tools of this agent. Its own tools (monitor_metrics, diagnose_incident, remediate and get_incident_history) are registered here as their capabilities land; an
// agent lists only tools that work.
#include "agents/agents.h"

namespace dw::agents {

void AddIncidentsTools(mcp::Catalog& catalog, const std::shared_ptr<workspace::Services>& services) {
  (void)catalog.AddTool(DescribeWorkspaceTool(services));
  (void)catalog.AddTool(MonitorMetricsTool(services));
  (void)catalog.AddTool(DiagnoseIncidentTool(services));
  (void)catalog.AddTool(RemediateTool(services));
  (void)catalog.AddTool(GetIncidentHistoryTool(services));
  (void)catalog.AddResourceTemplate(MetricPlotResource(services));
}

}  // namespace dw::agents
