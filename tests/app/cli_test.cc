// The `dw` binary end to end: the commands a user types, their output and exit codes.
#include <gtest/gtest.h>

#include <regex>

#include "base/json.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw {
namespace {
namespace cli_test {

using testing::RunCommand;
using testing::TempDir;

const std::string kDw = DW_BINARY;
const std::string kExample = std::string(DW_SOURCE_DIR) + "/examples/loyalty-flink";

std::string Q(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

TEST(AppCliTest, PrintsVersion) {
  auto r = RunCommand(kDw + " --version");
  EXPECT_EQ(r.exit_code, 0);
  // The version, the commit the binary was built from and its build type.
  EXPECT_TRUE(std::regex_match(r.out, std::regex(std::string("dw ") + DW_VERSION +
                                                 " \\(commit ([0-9a-f]{12}(-modified)?|unknown), [A-Za-z]+[^)]* build\\)\n")))
      << r.out;
  // In a checkout, the commit named is the one checked out (when the binary is this tree's).
  auto head = RunCommand("git -C " + Q(DW_SOURCE_DIR) + " rev-parse --short=12 HEAD 2>/dev/null");
  if (head.exit_code == 0 && head.out.size() == 13) {
    EXPECT_NE(r.out.find("commit " + head.out.substr(0, 12)), std::string::npos) << r.out << " vs HEAD " << head.out;
  }
}

TEST(AppCliTest, UnknownCommandIsAUsageError) {
  auto r = RunCommand(kDw + " frobnicate");
  EXPECT_EQ(r.exit_code, 2);
}

TEST(AppCliTest, InitWritesAValidWorkspaceAndRefusesToOverwrite) {
  TempDir tmp;
  auto dir = tmp.path() / "new-ws";
  auto r = RunCommand(kDw + " init " + Q(dir) + " --name fresh");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(std::filesystem::exists(dir / "dataworkers.yaml"));
  std::string before = testing::ReadWholeFile(dir / "dataworkers.yaml");
  EXPECT_NE(before.find("name: fresh"), std::string::npos);

  auto v = RunCommand(kDw + " --workspace " + Q(dir) + " validate");
  EXPECT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(v.out.find("workspace fresh is valid"), std::string::npos) << v.out;

  auto again = RunCommand(kDw + " init " + Q(dir));
  EXPECT_EQ(again.exit_code, 2);  // it could not do its work (docs/cli.md)
  EXPECT_NE(again.err.find("already exists"), std::string::npos);
  EXPECT_EQ(testing::ReadWholeFile(dir / "dataworkers.yaml"), before);
}

TEST(AppCliTest, ValidateAcceptsTheExampleWorkspace) {
  auto r = RunCommand(kDw + " --workspace " + Q(kExample) + " validate");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("workspace loyalty is valid"), std::string::npos) << r.out;
}

TEST(AppCliTest, ValidateReportsEveryErrorWithFileLineAndKeyPath) {
  TempDir tmp;
  tmp.Write("dataworkers.yaml",
            "version: 1\n"
            "name: broken\n"
            "warehouses:\n"
            "  main: {type: oracle, path: w.db}\n"
            "colour: blue\n");
  auto r = RunCommand(kDw + " --workspace " + Q(tmp.path()) + " validate");
  EXPECT_EQ(r.exit_code, 1);
  // Both problems, in file order, each with file:line:column and the key path.
  std::regex type_err("dataworkers\\.yaml:4:[0-9]+: warehouses\\.main\\.type: ");
  std::regex key_err("dataworkers\\.yaml:5:[0-9]+: colour: ");
  EXPECT_TRUE(std::regex_search(r.err, type_err)) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, key_err)) << r.err;
  EXPECT_LT(r.err.find("warehouses.main.type"), r.err.find("colour"));
  EXPECT_NE(r.err.find("2 error(s)"), std::string::npos) << r.err;
}

TEST(AppCliTest, ValidateJsonListsErrors) {
  TempDir tmp;
  tmp.Write("dataworkers.yaml", "version: 1\nname: x\nwarehouses:\n  main: {type: sqlite}\n");
  auto r = RunCommand(kDw + " --workspace " + Q(tmp.path()) + " validate --format json");
  EXPECT_EQ(r.exit_code, 1);
  auto j = Json::parse(r.out);
  EXPECT_FALSE(j["valid"].get<bool>());
  ASSERT_GE(j["errors"].size(), 1u);
  EXPECT_EQ(j["errors"][0]["line"], 4);
}

