// mcp.max_scan_bytes: what one MCP session's run_quality_check calls may bill in all on BigQuery
// (dw-sim bigquery bills as the service does: at least 10 MB per table a statement reads). A
// session whose next call would pass its budget is refused with what it has spent, and scans
// nothing; another session has its own budget; a run's own max_scan_bytes still applies beneath it.
#include <gtest/gtest.h>

#include "net/http_client.h"
#include "tests/support/agent_workspace.h"
#include "tests/support/rsa_test_key.h"

namespace dw::agents {
namespace {

constexpr int64_t kMb = 1 << 20;

Json Table(const std::string& name) {
  return {{"dataset", "shop"}, {"table", name},
          {"columns", Json::parse(R"([{"name": "id", "type": "INT64"}, {"name": "note", "type": "STRING"}])")},
          {"rows", Json::parse(R"([[1, "a"], [2, null], [3, "c"]])")}};
}

// The jobs the simulator ran (a dry run prices without running one, and is not one of them).
int64_t JobsRun(const std::string& sim_url) {
  auto http = net::MakeCurlHttpClient();
  net::HttpRequest req;
  req.method = "GET";
  req.url = sim_url + "/_sim/state";
  auto res = http->Send(req);
  if (!res.ok()) return -1;
  Json state = Json::parse(res->body, nullptr, false);
  return state.is_object() ? state.value("jobs", int64_t{-1}) : -1;
}

struct Case {
  int tables;      // each call checks them all: 10 MB billed per table
  int64_t cap;     // mcp.max_scan_bytes
  int allowed;     // calls of one session that run before one is refused
  bool exhausted;  // the refused call finds nothing left (else: too little left for the call)
};

class SessionScanBudgetTest : public ::testing::TestWithParam<Case> {};

TEST_P(SessionScanBudgetTest, ASessionThatWouldPassItsBudgetIsRefusedWithWhatItSpent) {
  const Case c = GetParam();
  testing::AgentWorkspace ws(FromUnixMillis(1796608800000));
  Json key = {{"type", "service_account"}, {"project_id", "dw-test"}, {"private_key_id", "k1"},
              {"private_key", testing::TestKeyPem()}, {"client_email", "dw-checks@dw-test.iam.gserviceaccount.com"},
              {"token_uri", "https://oauth2.googleapis.com/token"}};
  ws.Write("key.json", key.dump());
  Json tables = Json::array();
  std::string checks;
  for (int t = 0; t < c.tables; ++t) {
    tables.push_back(Table("t" + std::to_string(t)));
    checks += "  - {table: bq.shop.t" + std::to_string(t) + ", not_null: [id]}\n";
  }
  ASSERT_TRUE(ws.StartSim(sim::Platform::kBigQuery, {{"project", "dw-test"}, {"credentials", (ws.path() / "key.json").string()},
                                                    {"tables", tables}}));
  ws.Write("dataworkers.yaml", "version: 1\nname: budget\nwarehouses:\n"
                               "  bq: {type: bigquery, project: dw-test, credentials: key.json, api_url: \"{SIM}\", "
                               "token_url: \"{SIM}/token\"}\n"
                               "checks:\n" + checks + "mcp:\n  max_scan_bytes: " + std::to_string(c.cap) + "\n");
  ASSERT_TRUE(ws.Load("dw-quality"));

  const int64_t per_call = 10 * kMb * c.tables;
  for (int i = 0; i < c.allowed; ++i) {
    mcp::ToolResult r = ws.Call("run_quality_check", Json::object(), testing::AgentWorkspace::Args::kValid, "session-a");
    ASSERT_FALSE(r.is_error) << "call " << i + 1 << ": " << r.content.dump();
  }
  const int64_t jobs = JobsRun(ws.sim_url());
  mcp::ToolResult refused = ws.Call("run_quality_check", Json::object(), testing::AgentWorkspace::Args::kValid, "session-a");
  ASSERT_TRUE(refused.is_error);
  const std::string text = refused.content.dump();
  const int64_t spent = per_call * c.allowed;
  EXPECT_NE(text.find("this MCP session has billed " + std::to_string(spent) + " bytes of its budget of " +
                      std::to_string(c.cap) + " (mcp.max_scan_bytes)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(c.exhausted ? "refused: " : "the run would bill about " + std::to_string(per_call) + " bytes"),
            std::string::npos)
      << text;
  // Nothing is scanned: a call refused before it starts runs no job, one refused by its price only
  // the dataset's catalog read that planning needs (one metadata job).
  EXPECT_EQ(JobsRun(ws.sim_url()) - jobs, c.exhausted ? 0 : 1) << "a refused call scanned";

  // Another session has a budget of its own (and the first call of one is refused as the first
  // call of this one was, when one call is over the whole budget).
  mcp::ToolResult other = ws.Call("run_quality_check", Json::object(), testing::AgentWorkspace::Args::kValid, "session-b");
  EXPECT_EQ(other.is_error, c.allowed == 0) << other.content.dump();
  // And the run's own budget still applies beneath the session's: under one table's 10 MB, it
  // refuses the call by itself, not naming the session's.
  mcp::ToolResult own = ws.Call("run_quality_check", {{"max_scan_bytes", 10 * kMb - 1}}, testing::AgentWorkspace::Args::kValid,
                                "session-c");
  ASSERT_TRUE(own.is_error);
  EXPECT_EQ(own.content.dump().find("mcp.max_scan_bytes"), std::string::npos) << own.content.dump();
}

INSTANTIATE_TEST_SUITE_P(Caps, SessionScanBudgetTest,
                         ::testing::Values(Case{1, 10 * kMb, 1, true}, Case{1, 25 * kMb, 2, false},
                                           Case{2, 45 * kMb, 2, false}, Case{2, 40 * kMb, 2, true},
                                           Case{3, 29 * kMb, 0, false}));

}  // namespace
}  // namespace dw::agents
