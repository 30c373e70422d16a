// Test support: the setup the MCP tool tests share, written once. A scratch workspace folder (its
// dataworkers.yaml and any files beside it), the services loaded from it on a simulated clock,
// optionally a platform simulator whose URL the workspace names, and one agent's catalog; Call
// runs a tool the way the MCP session would, checking its answer against the tool's own output
// schema (and, with Args::kValid, the arguments against its input schema).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "agents/agents.h"
#include "base/clock.h"
#include "mcp/json_schema.h"
#include "tests/platforms/platform_test_support.h"
#include "tests/support/null_tool_call.h"
#include "tests/support/subprocess.h"
#include "workspace/services.h"

namespace dw::testing {

class AgentWorkspace {
 public:
  // Whether Call also checks the arguments against the tool's input schema (tests that send
  // arguments the schema refuses on purpose leave it to the tool).
  enum class Args { kValid, kAsGiven };

  explicit AgentWorkspace(TimePoint now) : clock_(now) {}

  // Starts the simulator of `platform` with `script` (call before Write when the workspace names
  // its URL). False when it did not start.
  bool StartSim(sim::Platform platform, const Json& script) {
    sim_ = dw::testing::StartSim(platform, script);
    return sim_ != nullptr;
  }
  // The running simulator's base URL. REQUIRES: StartSim succeeded.
  std::string sim_url() const { return sim_->url(); }

  // Writes `text` to `relative` under the workspace folder, with every `{SIM}` replaced by the
  // simulator's URL.
  void Write(const std::string& relative, std::string text) {
    if (sim_)
      for (size_t p = text.find("{SIM}"); p != std::string::npos; p = text.find("{SIM}", p))
        text.replace(p, 5, sim_->url());
    dir_.Write(relative, text);
  }

  // Loads the services from the folder and builds `agent`'s catalog; the failure names what did
  // not load.
  ::testing::AssertionResult Load(const std::string& agent) {
    services_ = workspace::Services::Load(dir_.path(), clock_);
    if (!services_->workspace_status().ok())
      return ::testing::AssertionFailure() << services_->workspace_status().message();
    const agents::AgentInfo* def = agents::FindAgent(agent);
    if (def == nullptr) return ::testing::AssertionFailure() << "no agent " << agent;
    catalog_ = agents::BuildAgentCatalog(*def, services_);
    return ::testing::AssertionSuccess();
  }

  // Runs `tool` with `args` as a call of MCP session `session`; a successful answer must match the
  // tool's output schema.
  mcp::ToolResult Call(const std::string& tool, const Json& args, Args check = Args::kAsGiven,
                       const std::string& session = "test-session") {
    const mcp::ToolSpec* spec = catalog_ ? catalog_->FindTool(tool) : nullptr;
    EXPECT_NE(spec, nullptr) << tool;
    if (spec == nullptr) return mcp::ToolResult::Error("no tool " + tool);
    if (check == Args::kValid) {
      Status valid = mcp::ValidateJson(spec->input_schema, args, "arguments");
      EXPECT_TRUE(valid.ok()) << tool << ": " << valid.ToString();
    }
    NullCall call;
    call.caller.session = session;
    mcp::ToolResult r = spec->handler(args, call);
    if (!r.is_error && spec->output_schema) {
      EXPECT_TRUE(r.structured.has_value()) << tool << " answered without structuredContent";
      if (r.structured) {
        Status valid = mcp::ValidateJson(*spec->output_schema, *r.structured, "structuredContent");
        EXPECT_TRUE(valid.ok()) << tool << ": " << valid.ToString();
      }
    }
    return r;
  }

  const std::filesystem::path& path() const { return dir_.path(); }
  SimulatedClock& clock() { return clock_; }
  const std::shared_ptr<workspace::Services>& services() const { return services_; }
  const mcp::Catalog& catalog() const { return *catalog_; }

 private:
  TempDir dir_;
  SimulatedClock clock_;
  std::unique_ptr<sim::RunningSim> sim_;
  std::shared_ptr<workspace::Services> services_;
  std::shared_ptr<const mcp::Catalog> catalog_;
};

}  // namespace dw::testing