TEST(AppCliTest, ValidateWithoutWorkspaceSaysHowToMakeOne) {
  TempDir tmp;
  auto r = RunCommand("cd " + Q(tmp.path()) + " && env -u DW_WORKSPACE " + kDw + " validate");
  EXPECT_EQ(r.exit_code, 2);  // no file to check (docs/cli.md)
  EXPECT_NE(r.err.find("dw init"), std::string::npos) << r.err;
}

TEST(AppCliTest, WorkspaceComesFromTheEnvironmentWhenNoFlag) {
  auto r = RunCommand("cd /tmp && DW_WORKSPACE=" + Q(kExample) + " " + kDw + " validate");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(AppCliTest, DescribeWithoutProbesContactsNothing) {
  TempDir tmp;
  std::filesystem::copy(kExample, tmp.path() / "ws", std::filesystem::copy_options::recursive);
  auto ws = tmp.path() / "ws";
  auto r = RunCommand(kDw + " --workspace " + Q(ws) + " describe --no-probe --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = Json::parse(r.out);
  EXPECT_EQ(j["workspace"]["name"], "loyalty");
  EXPECT_FALSE(j["warehouses"][0].contains("reachable"));
  // No probe: the state store was not opened, so nothing was created.
  EXPECT_FALSE(std::filesystem::exists(ws / ".dw"));
  EXPECT_FALSE(std::filesystem::exists(ws / "warehouse.db"));
}

TEST(AppCliTest, McpRejectsAnUnknownAgentAndListsTheAgents) {
  auto r = RunCommand(kDw + " mcp dw-nonsense");
  EXPECT_EQ(r.exit_code, 2);
  for (const char* a : {"dw-incidents", "dw-quality", "dw-context-catalog", "dw-connectors", "dw-schema"})
    EXPECT_NE(r.err.find(a), std::string::npos) << a;
  EXPECT_TRUE(r.out.empty()) << "stdout is reserved for protocol messages";
}

TEST(AppCliTest, StartAgentScriptListsAgentsOnAWrongName) {
  auto r = RunCommand("cd /tmp && " + std::string(DW_SOURCE_DIR) + "/start-agent.sh nope");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("dw-context-catalog"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(AppCliTest, ServeRefusesANonLoopbackBindWithoutToken) {
  auto r = RunCommand(kDw + " serve --listen 0.0.0.0:0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("token"), std::string::npos) << r.err;
}

TEST(AppCliTest, ServeRejectsAMalformedListenAddress) {
  for (const char* bad : {"127.0.0.1", "127.0.0.1:99999", "127.0.0.1:http", ":80", "[::1]80"}) {
    auto r = RunCommand(kDw + " serve --listen '" + bad + "'");
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--listen"), std::string::npos) << bad << ": " << r.err;
  }
}

TEST(AppCliTest, ServeRejectsAShortOrMissingTokenFile) {
  TempDir tmp;
  auto shortf = tmp.Write("short", "abc\n");
  auto r = RunCommand(kDw + " serve --listen 127.0.0.1:0 --token-file " + Q(shortf));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("shorter than 16"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("abc"), std::string::npos) << "the token itself must not be printed";
  auto missing = RunCommand(kDw + " serve --listen 127.0.0.1:0 --token-file /nonexistent/tok");
  EXPECT_EQ(missing.exit_code, 2);
}

TEST(AppCliTest, AgentsCheckStartsEveryAgentOverStdio) {
  auto r = RunCommand(kDw + " --workspace " + Q(kExample) + " agents --check --format json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = Json::parse(r.out);
  ASSERT_EQ(j.size(), 5u);
  for (const auto& a : j) {
    EXPECT_TRUE(a["ok"].get<bool>()) << a.dump();
    EXPECT_EQ(a["protocol_version"], "2025-11-25");
    EXPECT_NE(std::find(a["tools"].begin(), a["tools"].end(), "describe_workspace"), a["tools"].end());
  }
}

}  // namespace cli_test
}  // namespace
}  // namespace dw
