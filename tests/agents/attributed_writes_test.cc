// Every MCP tool that may change stored state records who called it before it runs (the agent,
// the client's declared name, the session's label, the tool and its arguments), whatever the
// call then does; read-only tools record nothing. The write tools are found from the catalogs'
// annotations, so a write tool added later without a case here fails this test.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "actions/actions.h"
#include "agents/agents.h"
#include "incidents/incidents.h"
#include "mcp/session.h"
#include "mcp/tool_invocation.h"
#include "tests/mcp/recording_sink.h"
#include "workspace/incident_desk.h"
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

// Issue 34: an agent session tries every write tool of every agent against an open SEV1, through
// the MCP session a client talks to (initialize with its declared name, then tools/call): record
// points over the incident's series, ask to mark its window expected, diagnose and remediate it,
// register a schema, run its check. The incident stays open at SEV1, nothing is resolved, marked
// or receipted, and every call is attributed to the client and its session.
const std::map<std::string, std::vector<Json>> AttackCalls(const std::string& incident, int64_t opened_ms) {
  const Json window = {{"from", opened_ms - 3600 * 1000}, {"to", opened_ms + 3600 * 1000}};
  return {
      {"monitor_metrics",
       {{{"record", Json::array({{{"metric", "quality:table://main/t:not_null:id"},
                                  {"points", Json::array({{{"ts", opened_ms}, {"value", 0}}})}}})}},
        {{"record", Json::array({{{"metric", "t_null_ids"}, {"points", Json::array({{{"ts", opened_ms}, {"value", 0}}})}}})},
         {"mark_expected", Json::array({{{"metric", "t_null_ids"}, {"from", window["from"]}, {"to", window["to"]},
                                         {"note", "silence it"}, {"incident_id", incident}}})}},
        {{"mark_expected", Json::array({{{"metric", "quality:table://main/t:not_null:id"}, {"from", window["from"]},
                                         {"to", window["to"]}, {"incident_id", incident}}})}},
        {{"evaluate", Json::array({"t_rows"})}}}},
      {"diagnose_incident", {{{"incident_id", incident}}}},
      {"remediate", {{{"incident_id", incident}}}},
      {"register_stream_schema", {{{"subject", "t-value"}, {"schema", "{\"type\":\"string\"}"}}}},
      {"run_quality_check", {{{"table", "main.t"}},
                             {{"table", "main.t"}, {"check", {{"not_null", Json::array({"id"})}}}}}},
  };
}

