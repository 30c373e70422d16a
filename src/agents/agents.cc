#include "agents/agents.h"

#include "agents/attributed_writes.h"

namespace dw::agents {

const std::vector<AgentInfo>& AllAgents() {
  static const std::vector<AgentInfo> agents = {
      {"dw-incidents", "Data Workers: incidents",
       "Detects wrong numbers in what pipelines write, diagnoses the change behind them and "
       "proposes fixes to a named owner. Call describe_workspace first to see what is configured.",
       &AddIncidentsTools},
      {"dw-quality", "Data Workers: quality",
       "Runs the data quality checks the workspace declares against its warehouses. Call "
       "describe_workspace to see the configured checks.",
       &AddQualityTools},
      {"dw-context-catalog", "Data Workers: context catalog",
       "Answers lineage and blast-radius questions from the workspace's context graph. Call "
       "describe_workspace to see the configured assets.",
       &AddContextCatalogTools},
      {"dw-connectors", "Data Workers: connectors",
       "Reads Flink, Kestra, Kafka Connect and Schema Registry through their REST APIs. Call "
       "describe_workspace to see the configured platforms and whether they answer.",
       &AddConnectorsTools},
      {"dw-schema", "Data Workers: schema",
       "Checks schema compatibility and sizes the impact of a schema change. Call "
       "describe_workspace to see what is configured.",
       &AddSchemaTools},
  };
  return agents;
}

const AgentInfo* FindAgent(std::string_view name) {
  for (const auto& a : AllAgents())
    if (a.name == name) return &a;
  return nullptr;
}

std::string AgentNameList() {
  std::string out;
  for (const auto& a : AllAgents()) {
    if (!out.empty()) out += ", ";
    out += a.name;
  }
  return out;
}

std::shared_ptr<const mcp::Catalog> BuildAgentCatalog(const AgentInfo& agent,
                                                      const std::shared_ptr<workspace::Services>& services) {
  auto catalog = std::make_shared<mcp::Catalog>();
  agent.add_tools(*catalog, services);
  AttributeWrites(*catalog, agent.name, services);
  return catalog;
}

std::shared_ptr<const mcp::Catalog> BuildCombinedCatalog(
    const std::shared_ptr<workspace::Services>& services) {
  auto combined = std::make_shared<mcp::Catalog>();
  for (const auto& agent : AllAgents()) {
    mcp::Catalog one;
    agent.add_tools(one, services);
    AttributeWrites(one, agent.name, services);
    for (const auto& tool : one.tools())
      if (!combined->FindTool(tool.name)) (void)combined->AddTool(tool);
  }
  return combined;
}

mcp::ServerInfo ServerInfoFor(const AgentInfo& agent) {
  return mcp::ServerInfo{agent.name, agent.title, DW_VERSION, agent.instructions};
}

}  // namespace dw::agents
