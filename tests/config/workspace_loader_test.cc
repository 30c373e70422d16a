// What a valid workspace file turns into: defaults, resolved paths, substituted values, and the
// example workspaces and `dw init` template loading cleanly.
#include <algorithm>
#include <cstdlib>
#include <sstream>

#include <gtest/gtest.h>

#include "base/log.h"
#include "config/workspace.h"
#include "tests/support/build_paths.h"
#include "workspace_test_support.h"

namespace dw::config {
namespace {

using testing::kMinimal;
using testing::TempWorkspace;

namespace fs = std::filesystem;

// The process environment is never consulted: examples must load with nothing set.
LoadResult LoadWithEmptyEnv(const fs::path& dir) {
  return LoadWorkspace(dir, [](const std::string&) { return std::nullopt; });
}

TEST(ConfigExamplesTest, LoyaltyFlinkLoadsCleanly) {
  auto r = LoadWithEmptyEnv(fs::path(DW_SOURCE_DIR) / "examples/loyalty-flink");
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  const Workspace& ws = *r.workspace;
  EXPECT_EQ(ws.name, "loyalty");
  EXPECT_EQ(ws.warehouses.at("main").type, "sqlite");
  EXPECT_EQ(ws.warehouses.at("main").path, (ws.dir / "warehouse.db").string());
  EXPECT_EQ(ws.platforms.at("flink").url, "http://127.0.0.1:18081");
  EXPECT_EQ(ws.platforms.at("connect").url, "http://127.0.0.1:18083");
  EXPECT_EQ(ws.platforms.at("registry").url, "http://127.0.0.1:18085");
  // ana owns points-balance and approves; lena, the loyalty data owner, is copied on requests.
  EXPECT_EQ(ws.domains.at("loyalty").owners, (std::vector<std::string>{"ana@example.com", "lena@example.com"}));
  std::vector<std::string> ids;
  for (const auto& a : ws.assets) ids.push_back(a.id);
  for (const char* id : {"kafka://prod/points-events", "flink://flink/points-balance",
                         "kafka://prod/member-balances", "connect://connect/bq-sink-balances",
                         "table://main/member_balances", "dbt://loyalty/fct_member_tier",
                         "sync://hightouch/tier-changes-to-braze"})
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
  const AssetNote& sync = ws.assets.back();
  EXPECT_EQ(sync.id, "sync://hightouch/tier-changes-to-braze");
  EXPECT_EQ(sync.schedule, "0 22 * * *");
  EXPECT_TRUE(sync.customer_facing);
  ASSERT_EQ(ws.checks.size(), 1u);
  EXPECT_EQ(ws.checks[0].table, "main.member_balances");
  EXPECT_EQ(ws.checks[0].warehouse, "main");
  EXPECT_EQ(ws.checks[0].asset_id, "table://main/member_balances");
  ASSERT_EQ(ws.monitors.size(), 1u);
  EXPECT_EQ(ws.monitors[0].name, "avg_active_balance");
  EXPECT_EQ(ws.monitors[0].spec["seasonality"], "hour_of_week");
  EXPECT_TRUE(fs::exists(fs::path(DW_SOURCE_DIR) / "examples/loyalty-flink/warehouse.sql"));
}

TEST(ConfigExamplesTest, EvKestraLoadsCleanly) {
  auto r = LoadWithEmptyEnv(fs::path(DW_SOURCE_DIR) / "examples/ev-kestra");
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  const Workspace& ws = *r.workspace;
  const PlatformConfig& kestra = ws.platforms.at("kestra");
  EXPECT_EQ(kestra.type, "kestra");
  EXPECT_EQ(kestra.tenant, "main");
  EXPECT_EQ(kestra.timeout, std::chrono::seconds(30));
  bool statements_found = false;
  for (const auto& a : ws.assets)
    if (a.id == "kestra://kestra/billing.fleet_statements") {
      statements_found = true;
      EXPECT_EQ(a.schedule, "30 7 * * *");
      EXPECT_TRUE(a.customer_facing);
    }
  EXPECT_TRUE(statements_found);
}

TEST(ConfigTemplateTest, TemplateLoadsWithZeroErrors) {
  TempWorkspace tmp;
  auto r = tmp.Load(WorkspaceTemplate("my-team"));
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  EXPECT_EQ(r.workspace->name, "my-team");
  EXPECT_EQ(r.workspace->warehouses.at("main").path, (tmp.dir() / "warehouse.db").string());
  EXPECT_EQ(r.workspace->domains.size(), 1u);
}

TEST(ConfigTemplateTest, EveryCommentedSectionIsValidWhenUncommented) {
  // Strip the leading "# " from the commented examples: the result must load too (with the
  // referenced variables set), so the template never teaches a key that does not exist.
  std::string text = WorkspaceTemplate("t"), out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("# ") && line.find(':') != std::string::npos &&
        !line.starts_with("# Data Workers") && !line.starts_with("# Every") &&
        !line.starts_with("# Strings") && !line.starts_with("# state"))
      line = line.substr(2);
    else if (line.starts_with("  # "))
      line = "  " + line.substr(4);
    out += line + "\n";
  }
  TempWorkspace tmp;
  auto r = tmp.Load(out, {{"DW_PG_DSN", "postgresql://dw@127.0.0.1/dw"},
                          {"KESTRA_USER", "u"}, {"KESTRA_PASSWORD", "p"},
                          {"SLACK_WEBHOOK", "https://hooks/x"}, {"TEAMS_WEBHOOK", "https://t/x"},
                          {"OPSGENIE_KEY", "k"}, {"PAGERDUTY_KEY", "k"}});
  ASSERT_TRUE(r.ok()) << r.ErrorText() << "\n" << out;
  EXPECT_EQ(r.workspace->platforms.size(), 4u);
  EXPECT_EQ(r.workspace->checks.size(), 1u);
  EXPECT_EQ(r.workspace->monitors.size(), 1u);
  EXPECT_EQ(r.workspace->assets.size(), 2u);
  EXPECT_TRUE(r.workspace->notify.contains("pagerduty"));
}

