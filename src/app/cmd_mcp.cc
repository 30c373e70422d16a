// `dw mcp AGENT`: one agent over MCP stdio.
#include <unistd.h>

#include <iostream>

#include "agents/agents.h"
#include "app/command_start.h"
#include "app/commands.h"
#include "workspace/services.h"
#include "base/log.h"
#include "mcp/conformance_fixtures.h"
#include "mcp/stdio_transport.h"

namespace dw::app {

int CmdMcp(const GlobalOptions& g, const std::string& agent_name, bool conformance_fixtures) {
  if (conformance_fixtures) {
    auto catalog = std::make_shared<mcp::Catalog>();
    mcp::AddConformanceFixtures(*catalog);
    mcp::ServerInfo info{"dw-conformance-fixtures", "Data Workers conformance fixtures", DW_VERSION,
                         "Test fixtures of the MCP conformance suite; no product tools."};
    return mcp::ServeStdio(catalog, info, mcp::Limits{}, STDIN_FILENO, STDOUT_FILENO);
  }
  const auto* agent = agents::FindAgent(agent_name);
  if (!agent) {
    std::cerr << "dw mcp: unknown agent '" << agent_name << "'; the agents are: "
              << agents::AgentNameList() << "\n";
    return 2;
  }
  // A workspace that fails to load does not stop the server: its tools explain the problem.
  // Its tools record proposals (at L3/L4 the autonomy acts on them) and attributions: no --now
  // on a real store, as `dw serve`.
  StartedCommand start = StartCommand(g, "mcp", {.require_workspace = false, .records = true});
  if (!start) return start.exit_code;
  const auto& services = start.services;
  if (!services->workspace_status().ok())
    spdlog::warn("{}", services->workspace_status().message());
  return mcp::ServeStdio(agents::BuildAgentCatalog(*agent, services), agents::ServerInfoFor(*agent),
                         mcp::Limits{}, STDIN_FILENO, STDOUT_FILENO);
}

}  // namespace dw::app
