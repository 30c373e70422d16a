// The layout rule of docs/ARCHITECTURE.md, checked on every build's tests so that it holds without
// anyone remembering it: a stage includes only headers of stages to its left along the data path
// (or its own), and nothing includes agents/ or app/ — except that app/ may include the registry of
// agents (agents/agents.h) to serve them, and src/main.cc may include app/.
//
// The checker reads every file under a source root, takes each `#include "stage/..."` line, and
// reports the ones that point right. It is run on the real src/ and on synthetic trees that hold
// each kind of bad include, so a checker that silently accepts everything would fail here too.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw::layout {
namespace {

namespace fs = std::filesystem;

// The data path, left to right (docs/ARCHITECTURE.md, "Stages"). A folder under src/ that is not
// listed here fails the check: a new stage must be placed in the order first. schema/ reads platform
// facts and the graph beside observe/ (design ARCHITECTURE.md: "schema/ sits beside observe/ as a
// reader of platform facts; registering a schema is an actions/ proposal"), so it stands before the
// judgement and action stages and may not include them.
const std::vector<std::string>& StageOrder() {
  static const std::vector<std::string> kOrder = {
      "base",      "config",  "store",  "warehouse", "net",       "platforms", "observe", "graph",
      "schema",    "incidents", "actions", "replay", "workspace", "desk",     "mcp",      "agents",  "app"};
  return kOrder;
}

int Rank(const std::string& stage) {
  const auto& order = StageOrder();
  auto it = std::find(order.begin(), order.end(), stage);
  return it == order.end() ? -1 : static_cast<int>(it - order.begin());
}

// The surfaces: nothing outside them includes them.
bool IsSurface(const std::string& stage) { return stage == "agents" || stage == "app"; }

// The one include of agents/ the app may make: the registry it serves the agents from.
constexpr char kAgentsRegistry[] = "agents/agents.h";

// One include that breaks the rule: "file:line: why".
using Violation = std::string;

std::vector<Violation> RightwardIncludes(const fs::path& src) {
  static const std::regex kInclude(R"(^\s*#\s*include\s*"([^"]+)\")");
  std::vector<Violation> out;
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(src))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    const fs::path rel = fs::relative(file, src);
    const bool at_root = std::distance(rel.begin(), rel.end()) == 1;  // src/main.cc
    const std::string stage = at_root ? "" : rel.begin()->string();
    if (!at_root && Rank(stage) < 0) {
      out.push_back(rel.string() + ": folder '" + stage + "' is not a stage of the data path");
      continue;
    }
    std::ifstream in(file);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      std::smatch m;
      if (!std::regex_search(line, m, kInclude)) continue;
      const std::string target = m[1].str();
      const std::string where = rel.string() + ":" + std::to_string(n) + ": includes \"" + target + "\"";
      const auto slash = target.find('/');
      const std::string to = slash == std::string::npos ? "" : target.substr(0, slash);
      if (Rank(to) < 0) {
        out.push_back(where + ", which is not in a stage's folder");
        continue;
      }
      if (at_root) {
        if (to != "app") out.push_back(where + ": main.cc only calls into app/");
        continue;
      }
      if (to == stage) continue;
      if (IsSurface(to) && !(stage == "app" && target == kAgentsRegistry)) {
        out.push_back(where + ": nothing includes " + to + "/" +
                      (to == "agents" ? " (app/ may include only agents/agents.h)" : ""));
        continue;
      }
      if (Rank(to) > Rank(stage))
        out.push_back(where + ": " + stage + "/ may include only stages to its left, and " + to +
                      "/ is to its right");
    }
  }
  return out;
}

