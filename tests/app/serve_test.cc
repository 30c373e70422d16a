// `dw serve` end to end: the real binary on a free loopback port, spoken to over HTTP.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <httplib.h>

#include <string>
#include <vector>

#include "base/json.h"
#include "tests/support/build_paths.h"
#include "tests/support/serve_process.h"
#include "tests/support/subprocess.h"

extern char** environ;

namespace dw {
namespace {
namespace serve_test {

using testing::ServeProcess;

httplib::Headers McpHeaders(const std::string& session = "") {
  httplib::Headers h = {{"Accept", "application/json, text/event-stream"}};
  if (!session.empty()) {
    h.emplace("Mcp-Session-Id", session);
    h.emplace("MCP-Protocol-Version", "2025-11-25");
  }
  return h;
}

// initialize on `path`; returns the session id.
std::string Initialize(httplib::Client& cli, const std::string& path) {
  Json init = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
               {"params", {{"protocolVersion", "2025-11-25"}, {"capabilities", Json::object()},
                           {"clientInfo", {{"name", "serve-test"}, {"version", "1"}}}}}};
  auto r = cli.Post(path.c_str(), McpHeaders(), init.dump(), "application/json");
  EXPECT_TRUE(r) << path;
  if (!r) return "";
  EXPECT_EQ(r->status, 200) << r->body;
  std::string sid = r->get_header_value("Mcp-Session-Id");
  auto n = cli.Post(path.c_str(), McpHeaders(sid),
                    R"({"jsonrpc":"2.0","method":"notifications/initialized"})", "application/json");
  EXPECT_TRUE(n && n->status == 202);
  return sid;
}

std::vector<std::string> ToolNames(httplib::Client& cli, const std::string& path) {
  std::string sid = Initialize(cli, path);
  auto r = cli.Post(path.c_str(), McpHeaders(sid), R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})",
                    "application/json");
  std::vector<std::string> names;
  EXPECT_TRUE(r) << path << ": " << (r ? "" : httplib::to_string(r.error()));
  if (!r) return names;
  EXPECT_EQ(r->status, 200) << r->body;
  Json reply = Json::parse(r->body);  // kept alive: the loop below iterates inside it
  for (const auto& t : reply["result"]["tools"]) names.push_back(t["name"]);
  return names;
}

const std::string kExample = std::string(DW_SOURCE_DIR) + "/examples/loyalty-flink";

TEST(AppServeTest, ServesEveryAgentAndTheCombinedEndpoint) {
  ServeProcess serve({"--workspace", kExample, "serve", "--listen", "127.0.0.1:0"});
  ASSERT_GT(serve.port(), 0);
  httplib::Client cli("127.0.0.1", serve.port());
  auto health = cli.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);

  // Each agent's tools; the combined endpoint serves them all, describe_workspace once.
  const std::map<std::string, std::vector<std::string>> tools = {
      {"dw-incidents", {"describe_workspace", "monitor_metrics", "diagnose_incident", "remediate", "get_incident_history"}},
      {"dw-quality", {"describe_workspace", "run_quality_check", "get_warehouse_spend"}},
      {"dw-context-catalog",
       {"describe_workspace", "trace_cross_platform_lineage", "blast_radius_analysis", "search_assets",
        "get_asset"}},
      {"dw-connectors", {"describe_workspace", "get_connector_status", "get_change_timeline", "register_stream_schema"}},
      {"dw-schema", {"describe_workspace", "check_compatibility", "assess_impact"}},
  };
  std::set<std::string> all;
  for (const auto& [agent, names] : tools) {
    EXPECT_EQ(ToolNames(cli, "/mcp/" + agent), names) << agent;
    all.insert(names.begin(), names.end());
  }
  std::vector<std::string> combined = ToolNames(cli, "/mcp");
  EXPECT_EQ(std::set<std::string>(combined.begin(), combined.end()), all);
  EXPECT_EQ(combined.size(), all.size());
  auto unknown = cli.Post("/mcp/dw-nonsense", McpHeaders(), "{}", "application/json");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
}

TEST(AppServeTest, ProductModeAndFixtureModeDoNotMix) {
  ServeProcess product({"--workspace", kExample, "serve", "--listen", "127.0.0.1:0"});
  ServeProcess fixtures({"serve", "--conformance-fixtures", "--listen", "127.0.0.1:0"});
  ASSERT_GT(product.port(), 0);
  ASSERT_GT(fixtures.port(), 0);
  httplib::Client p("127.0.0.1", product.port());
  httplib::Client f("127.0.0.1", fixtures.port());
  for (const auto& name : ToolNames(p, "/mcp")) EXPECT_NE(name.rfind("test_", 0), 0u) << name;
  auto fixture_tools = ToolNames(f, "/mcp");
  ASSERT_FALSE(fixture_tools.empty());
  for (const auto& name : fixture_tools) EXPECT_EQ(name.rfind("test_", 0), 0u) << name;
}

TEST(AppServeTest, ATokenIsRequiredWhenConfigured) {
  char tmpl[] = "/tmp/dw-token-XXXXXX";
  int fd = mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  std::string token = "0123456789abcdef0123456789abcdef";
  ASSERT_EQ(write(fd, token.data(), token.size()), static_cast<ssize_t>(token.size()));
  close(fd);
  ServeProcess serve({"--workspace", kExample, "serve", "--listen", "127.0.0.1:0", "--token-file", tmpl});
  unlink(tmpl);
  ASSERT_GT(serve.port(), 0);
  httplib::Client cli("127.0.0.1", serve.port());
  auto denied = cli.Post("/mcp", McpHeaders(), R"({"jsonrpc":"2.0","id":1,"method":"ping"})",
                         "application/json");
  ASSERT_TRUE(denied);
  EXPECT_EQ(denied->status, 401);
  EXPECT_FALSE(denied->get_header_value("WWW-Authenticate").empty());
  cli.set_bearer_token_auth(token);
  EXPECT_FALSE(Initialize(cli, "/mcp").empty());
}

// A person starting `dw serve` is told where the desk is, and that approval links are off without
// a key; stdout keeps the one line scripts read the port from.
TEST(AppServeTest, TheStartAnnouncesTheDeskBesideMcp) {
  auto r = testing::RunCommand("env -u DW_APPROVAL_LINK_KEY timeout -s TERM 3 " + std::string(DW_BINARY) +
                               " --workspace " + kExample + " serve --listen 127.0.0.1:0");
  EXPECT_NE(r.out.find("listening on http://127.0.0.1:"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("desk"), std::string::npos) << "stdout is the port's line alone: " << r.out;
  EXPECT_NE(r.err.find("the desk at http://127.0.0.1:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("approval links off: no usable DW_APPROVAL_LINK_KEY"), std::string::npos) << r.err;
}

}  // namespace serve_test
}  // namespace
}  // namespace dw
