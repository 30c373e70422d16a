// monitor_metrics through the dw-incidents catalog: what an agent records never changes a stored
// point, and marking a range expected is a proposal a person approves (a person's step).
#include <gtest/gtest.h>

#include "actions/actions.h"
#include "agents/agents.h"
#include "tests/support/agent_workspace.h"
#include "mcp/tool_invocation.h"

namespace dw::agents {
namespace {
namespace monitor_metrics_tool_test {

constexpr int64_t kHour = 3600LL * 1000;
const int64_t kStart = 1767225600000LL;  // 2026-01-01 00:00 UTC

class MonitorMetricsToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ws_.Write("dataworkers.yaml", "version: 1\nname: t\n");
    ASSERT_TRUE(ws_.Load("dw-incidents"));
  }
  // The arguments go as given (some are refused on purpose); a successful answer must match the
  // tool's output schema.
  mcp::ToolResult Call(const Json& args) { return ws_.Call("monitor_metrics", args); }
  // 40 hourly points near 50, then 2 at 500.
  Json Record() {
    Json points = Json::array();
    for (int i = 0; i < 42; ++i) points.push_back({{"ts", kStart + i * kHour}, {"value", i < 40 ? 50.0 + i % 3 : 500.0}});
    return Json::array({{{"metric", "signups"}, {"points", points}}});
  }
  size_t Stored() { return Stored(ws_); }
  static size_t Stored(dw::testing::AgentWorkspace& ws) {
    auto store = ws.services()->state();
    EXPECT_TRUE(store.ok());
    auto p = (*store)->MetricPoints("signups", FromUnixMillis(0), FromUnixMillis(kStart + 1000 * kHour));
    return p.ok() ? p->size() : 0;
  }

  dw::testing::AgentWorkspace ws_{FromUnixMillis(kStart + 42 * kHour)};
};

// The attack issue 34 found: an agent rewrote an anomalous hour (500 -> 50) so the next pass would
// see the metric back to normal. Every stored point keeps its value; each rewrite is rejected and
// named in the report; a point at a new time and an identical re-send are still taken.
TEST_F(MonitorMetricsToolTest, AStoredPointIsNeverChangedByTheToolAndEachRewriteIsReported) {
  auto first = Call(Json{{"record", Record()}});
  ASSERT_FALSE(first.is_error) << first.content.dump();
  ASSERT_EQ(Stored(), 42u);
  Json points = Json::array({{{"ts", kStart + 40 * kHour}, {"value", 51.0}},    // judged anomalous: rewrite
                             {{"ts", kStart + 41 * kHour}, {"value", 50.0}},    // rewrite
                             {{"ts", kStart + 39 * kHour}, {"value", 50.0 + 39 % 3}},  // identical
                             {{"ts", kStart + 42 * kHour}, {"value", 52.0}}});  // new
  auto r = Call(Json{{"record", Json::array({{{"metric", "signups"}, {"points", points}}})}});
  ASSERT_FALSE(r.is_error) << r.content.dump();
  const Json& report = (*r.structured)["recorded"][0];
  ASSERT_EQ(report["rejected"].size(), 2u) << report.dump();
  EXPECT_NE(report["rejected"][0].get<std::string>().find("2026-01-02 16:00:00"), std::string::npos) << report.dump();
  EXPECT_NE(report["rejected"][0].get<std::string>().find("500"), std::string::npos) << report.dump();
  EXPECT_EQ(report["stored"], 2);
  auto store = ws_.services()->state();
  ASSERT_TRUE(store.ok());
  auto p = (*store)->MetricPoints("signups", FromUnixMillis(kStart + 40 * kHour), FromUnixMillis(kStart + 43 * kHour));
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->size(), 3u);
  EXPECT_EQ((*p)[0].value, 500.0);
  EXPECT_EQ((*p)[1].value, 500.0);
  EXPECT_EQ((*p)[2].value, 52.0);
  // The tool says what it does: it writes, and destroys nothing.
  const mcp::ToolSpec* spec = ws_.catalog().FindTool("monitor_metrics");
  ASSERT_NE(spec, nullptr);
  EXPECT_FALSE(spec->annotations.read_only);
  EXPECT_FALSE(spec->annotations.destructive);
}