std::string Joined(const std::vector<Violation>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

TEST(IncludeDirection, TheSourceTreeIncludesOnlyLeftward) {
  const fs::path src = fs::path(DW_SOURCE_DIR) / "src";
  ASSERT_TRUE(fs::is_directory(src)) << src;
  std::vector<Violation> v = RightwardIncludes(src);
  EXPECT_TRUE(v.empty()) << Joined(v);
}

TEST(IncludeDirection, EveryFolderOfTheSourceTreeIsAStage) {
  for (const auto& entry : fs::directory_iterator(fs::path(DW_SOURCE_DIR) / "src")) {
    if (entry.is_directory()) {
      EXPECT_GE(Rank(entry.path().filename().string()), 0) << entry.path();
    }
  }
}

TEST(IncludeDirection, AcceptsSameStageLeftwardAndTheAgentsRegistry) {
  testing::TempDir dir;
  dir.Write("base/status.h", "#pragma once\n");
  dir.Write("observe/metrics/detector.cc",
            "#include \"observe/metrics/detector.h\"\n#include <vector>\n#include \"base/status.h\"\n"
            "#include \"graph_like.h\" // not a stage path? see below\n");
  // A bare file name is not in a stage's folder: reported. Remove it to make the tree good.
  EXPECT_EQ(RightwardIncludes(dir.path()).size(), 1u);
  dir.Write("observe/metrics/detector.cc",
            "#include \"observe/metrics/detector.h\"\n#include <vector>\n  #  include \"base/status.h\"\n"
            "// #include \"app/cli.h\" is only a comment\n");
  dir.Write("app/cmd_serve.cc", "#include \"agents/agents.h\"\n#include \"mcp/session.h\"\n");
  dir.Write("agents/tool.cc", "#include \"workspace/services.h\"\n#include \"agents/agents.h\"\n");
  dir.Write("incidents/grouping.cc", "#include \"observe/metrics/detector.h\"\n");
  dir.Write("main.cc", "#include \"app/cli.h\"\n");
  std::vector<Violation> v = RightwardIncludes(dir.path());
  EXPECT_TRUE(v.empty()) << Joined(v);
}

TEST(IncludeDirection, ReportsEveryKindOfRightwardInclude) {
  testing::TempDir dir;
  dir.Write("observe/metrics/metric_service.cc", "#include \"incidents/incident.h\"\n");
  dir.Write("agents/tool.cc", "#include \"app/services.h\"\n");
  dir.Write("graph/ingest.cc", "#include \"agents/agents.h\"\n");
  dir.Write("app/cmd_watch.cc", "#include \"agents/monitor_metrics_tool.h\"\n");
  dir.Write("warehouse/bigquery_warehouse.cc", "#include \"net/http_client.h\"\n");
  dir.Write("mcp/session.cc", "#include \"app/commands.h\"\n");
  dir.Write("workspace/services.cc", "#include \"mcp/catalog.h\"\n");
  dir.Write("webpage/index.cc", "#include \"base/status.h\"\n");
  dir.Write("main.cc", "#include \"mcp/session.h\"\n");
  dir.Write("schema/registration.cc", "#include \"actions/actions.h\"\n#include \"graph/context_graph.h\"\n");
  dir.Write("incidents/desk.cc", "#include \"schema/schema.h\"\n");
  std::vector<Violation> v = RightwardIncludes(dir.path());
  const std::string all = Joined(v);
  EXPECT_EQ(v.size(), 10u) << all;
  for (const char* expected :
       {"observe/metrics/metric_service.cc:1: includes \"incidents/incident.h\": observe/ may include only "
        "stages to its left, and incidents/ is to its right",
        "agents/tool.cc:1: includes \"app/services.h\": nothing includes app/",
        "graph/ingest.cc:1: includes \"agents/agents.h\": nothing includes agents/",
        "app/cmd_watch.cc:1: includes \"agents/monitor_metrics_tool.h\": nothing includes agents/ (app/ may "
        "include only agents/agents.h)",
        "warehouse/bigquery_warehouse.cc:1: includes \"net/http_client.h\"", "mcp/session.cc:1: includes \"app/commands.h\"",
        "workspace/services.cc:1: includes \"mcp/catalog.h\"",
        "webpage/index.cc: folder 'webpage' is not a stage of the data path",
        "main.cc:1: includes \"mcp/session.h\": main.cc only calls into app/",
        "schema/registration.cc:1: includes \"actions/actions.h\": schema/ may include only stages to its left, and "
        "actions/ is to its right"})
    EXPECT_NE(all.find(expected), std::string::npos) << expected << "\nnot in:\n" << all;
}

// The namespace a file under src/ must open (docs/ARCHITECTURE.md: namespaces follow folders):
// src/observe/metrics/x.cc is dw::observe::metrics (or a namespace nested in it, as
// dw::schema::avro), and base/ is the shared vocabulary in dw itself. "" when the file is fine.
std::string NamespaceMismatch(const fs::path& src, const fs::path& file) {
  static const std::regex kNamespace(R"(^namespace\s+(dw(::\w+)*)\s*\{)");
  const fs::path rel = fs::relative(file, src);
  if (std::distance(rel.begin(), rel.end()) < 2) return "";  // src/main.cc
  std::string expected = "dw";
  for (auto it = rel.begin(); std::next(it) != rel.end(); ++it)
    if (it->string() != "base") expected += "::" + it->string();
  std::ifstream in(file);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::smatch m;
    if (!std::regex_search(line, m, kNamespace)) continue;
    const std::string got = m[1].str();
    if (got == expected || got.rfind(expected + "::", 0) == 0) return "";
    return rel.string() + ":" + std::to_string(n) + ": opens namespace " + got + ", not " + expected;
  }
  return "";
}