TEST(ConfigLoaderTest, DefaultsAndResolvedPaths) {
  TempWorkspace tmp;
  auto r = tmp.Load(std::string(kMinimal) +
                    "platforms:\n"
                    "  kestra: {type: kestra, url: \"http://127.0.0.1:8080/\"}\n"
                    "  flink: {type: flink, url: \"https://flink.example.com\", manifests: deploy/flink}\n"
                    "domains:\n  d: {}\n"
                    "lineage: {dbt_manifest: target/manifest.json, kestra_flows: /abs/flows}\n");
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  const Workspace& ws = *r.workspace;
  EXPECT_TRUE(ws.dir.is_absolute());
  EXPECT_EQ(ws.file, tmp.dir() / kWorkspaceFileName);
  EXPECT_EQ(ws.timezone, "UTC");
  EXPECT_EQ(ws.state, (tmp.dir() / ".dw" / "state.db").string());
  EXPECT_EQ(ws.platforms.at("kestra").tenant, "main");
  EXPECT_EQ(ws.platforms.at("kestra").url, "http://127.0.0.1:8080");  // trailing '/' dropped
  EXPECT_EQ(ws.platforms.at("kestra").timeout, std::chrono::seconds(10));
  EXPECT_EQ(ws.platforms.at("flink").tenant, "");
  EXPECT_EQ(ws.platforms.at("flink").manifests, (tmp.dir() / "deploy/flink").string());
  EXPECT_EQ(ws.domains.at("d").autonomy, "L1");
  EXPECT_EQ(ws.domains.at("d").approval_ttl, "2h");
  EXPECT_EQ(ws.lineage.dbt_manifest, (tmp.dir() / "target/manifest.json").string());
  EXPECT_EQ(ws.lineage.kestra_flows, "/abs/flows");
  EXPECT_FALSE(ws.lineage.openlineage);
}

TEST(ConfigLoaderTest, StateMayBeAPostgresUrlOrARelativePath) {
  TempWorkspace tmp;
  auto r = tmp.Load(std::string(kMinimal) + "state: postgresql://dw@127.0.0.1:5432/dw\n");
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  EXPECT_EQ(r.workspace->state, "postgresql://dw@127.0.0.1:5432/dw");
  r = tmp.Load(std::string(kMinimal) + "state: ../shared/state.db\n");
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  EXPECT_EQ(r.workspace->state, (tmp.dir().parent_path() / "shared/state.db").string());
}