// The series incidents open and verify on are the product's own: a workspace monitor's (measured
// by its query) and the checks' quality:*. An agent writing into one is refused whole, with the
// field named, and nothing of the call is stored; its own series it records as before.
TEST_F(MonitorMetricsToolTest, AnAgentCannotWriteIntoASeriesTheProductMeasures) {
  dw::testing::AgentWorkspace ws{FromUnixMillis(kStart + 42 * kHour)};
  ws.Write("dataworkers.yaml",
           "version: 1\nname: t\nwarehouses:\n  main: {type: sqlite, path: wh.db}\n"
           "monitors:\n  - {name: active_balance, warehouse: main, sql: \"SELECT 1\", every: 1h}\n");
  ASSERT_TRUE(ws.Load("dw-incidents"));
  Json points = Json::array({{{"ts", kStart}, {"value", 1.0}}});
  for (const std::string metric : {"active_balance", "quality:table://main/members:rows"}) {
    Json args = {{"record", Json::array({{{"metric", "mine"}, {"points", points}},
                                         {{"metric", metric}, {"points", points}}})}};
    auto r = ws.Call("monitor_metrics", args);
    ASSERT_TRUE(r.is_error) << metric << ": " << (r.structured ? r.structured->dump() : "");
    EXPECT_NE(r.content.dump().find("record[1].metric"), std::string::npos) << r.content.dump();
    EXPECT_NE(r.content.dump().find("nothing stored"), std::string::npos) << r.content.dump();
    auto store = ws.services()->state();
    ASSERT_TRUE(store.ok());
    auto names = (*store)->MetricNames();
    ASSERT_TRUE(names.ok());
    EXPECT_TRUE(names->empty()) << "nothing of a refused call is stored";
  }
  auto own = ws.Call("monitor_metrics", Json{{"record", Json::array({{{"metric", "mine"}, {"points", points}}})}});
  ASSERT_FALSE(own.is_error) << own.content.dump();
}