TEST(AttributedWritesTest, AnAgentSessionTryingEveryWriteToolCannotCloseOrSilenceAnOpenSev1) {
  const TimePoint now = FromUnixMillis(1795532700000LL);  // 2026-11-24T15:05:00Z
  dw::testing::AgentWorkspace ws{now};
  ws.Write("dataworkers.yaml",
           "version: 1\nname: w\nwarehouses:\n  main: {type: sqlite, path: w.db}\n"
           "domains:\n  loyalty: {autonomy: L2, owners: [ana@example.com], approvers: [ana@example.com]}\n"
           "assets:\n"
           "  - id: flink://flink/job\n    owner: ana@example.com\n    domain: loyalty\n    writes: [table://main/t]\n"
           "  - id: sync://hightouch/emails\n    reads: [table://main/t]\n    schedule: \"0 22 * * *\"\n"
           "    customer_facing: true\n"
           "checks:\n  - table: main.t\n    not_null: [id]\n");
  ASSERT_TRUE(ws.Load("dw-incidents"));
  store::StateStore& st = **ws.services()->state();
  store::CheckResultRow row;
  row.run_id = "r1";
  row.table_ref = "table://main/t";
  row.check_name = "not_null:id";
  row.status = store::CheckStatus::kFail;
  row.observed = {{"null_count", 7}, {"null_rate", 0.07}, {"rows", 100}};
  row.observed_at = now - std::chrono::minutes(5);
  ASSERT_TRUE(st.RecordCheckResults({row}).ok());
  store::ChangeEvent change;
  change.dedup_key = "deploy-1";
  change.asset_id = "flink://flink/job";
  change.kind = "deploy";
  change.happened_at = now - std::chrono::hours(1);
  change.observed_at = change.happened_at;
  change.risk = 0.4;
  change.reason = "a new run of the job started";
  ASSERT_TRUE(st.AddChangeEvent(change).ok());
  auto desk = workspace::OpenIncidentDesk(*ws.services());
  ASSERT_TRUE(desk.ok()) << desk.status().ToString();
  auto pass = incidents::RunSignalPass(ws.services()->workspace(), **desk, st, ws.services()->clock());
  ASSERT_TRUE(pass.ok()) << pass.status().ToString();
  ASSERT_EQ(pass->opened.size(), 1u);
  const std::string id = pass->opened[0];
  auto opened = (*desk)->Get(id);
  ASSERT_TRUE(opened.ok());
  ASSERT_EQ(opened->severity.level, 1) << opened->severity.reason;

  const auto attacks = AttackCalls(id, ToUnixMillis(opened->opened_at));
  size_t calls = 0;
  std::set<std::string> sessions, attacked;
  for (const AgentInfo& agent : AllAgents()) {
    auto catalog = BuildAgentCatalog(agent, ws.services());
    mcp::Session session(catalog, mcp::ServerInfo{agent.name, agent.title, "test", agent.instructions});
    mcp::RecordingSink sink;
    int next = 1;
    auto request = [&](const std::string& method, const Json& params) {
      const int rid = next++;
      session.Handle({{"jsonrpc", "2.0"}, {"id", rid}, {"method", method}, {"params", params}}, sink);
      auto r = sink.WaitFor([&](const Json& m) { return m.value("id", Json()) == rid && !m.contains("method"); },
                            std::chrono::milliseconds(0));
      EXPECT_TRUE(r.has_value()) << agent.name << ": no answer to " << method;
      return r.value_or(Json::object());
    };
    Json init = request("initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", Json::object()},
                                       {"clientInfo", {{"name", "sev1-probe"}, {"version", "1"}}}});
    ASSERT_TRUE(init.contains("result")) << init.dump();
    session.Handle({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, sink);
    for (const mcp::ToolSpec& tool : catalog->tools()) {
      if (tool.annotations.read_only) continue;
      auto cases = attacks.find(tool.name);
      ASSERT_NE(cases, attacks.end()) << agent.name << ": write tool " << tool.name << " has no attack here";
      attacked.insert(tool.name);
      for (const Json& args : cases->second) {
        Json answer = request("tools/call", {{"name", tool.name}, {"arguments", args}});
        ASSERT_TRUE(answer.contains("result")) << tool.name << ": " << answer.dump().substr(0, 400);
        ++calls;
      }
    }
    // Every call of this session is attributed to the client it declared and this session.
    auto events = st.ActionEvents(actions::kAgentWritesSubject);
    ASSERT_TRUE(events.ok());
    ASSERT_EQ(events->size(), calls) << agent.name;
    for (size_t i = events->size(); i-- > 0 && (*events)[i].actor == "agent:" + agent.name;) {
      EXPECT_EQ((*events)[i].kind, "tool_call");
      EXPECT_EQ((*events)[i].body.value("client", ""), "sev1-probe");
      const std::string label = (*events)[i].body.value("session", "");
      EXPECT_FALSE(label.empty());
      sessions.insert(agent.name + "|" + label);
    }
  }
  EXPECT_EQ(attacked.size(), attacks.size()) << "every write tool was tried";
  std::set<std::string> labels;
  for (const std::string& s : sessions) labels.insert(s.substr(s.find('|') + 1));
  EXPECT_EQ(labels.size(), sessions.size()) << "each session is told apart";

  auto after = (*desk)->Get(id);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->status, incidents::IncidentStatus::kOpen);
  EXPECT_EQ(after->severity.level, 1) << after->severity.reason;
  EXPECT_FALSE(after->closed_at.has_value());
  EXPECT_EQ(after->transitions.size(), opened->transitions.size()) << "no transition was made by a tool";
  auto head = actions::CurrentReceiptHead(st);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->seq, 0) << "no receipt";
  for (const char* metric : {"t_null_ids", "quality:table://main/t:not_null:id"}) {
    auto marks = st.MetricMarks(metric, FromUnixMillis(0), now + std::chrono::hours(48));
    ASSERT_TRUE(marks.ok());
    EXPECT_TRUE(marks->empty()) << metric << " was marked";
  }
}

}  // namespace attributed_writes_test
}  // namespace
}  // namespace dw::agents
