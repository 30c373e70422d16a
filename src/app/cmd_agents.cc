// `dw agents [--check]`: the agents, and proof that each one starts and answers over MCP stdio.
#include <unistd.h>

#include <climits>
#include <iostream>

#include "agents/agents.h"
#include "app/commands.h"
#include "config/workspace.h"
#include "mcp/stdio_client.h"

namespace dw::app {
namespace {

std::string SelfPath() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "dw";
  buf[n] = 0;
  return buf;
}

// Starts `agent` as a child `dw mcp` process and exercises it the way an MCP client does.
Json CheckAgent(const agents::AgentInfo& agent, const std::string& workspace) {
  using namespace std::chrono_literals;
  Json out = {{"agent", agent.name}, {"ok", false}};
  mcp::StdioClient client;
  Status st = client.Start({SelfPath(), "--workspace", workspace, "mcp", agent.name});
  if (!st.ok()) {
    out["error"] = st.message();
    return out;
  }
  auto init = client.Initialize("dw-agents-check", 10s);
  if (!init.ok()) {
    out["error"] = init.status().message();
    return out;
  }
  out["protocol_version"] = (*init)["protocolVersion"];
  auto list = client.Call("tools/list", Json::object(), 10s);
  if (!list.ok() || !list->contains("result")) {
    out["error"] = list.ok() ? list->dump() : list.status().message();
    return out;
  }
  Json tools = Json::array();
  for (const auto& t : (*list)["result"]["tools"]) tools.push_back(t["name"]);
  out["tools"] = tools;
  auto call = client.Call("tools/call",
                          {{"name", "describe_workspace"}, {"arguments", {{"probe", false}}}}, 30s);
  if (!call.ok() || !call->contains("result")) {
    out["error"] = call.ok() ? call->dump() : call.status().message();
    return out;
  }
  const Json& result = (*call)["result"];
  if (result.value("isError", false)) {
    out["error"] = result["content"][0].value("text", "describe_workspace failed");
    return out;
  }
  out["assets"] = result["structuredContent"]["assets"].size();
  out["exit_code"] = client.Stop();
  out["ok"] = out["exit_code"] == 0;
  return out;
}

}  // namespace

int CmdAgents(const GlobalOptions& g, bool check, const std::string& format) {
  Json report = Json::array();
  bool all_ok = true;
  std::string workspace = config::ResolveWorkspaceDir(g.workspace).string();
  for (const auto& agent : agents::AllAgents()) {
    Json row = {{"agent", agent.name}, {"title", agent.title}};
    if (check) {
      row = CheckAgent(agent, workspace);
      all_ok = all_ok && row["ok"].get<bool>();
    }
    report.push_back(row);
  }
  if (format == "json") {
    std::cout << report.dump(2) << "\n";
  } else {
    for (const auto& r : report) {
      std::cout << r["agent"].get<std::string>();
      if (!check) {
        std::cout << "  " << r["title"].get<std::string>() << "\n";
        continue;
      }
      if (r["ok"].get<bool>()) {
        std::cout << "  started over stdio, protocol " << r["protocol_version"].get<std::string>()
                  << ", tools:";
        for (const auto& t : r["tools"]) std::cout << " " << t.get<std::string>();
        std::cout << "; describe_workspace answered (" << r["assets"].get<int>() << " assets)\n";
      } else {
        std::cout << "  FAILED: " << r.value("error", std::string("unknown error")) << "\n";
      }
    }
  }
  return all_ok ? 0 : 1;
}

}  // namespace dw::app