// Issue 34: marking a range expected silences its monitor, so from an agent it is a proposal a
// person approves, never a mark. The call stores the agent's points and a pending proposal, and
// nothing is marked; the agent cannot decide it; a person's signed approval stores the mark with
// that person as its author, and a denial stores none. Without a domain to decide it, or at a
// domain that sends nothing for approval (L1), nothing is proposed and the error says why.
TEST_F(MonitorMetricsToolTest, MarkExpectedFromAnAgentIsAProposalOnlyAPersonsApprovalApplies) {
  const std::string domain = "domains:\n  growth: {autonomy: L2, owners: [ana@example.com], approvers: [ana@example.com]}\n";
  dw::testing::AgentWorkspace ws{FromUnixMillis(kStart + 42 * kHour)};
  ws.Write("dataworkers.yaml", "version: 1\nname: t\n" + domain);
  ASSERT_TRUE(ws.Load("dw-incidents"));
  SimulatedClock clock(FromUnixMillis(kStart + 42 * kHour));
  auto issued = actions::IssuePersonKey(**ws.services()->state(), "ana@example.com", clock, "test");
  ASSERT_TRUE(issued.ok()) << issued.status().ToString();
  ws.Write("dataworkers.yaml", "version: 1\nname: t\n" + domain + "people:\n  ana@example.com: {keys: [\"" +
                                   actions::KeyFingerprint(issued->public_key_pem) + "\"]}\n");
  ASSERT_TRUE(ws.Load("dw-incidents"));
  store::StateStore& st = **ws.services()->state();
  auto marks = [&](const std::string& metric) {
    auto m = st.MetricMarks(metric, FromUnixMillis(0), FromUnixMillis(kStart + 1000 * kHour));
    EXPECT_TRUE(m.ok());
    return m.ok() ? *m : std::vector<store::MetricMark>{};
  };
  auto ask = [&](const std::string& from, const std::string& to) {
    return ws.Call("monitor_metrics", {{"record", Record()},
                                       {"mark_expected", Json::array({{{"metric", "signups"}, {"from", from},
                                                                       {"to", to}, {"note", "launch"}}})}});
  };
  auto approve = [&](const std::string& id, actions::Verdict verdict, const std::string& person) {
    auto s = actions::NewStatement(person, id, 1, verdict, "checked the launch", clock);
    auto sig = actions::SignStatement(s, issued->private_key_pem);
    EXPECT_TRUE(sig.ok());
    return actions::Decide(st, ws.services()->workspace(), {s, "cli", sig.ok() ? *sig : ""}, clock);
  };

  auto r = ask("2026-01-02T16:00:00Z", "2026-01-02T17:00:00Z");
  ASSERT_FALSE(r.is_error) << r.content.dump();
  ASSERT_EQ((*r.structured)["proposals"].size(), 1u) << r.structured->dump();
  const Json& p = (*r.structured)["proposals"][0];
  EXPECT_EQ(p["status"], "pending");
  EXPECT_NE(p["waits_for"].get<std::string>().find("ana@example.com"), std::string::npos) << p.dump();
  const std::string id = p["proposal_id"];
  EXPECT_EQ(Stored(ws), 42u) << "the agent's own points are stored as before";
  EXPECT_TRUE(marks("signups").empty()) << "nothing is marked by the agent's call";
  // The agent cannot apply it: not as itself, not over MCP.
  auto s = actions::NewStatement("agent:dw-incidents", id, 1, actions::Verdict::kApprove, "", clock);
  auto as_agent = actions::Decide(st, ws.services()->workspace(), {s, "cli", ""}, clock);
  ASSERT_TRUE(as_agent.ok());
  EXPECT_FALSE(as_agent->accepted);
  auto ana = actions::NewStatement("ana@example.com", id, 1, actions::Verdict::kApprove, "", clock);
  auto over_mcp = actions::Decide(st, ws.services()->workspace(),
                                  {ana, "mcp", *actions::SignStatement(ana, issued->private_key_pem)}, clock);
  ASSERT_TRUE(over_mcp.ok());
  EXPECT_FALSE(over_mcp->accepted);
  EXPECT_TRUE(marks("signups").empty());

  auto approved = approve(id, actions::Verdict::kApprove, "ana@example.com");
  ASSERT_TRUE(approved.ok()) << approved.status().ToString();
  ASSERT_TRUE(approved->accepted) << approved->reason;
  EXPECT_NE(approved->reason.find("marked signups expected"), std::string::npos) << approved->reason;
  auto m = marks("signups");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].author, "ana@example.com");
  EXPECT_EQ(m[0].note, "launch");
  EXPECT_EQ(ToUnixMillis(m[0].from), kStart + 40 * kHour);
  EXPECT_EQ(ToUnixMillis(m[0].to), kStart + 41 * kHour);

  // Another range, denied: no mark.
  auto other = ask("2026-01-01T02:00:00Z", "2026-01-01T03:00:00Z");
  ASSERT_FALSE(other.is_error) << other.content.dump();
  auto denied = approve((*other.structured)["proposals"][0]["proposal_id"], actions::Verdict::kDeny, "ana@example.com");
  ASSERT_TRUE(denied.ok() && denied->accepted);
  EXPECT_EQ(marks("signups").size(), 1u);

  // Nothing proposed where nobody can decide: no domain (the fixture's workspace), a domain at L1,
  // a range backwards; each is an error naming the metric, and nothing is marked.
  auto none = Call({{"record", Record()}, {"mark_expected", Json::array({{{"metric", "signups"}, {"from", kStart}, {"to", kStart + kHour}}})}});
  ASSERT_FALSE(none.is_error) << none.content.dump();
  ASSERT_EQ((*none.structured)["errors"].size(), 1u) << none.structured->dump();
  EXPECT_NE((*none.structured)["errors"][0]["error"].get<std::string>().find("no domain decides"), std::string::npos);
  dw::testing::AgentWorkspace l1{FromUnixMillis(kStart + 42 * kHour)};
  l1.Write("dataworkers.yaml", "version: 1\nname: t\ndomains:\n  growth: {autonomy: L1, owners: [ana@example.com], "
                               "approvers: [ana@example.com]}\n");
  ASSERT_TRUE(l1.Load("dw-incidents"));
  for (const Json& range : {Json::array({kStart, kStart + kHour}), Json::array({kStart + kHour, kStart})}) {
    auto refused = l1.Call("monitor_metrics", {{"record", Record()},
                                               {"mark_expected", Json::array({{{"metric", "signups"}, {"from", range[0]},
                                                                               {"to", range[1]}}})}});
    ASSERT_FALSE(refused.is_error) << refused.content.dump();
    ASSERT_EQ((*refused.structured)["errors"].size(), 1u) << refused.structured->dump();
    EXPECT_EQ((*refused.structured)["proposals"].size(), 0u);
  }
  auto l1_marks = (*l1.services()->state())->MetricMarks("signups", FromUnixMillis(0), FromUnixMillis(kStart + 1000 * kHour));
  ASSERT_TRUE(l1_marks.ok());
  EXPECT_TRUE(l1_marks->empty());
}

}  // namespace monitor_metrics_tool_test
}  // namespace
}  // namespace dw::agents