TEST(IncludeDirection, NamespacesFollowFolders) {
  const fs::path src = fs::path(DW_SOURCE_DIR) / "src";
  std::vector<Violation> v;
  for (const auto& entry : fs::recursive_directory_iterator(src))
    if (entry.is_regular_file())
      if (std::string m = NamespaceMismatch(src, entry.path()); !m.empty()) v.push_back(m);
  EXPECT_TRUE(v.empty()) << Joined(v);

  testing::TempDir dir;
  dir.Write("observe/metrics/detector.cc", "#include \"x\"\nnamespace dw::metrics {\n}\n");
  dir.Write("schema/avro_schema.cc", "namespace dw::schema::avro {\n}\n");
  dir.Write("base/clock.cc", "namespace dw {\n}\n");
  EXPECT_EQ(NamespaceMismatch(dir.path(), dir.path() / "observe/metrics/detector.cc"),
            "observe/metrics/detector.cc:2: opens namespace dw::metrics, not dw::observe::metrics");
  EXPECT_EQ(NamespaceMismatch(dir.path(), dir.path() / "schema/avro_schema.cc"), "");
  EXPECT_EQ(NamespaceMismatch(dir.path(), dir.path() / "base/clock.cc"), "");
}

TEST(IncludeDirection, TheOrderKnowsTheComingStages) {
  // The judgement and action stages other work adds must already have their place.
  for (const char* stage : {"incidents", "actions", "schema", "replay"}) EXPECT_GE(Rank(stage), 0) << stage;
  EXPECT_LT(Rank("observe"), Rank("incidents"));
  // schema/ is a reader beside observe/ (it walks the graph for impact); its one write, a
  // registration, is a proposal of actions/, which therefore may use schema/ and not the reverse.
  EXPECT_LT(Rank("graph"), Rank("schema"));
  EXPECT_LT(Rank("schema"), Rank("incidents"));
  EXPECT_LT(Rank("schema"), Rank("actions"));
  EXPECT_LT(Rank("replay"), Rank("workspace"));
  // The desk's pages read the workspace's services and are served by app/ beside MCP.
  EXPECT_EQ(Rank("workspace") + 1, Rank("desk"));
  EXPECT_EQ(Rank("desk") + 1, Rank("mcp"));
}

}  // namespace
}  // namespace dw::layout
