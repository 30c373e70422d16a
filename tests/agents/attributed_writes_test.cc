// Every MCP tool that may change stored state records who called it before it runs (the agent,
// the client's declared name, the session's label, the tool and its arguments), whatever the
// call then does; read-only tools record nothing. The write tools are found from the catalogs'
// annotations, so a write tool added later without a case here fails this test.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "actions/actions.h"
#include "agents/agents.h"
#include "mcp/tool_invocation.h"
#include "tests/support/agent_workspace.h"
#include "tests/support/null_tool_call.h"

namespace dw::agents {
namespace {
namespace attributed_writes_test {

constexpr int64_t kNowMs = 1767225600000LL;  // 2026-01-01 00:00 UTC

// Arguments the input schema accepts, per write tool; the calls may fail (no such incident, no
// registry) after the attribution is recorded.
const std::map<std::string, Json>& WriteCalls() {
  static const std::map<std::string, Json> calls = {
      {"monitor_metrics", {{"record", Json::array({{{"metric", "agent_series"},
                                                    {"points", Json::array({{{"ts", kNowMs}, {"value", 1.5}}})}}})}}},
      {"diagnose_incident", {{"incident_id", "inc-none"}}},
      {"remediate", {{"incident_id", "inc-none"}}},
      {"register_stream_schema", {{"subject", "orders-value"}, {"schema", "{\"type\":\"string\"}"}}},
      {"run_quality_check", {{"table", "main.none"}}},
  };
  return calls;
}

// Through the contract path a client's call takes (input validation, the handler, exceptions
// caught), as the caller NullCall names.
Json CallTool(const mcp::ToolSpec& tool, const Json& args) {
  dw::testing::NullCall call;
  return mcp::RunTool(tool, args, call);
}

std::vector<store::ActionEventRecord> Attributions(dw::testing::AgentWorkspace& ws) {
  auto store = ws.services()->state();
  EXPECT_TRUE(store.ok());
  if (!store.ok()) return {};
  auto events = (*store)->ActionEvents(actions::kAgentWritesSubject);
  EXPECT_TRUE(events.ok());
  return events.ok() ? *events : std::vector<store::ActionEventRecord>{};
}

TEST(AttributedWritesTest, EveryWriteToolRecordsItsCallerBeforeItRunsAndReadOnlyToolsNothing) {
  std::set<std::string> seen_write_tools;
  for (const AgentInfo& agent : AllAgents()) {
    dw::testing::AgentWorkspace ws{FromUnixMillis(kNowMs)};
    ws.Write("dataworkers.yaml", "version: 1\nname: t\n");
    ASSERT_TRUE(ws.Load(agent.name));
    size_t expected = 0;
    for (const mcp::ToolSpec& tool : ws.catalog().tools()) {
      const size_t before = Attributions(ws).size();
      if (tool.annotations.read_only) {
        (void)CallTool(tool, Json::object());
        EXPECT_EQ(Attributions(ws).size(), before) << agent.name << ": read-only " << tool.name << " recorded a write";
        continue;
      }
      auto args = WriteCalls().find(tool.name);
      ASSERT_NE(args, WriteCalls().end()) << agent.name << ": write tool " << tool.name << " has no case in this test";
      seen_write_tools.insert(tool.name);
      (void)CallTool(tool, args->second);
      const std::vector<store::ActionEventRecord> after = Attributions(ws);
      ASSERT_EQ(after.size(), ++expected) << agent.name << ": " << tool.name;
      const store::ActionEventRecord& e = after.back();
      EXPECT_EQ(e.kind, "tool_call");
      EXPECT_EQ(e.actor, "agent:" + agent.name);
      EXPECT_EQ(e.body.value("tool", ""), tool.name);
      EXPECT_EQ(e.body.value("client", ""), "test-client");
      EXPECT_EQ(e.body.value("session", ""), "test-session");
      EXPECT_EQ(e.body["arguments"], args->second);
    }
  }
  // The four write tools of today were each called through an agent that serves them.
  EXPECT_EQ(seen_write_tools.size(), WriteCalls().size());
}

// A record of 10,000 points is kept as its cut-off JSON and its size, not whole.
TEST(AttributedWritesTest, LongArgumentsAreCutAndSaySo) {
  dw::testing::AgentWorkspace ws{FromUnixMillis(kNowMs)};
  ws.Write("dataworkers.yaml", "version: 1\nname: t\n");
  ASSERT_TRUE(ws.Load("dw-incidents"));
  Json points = Json::array();
  for (int i = 0; i < 10000; ++i) points.push_back({{"ts", kNowMs - i * 60000LL}, {"value", 1000.0 + i}});
  auto r = ws.Call("monitor_metrics", {{"record", Json::array({{{"metric", "agent_series"}, {"points", points}}})}});
  ASSERT_FALSE(r.is_error) << r.content.dump().substr(0, 300);
  auto events = Attributions(ws);
  ASSERT_EQ(events.size(), 1u);
  const Json& args = events[0].body["arguments"];
  ASSERT_TRUE(args.contains("cut_after")) << args.dump().substr(0, 200);
  EXPECT_LE(args["json"].get<std::string>().size(), 4000u);
  EXPECT_GT(args["characters"].get<size_t>(), 100000u);
}

}  // namespace attributed_writes_test
}  // namespace
}  // namespace dw::agents