// Found by the workspace fuzz target (an out-of-memory): nested aliases read as billions of nodes
// from a few hundred bytes. The loader refuses the file before expanding it, and a file with a few
// aliases still loads.
TEST(ConfigLoaderTest, AnAliasBombIsRefusedBeforeItIsExpanded) {
  TempWorkspace tmp;
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
    for (int k = 0; k < 9; ++k) bomb += ", " + prev;
    bomb += "]\n";
  }
  auto r = tmp.Load(std::string(kMinimal) + bomb);  // 10^10 nodes once expanded
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].message.find("expands to more than 1000000 YAML nodes"), std::string::npos)
      << r.ErrorText();
  EXPECT_EQ(r.errors[0].file, tmp.file());

  auto few = tmp.Load(std::string(kMinimal) + "x-defaults: &d {owner: ana@example.com}\nx-copy: *d\n");
  for (const auto& e : few.errors)
    EXPECT_EQ(e.message.find("YAML nodes"), std::string::npos) << few.ErrorText();
}

// Found by the workspace fuzz target (a timeout at 2 GB of memory): yaml-cpp 0.7's LoadAll loops
// for ever on a stray ','; the loader reports it as a syntax error with its line.
TEST(ConfigLoaderTest, AStrayCommaIsASyntaxErrorNotAnEndlessLoop) {
  TempWorkspace tmp;
  auto r = tmp.Load("# The loyalty tiers model in dbt\n, checked where it lands.\n");
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].message.find("YAML syntax error"), std::string::npos) << r.ErrorText();
  EXPECT_EQ(r.errors[0].line, 2) << r.ErrorText();
}

TEST(ConfigLoaderTest, CheckAndMonitorSpecsKeepTypedValues) {
  TempWorkspace tmp;
  auto r = tmp.Load(std::string(kMinimal) +
                    "checks:\n"
                    "  - table: table://main/member_balances\n"
                    "    time_column: updated_at\n"
                    "    unique: [member_id, [store_id, day]]\n"
                    "    accepted_values: {tier: [bronze, silver, gold], level: [1, 2], flag: ['1']}\n"
                    "    range: {balance: {min: 0, max: 1.5e6}}\n"
                    "    row_count_change: {max_drop_pct: 50}\n"
                    "    custom:\n"
                    "      - {name: neg, sql: \"SELECT count(*) FROM t WHERE b < 0\", must_be: 0}\n"
                    "      - {name: avg, sql: \"SELECT avg(b) FROM t\", between: [10, 20.5]}\n"
                    "    pii: [email]\n"
                    "monitors:\n"
                    "  - name: m\n    warehouse: main\n    series_sql: \"SELECT 1\"\n"
                    "    sensitivity: 3.5\n    expected: {min: 0}\n    training_window: 28d\n");
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  const CheckConfig& c = r.workspace->checks[0];
  EXPECT_EQ(c.warehouse, "main");
  EXPECT_EQ(c.asset_id, "table://main/member_balances");
  EXPECT_EQ(c.line, 6);
  EXPECT_EQ(c.spec["unique"], Json::parse(R"(["member_id", ["store_id", "day"]])"));
  EXPECT_EQ(c.spec["accepted_values"]["level"], Json::parse("[1, 2]"));
  EXPECT_EQ(c.spec["accepted_values"]["flag"], Json::parse(R"(["1"])"));  // quoted stays a string
  EXPECT_EQ(c.spec["range"]["balance"]["max"].get<double>(), 1.5e6);
  EXPECT_EQ(c.spec["custom"][0]["must_be"], 0);
  EXPECT_TRUE(c.spec["custom"][0]["must_be"].is_number_integer());
  EXPECT_EQ(c.spec["custom"][1]["between"], Json::parse("[10, 20.5]"));
  EXPECT_EQ(c.spec["row_count_change"]["max_drop_pct"], 50);
  const MonitorConfig& m = r.workspace->monitors[0];
  EXPECT_EQ(m.spec["sensitivity"].get<double>(), 3.5);
  EXPECT_EQ(m.spec["training_window"], "28d");
  EXPECT_EQ(m.line, 17);
}