namespace dw::agents {
namespace {
namespace monitor_metrics_tool_test {

// The contract path a client's call takes (input validation, the handler, the output schema
// check, redaction).
Json RunThroughContract(const mcp::Catalog& catalog, const std::string& tool, const Json& args) {
  const mcp::ToolSpec* spec = catalog.FindTool(tool);
  EXPECT_NE(spec, nullptr) << tool;
  if (spec == nullptr) return Json::object();
  dw::testing::NullCall call;
  return mcp::RunTool(*spec, args, call);
}

TEST_F(MonitorMetricsToolTest, AnIntegerTimestampOutOfRangeIsRefusedWithItsPath) {
  for (Json ts : {Json(9223372036854775807LL), Json(18446744073709551615ULL), Json(-1),
                  Json(253402300800000LL)}) {
    Json points = Json::array({{{"ts", kStart}, {"value", 1.0}}, {{"ts", ts}, {"value", 2.0}}});
    auto r = Call(Json{{"record", Json::array({{{"metric", "signups"}, {"points", points}}})}});
    ASSERT_TRUE(r.is_error) << ts.dump() << ": " << (r.structured ? r.structured->dump() : "");
    std::string text = r.content.dump();
    EXPECT_NE(text.find("record[0].points[1].ts"), std::string::npos) << text;
    EXPECT_NE(text.find("out of range"), std::string::npos) << text;
    EXPECT_EQ(Stored(), 0u) << "nothing of a refused call is stored";
  }
  // The largest accepted value is 2262-04-11T23:47:16.854Z (the last a TimePoint holds).
  Json edge = Json::array({{{"ts", 9223372036854LL}, {"value", 1.0}}});
  auto ok = Call(Json{{"record", Json::array({{{"metric", "far"}, {"points", edge}}})}});
  ASSERT_FALSE(ok.is_error) << ok.content.dump();
  EXPECT_EQ((*ok.structured)["recorded"][0]["stored"], 1);
}

TEST_F(MonitorMetricsToolTest, DeclaresAnOutputSchemaItsResultsMatch) {
  const mcp::ToolSpec* spec = ws_.catalog().FindTool("monitor_metrics");
  ASSERT_NE(spec, nullptr);
  ASSERT_TRUE(spec->output_schema.has_value());
  Json out = RunThroughContract(ws_.catalog(), "monitor_metrics",
                                {{"record", Record()}, {"evaluate", Json::array({"nosuch"})}});
  ASSERT_FALSE(out.value("isError", false)) << out.dump();
  ASSERT_TRUE(out.contains("structuredContent"));
  EXPECT_EQ(out["structuredContent"]["metrics"].size(), 1u);
  EXPECT_EQ(out["structuredContent"]["errors"].size(), 1u);  // the unknown monitor
}

TEST(AgentCatalogsTest, EveryToolOfEveryAgentDeclaresAnOutputSchema) {
  dw::testing::TempDir dir;
  dir.Write("dataworkers.yaml", "version: 1\nname: t\n");
  SimulatedClock clock{FromUnixMillis(kStart)};
  auto services = workspace::Services::Load(dir.path(), clock);
  for (const AgentInfo& agent : AllAgents()) {
    auto catalog = BuildAgentCatalog(agent, services);
    for (const mcp::ToolSpec& tool : catalog->tools()) {
      ASSERT_TRUE(tool.output_schema.has_value()) << agent.name << ": " << tool.name;
      EXPECT_EQ((*tool.output_schema)["type"], "object") << agent.name << ": " << tool.name;
    }
  }
}

TEST(MonitorMetricsRedactionTest, AKeywordValueDsnPasswordNeverReachesTheClient) {
  for (const std::string dsn : {"host=127.0.0.1 port=1 dbname=x user=u password=plainsecret1",
                                "host=127.0.0.1 port=1 dbname=x user=u password='p@ss w0rd!'",
                                "host=127.0.0.1 port=1 dbname=x user=u password=z7"}) {
    dw::testing::TempDir dir;
    dir.Write("dataworkers.yaml", "version: 1\nname: t\nwarehouses:\n  pg: {type: postgres, dsn: \"" +
                                      dsn + "\"}\nmonitors:\n  - {name: m, warehouse: pg, sql: \"SELECT 1\", every: 1h}\n");
    SimulatedClock clock{FromUnixMillis(kStart)};
    auto services = workspace::Services::Load(dir.path(), clock);
    ASSERT_TRUE(services->workspace_status().ok()) << services->workspace_status().message();
    auto catalog = BuildAgentCatalog(*FindAgent("dw-incidents"), services);
    Json out = RunThroughContract(*catalog, "monitor_metrics", {{"evaluate", Json::array({"m"})}});
    std::string text = out.dump();
    ASSERT_NE(text.find("could not connect"), std::string::npos) << text;
    EXPECT_EQ(text.find("plainsecret1"), std::string::npos) << text;
    EXPECT_EQ(text.find("w0rd"), std::string::npos) << text;
    EXPECT_EQ(text.find("z7"), std::string::npos) << text;
    EXPECT_NE(text.find("127.0.0.1"), std::string::npos) << "the host stays visible: " << text;
  }
}

}  // namespace monitor_metrics_tool_test
}  // namespace
}  // namespace dw::agents
