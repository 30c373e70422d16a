// `dw incidents propose` end to end on the Flink seed: `dw replay` plays the story against the
// real loop and simulators and keeps its scratch workspace; the incident it opened is then
// proposed for through the binary, and the FlinkDeployment diff applies to the manifest file of
// that workspace.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "actions/actions.h"
#include "base/json.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw::app {
namespace {
namespace propose_cli_test {

using dw::testing::RunCommand;

std::string ReadAll(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ProposeCli, TheFlinkSeedIncidentGetsItsProposalsAndTheDiffAppliesToTheManifest) {
  dw::testing::TempDir tmp;
  const std::string scratch = (tmp.path() / "run").string();
  auto replay = RunCommand(std::string(DW_BINARY) + " replay '" + DW_SOURCE_DIR +
                           "/examples/scenarios/flink-restore-zeroed-balances' --keep-scratch '" + scratch + "'");
  ASSERT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  const std::string ws = scratch + "/workspace";
  const std::string dw = std::string(DW_BINARY) + " --workspace '" + ws + "' --now 2026-11-24T16:00:00Z";
  auto list = RunCommand(dw + " incidents list --format json");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  Json incidents = Json::parse(list.out)["incidents"];
  ASSERT_EQ(incidents.size(), 1u) << list.out;
  const std::string id = incidents[0]["id"].get<std::string>();

  auto text = RunCommand(dw + " incidents propose " + id);
  ASSERT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("pause the sync tier-changes-to-braze in hightouch"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("+    allowNonRestoredState: false"), std::string::npos) << text.out;

  auto json = RunCommand(dw + " incidents propose " + id + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  Json out = Json::parse(json.out);
  EXPECT_EQ(out["cause"]["asset"], "flink://flink/points-balance");
  std::vector<std::string> kinds;
  for (const Json& p : out["proposals"]) {
    ASSERT_TRUE(p["drafted"].get<bool>()) << p.dump(2);
    kinds.push_back(p["kind"].get<std::string>());
    EXPECT_FALSE(p["new_version"].get<bool>()) << "the second run drafts the same: " << p.dump(2);
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"hold", "flink_deployment_diff", "run_plan", "verification_plan"}));
  const Json& diff = out["proposals"][1]["content"];
  auto applied = actions::ApplyUnifiedDiff(diff["diff"].get<std::string>(), ReadAll(diff["file"].get<std::string>()));
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_NE(applied->find("initialSavepointPath: \"s3://loyalty-flink/savepoints/points-balance/savepoint-3f9a6c-8e2d41c0a7b5\""),
            std::string::npos);

  auto unknown = RunCommand(dw + " incidents propose inc-nope");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("inc-nope"), std::string::npos) << unknown.err;
}

}  // namespace propose_cli_test
}  // namespace
}  // namespace dw::app