TEST(ConfigLoaderTest, EnvSubstitutionWithDefaultsAndEscapes) {
  TempWorkspace tmp;
  auto r = tmp.Load(std::string(kMinimal) +
                    "platforms:\n"
                    "  kestra:\n"
                    "    type: kestra\n"
                    "    url: \"${KESTRA_URL:-http://127.0.0.1:8080}\"\n"
                    "    username: \"${KESTRA_USER}\"\n"
                    "    password: \"${KESTRA_PASSWORD}\"\n"
                    "    timeout: ${KESTRA_TIMEOUT:-5s}\n"
                    "checks:\n"
                    "  - table: main.t\n"
                    "    custom:\n"
                    "      - {name: dollars, sql: \"SELECT count(*) FROM t WHERE price = '$$5'\", must_be: 0}\n",
                    {{"KESTRA_USER", "admin"}, {"KESTRA_PASSWORD", "s3cret-pw"}});
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  const PlatformConfig& k = r.workspace->platforms.at("kestra");
  EXPECT_EQ(k.url, "http://127.0.0.1:8080");
  EXPECT_EQ(k.username, "admin");
  EXPECT_EQ(k.password, "s3cret-pw");
  EXPECT_EQ(k.timeout, std::chrono::seconds(5));
  EXPECT_EQ(r.workspace->checks[0].spec["custom"][0]["sql"], "SELECT count(*) FROM t WHERE price = '$5'");
}

TEST(ConfigLoaderTest, SubstitutedSecretsAreRedactedFromLogs) {
  TempWorkspace tmp;
  auto r = tmp.Load(std::string(kMinimal) +
                    "platforms:\n"
                    "  kestra: {type: kestra, url: \"http://h\", username: u, password: \"${PW}\"}\n"
                    "notify:\n"
                    "  slack: {webhook: \"${SLACK_WEBHOOK}\"}\n",
                    {{"PW", "hunter2-loyalty"}, {"SLACK_WEBHOOK", "https://hooks.slack.test/T0/B0/xyz"}});
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  EXPECT_EQ(RedactSecrets("login with hunter2-loyalty"), "login with ***");
  EXPECT_EQ(RedactSecrets("POST https://hooks.slack.test/T0/B0/xyz"), "POST ***");
  EXPECT_EQ(r.workspace->notify["slack"]["webhook"], "https://hooks.slack.test/T0/B0/xyz");
}

TEST(ConfigLoaderTest, ErrorToStringFormat) {
  ConfigError e{"/w/dataworkers.yaml", 12, 5, "checks[0].freshness.max_age", "bad"};
  EXPECT_EQ(e.ToString(), "/w/dataworkers.yaml:12:5: checks[0].freshness.max_age: bad");
  ConfigError whole_file{"/w/dataworkers.yaml", 0, 0, "", "the workspace file is empty"};
  EXPECT_EQ(whole_file.ToString(), "/w/dataworkers.yaml: the workspace file is empty");
}

TEST(ConfigLoaderTest, ResolveWorkspaceDirPrefersFlagThenEnvThenCwd) {
  const char* old = std::getenv("DW_WORKSPACE");
  std::string saved = old ? old : "";
  setenv("DW_WORKSPACE", "/tmp/from-env", 1);
  EXPECT_EQ(ResolveWorkspaceDir("/tmp/from-flag/"), fs::path("/tmp/from-flag"));
  EXPECT_EQ(ResolveWorkspaceDir(""), fs::path("/tmp/from-env"));
  unsetenv("DW_WORKSPACE");
  EXPECT_EQ(ResolveWorkspaceDir(""), fs::current_path());
  EXPECT_EQ(ResolveWorkspaceDir("rel"), fs::current_path() / "rel");
  if (old) setenv("DW_WORKSPACE", saved.c_str(), 1);
}

TEST(ConfigLoaderTest, EmptySectionsReadAsAbsent) {
  TempWorkspace tmp;
  auto r = tmp.Load(std::string(kMinimal) + "platforms:\nassets:\nchecks:\nnotify:\n");
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  EXPECT_TRUE(r.workspace->platforms.empty());
  EXPECT_TRUE(r.workspace->assets.empty());
}

}  // namespace
}  // namespace dw::config
