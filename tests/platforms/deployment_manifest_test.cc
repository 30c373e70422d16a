// FlinkDeployment manifests: parsing, diffs with their risks, and the collector's events.
#include "platforms/flink/deployment_manifest.h"

#include <gtest/gtest.h>

#include "base/iso_time.h"
#include "observe/changes/change_kinds.h"
#include "observe/changes/collector.h"
#include "store/state_store.h"
#include "tests/platforms/platform_test_support.h"
#include "tests/support/subprocess.h"

namespace dw::platforms::flink {
namespace {

std::string Manifest(const std::string& image, int nonce, bool allow, const std::string& mode = "savepoint") {
  return "apiVersion: flink.apache.org/v1beta1\nkind: FlinkDeployment\nmetadata:\n  name: points-balance\n"
         "  namespace: loyalty\nspec:\n  image: " + image + "\n  flinkVersion: v2_2\n  job:\n"
         "    jarURI: local:///opt/flink/usrlib/points-balance.jar\n    upgradeMode: " + mode + "\n"
         "    allowNonRestoredState: " + (allow ? "true" : "false") + "\n"
         "    initialSavepointPath: s3://loyalty-flink/savepoints/points-balance/savepoint-3f9a6c-8e2d41c0a7b5\n"
         "    savepointRedeployNonce: " + std::to_string(nonce) + "\n    parallelism: 4\n    state: running\n"
         "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: unrelated\n";
}

TEST(DeploymentManifestTest, ReadsTheDeploymentAndIgnoresOtherKinds) {
  dw::testing::TempDir dir;
  dir.Write("points-balance.yaml", Manifest("registry/points-balance:4.2", 1, true));
  dir.Write("notes.txt", "not yaml");
  auto folder = ReadManifestFolder(dir.path());
  ASSERT_TRUE(folder.ok()) << folder.status().ToString();
  EXPECT_TRUE(folder->errors.empty());
  ASSERT_EQ(folder->deployments.size(), 1u);
  const auto& d = folder->deployments[0];
  EXPECT_EQ(d.name, "points-balance");
  EXPECT_EQ(d.upgrade_mode, "savepoint");
  EXPECT_TRUE(d.allow_non_restored_state.value_or(false));
  EXPECT_EQ(d.savepoint_redeploy_nonce, 1);
  auto risk = StandingRisk(d);
  ASSERT_TRUE(risk.has_value());
  EXPECT_NE(risk->reason.find("stateful"), std::string::npos);
  DeploymentSpec stateless = DeploymentSpec::FromJson(d.ToJson());  // round trip keeps the fields
  EXPECT_EQ(stateless.ToJson(), d.ToJson());
  stateless.upgrade_mode = "stateless";
  EXPECT_FALSE(StandingRisk(stateless).has_value());  // no state to lose
}

TEST(DeploymentManifestTest, DiffsCarryRisksRiskiestFirst) {
  DeploymentSpec before, after;
  before.name = after.name = "points-balance";
  before.upgrade_mode = "savepoint";
  before.image = "img:4.1";
  after = before;
  after.image = "img:4.2";
  after.upgrade_mode = "stateless";
  after.savepoint_redeploy_nonce = 2;
  auto changes = DiffDeployments(before, after);
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0].field, "job.upgradeMode");
  EXPECT_DOUBLE_EQ(changes[0].risk, 0.8);
  EXPECT_EQ(changes[1].field, "job.savepointRedeployNonce");
  EXPECT_EQ(changes[2].field, "image");
  EXPECT_TRUE(DiffDeployments(before, before).empty());
}

TEST(DeploymentManifestTest, BrokenYamlIsAnErrorWithFileAndLine) {
  dw::testing::TempDir dir;
  dir.Write("bad.yaml", "kind: FlinkDeployment\nmetadata: {name: x\nspec: [\n");
  dir.Write("mode.yaml", "kind: FlinkDeployment\nmetadata: {name: y}\nspec:\n  job: {upgradeMode: sometimes}\n");
  auto folder = ReadManifestFolder(dir.path());
  ASSERT_TRUE(folder.ok());
  EXPECT_TRUE(folder->deployments.empty());
  ASSERT_EQ(folder->errors.size(), 2u);
  EXPECT_NE(folder->errors[0].find("bad.yaml:"), std::string::npos);
  EXPECT_NE(folder->errors[1].find("'sometimes'"), std::string::npos);
  EXPECT_EQ(ReadManifestFolder(dir.path() / "missing").status().code(), StatusCode::kNotFound);
}

// A Flink platform (the simulator, no jobs) whose manifests folder holds points-balance at image
// 4.1, a SQLite store and a clock at 2026-11-24 13:00: what the collector tests start from.
class ManifestCollectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir.Write("manifests/points-balance.yaml", Manifest("registry/points-balance:4.1", 1, true));
    sim = dw::testing::StartSim(sim::Platform::kFlink, Json{{"jobs", Json::array()}});
    auto p = dw::testing::PlatformAt("flink", "flink", sim->url());
    p.manifests = manifests.string();
    ws.platforms["flink"] = p;
    auto opened = store::OpenStateStore((dir.path() / "state.db").string(), clock);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store = std::move(*opened);
  }

  dw::testing::TempDir dir;
  std::filesystem::path manifests = dir.path() / "manifests";
  decltype(dw::testing::StartSim(sim::Platform::kFlink, Json())) sim;
  config::Workspace ws;
  SimulatedClock clock{FromUnixMillis(*ParseIsoTimeMillis("2026-11-24T13:00:00Z"))};
  std::unique_ptr<store::StateStore> store;
  std::unique_ptr<net::HttpClient> http = net::MakeCurlHttpClient();
};

TEST_F(ManifestCollectorTest, ReportsStandingRiskOnceAndEachSpecChange) {
  auto pass = [&] {
    auto r = observe::changes::CollectChanges(ws, *http, *store, clock);
    EXPECT_TRUE(r.ok());
    return r.ok() ? r->new_events() : -1;
  };
  EXPECT_EQ(pass(), 1);  // the standing risk
  EXPECT_EQ(pass(), 0);
  dir.Write("manifests/points-balance.yaml", Manifest("registry/points-balance:4.2", 1, true));
  clock.Advance(std::chrono::minutes(60));
  EXPECT_EQ(pass(), 1);  // the image change
  auto events = store->ChangeEventsFor("flink://flink/points-balance", FromUnixMillis(0),
                                          FromUnixMillis(*ParseIsoTimeMillis("2030-01-01T00:00:00Z")));
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].kind, observe::changes::kConfigRisk);
  EXPECT_EQ((*events)[1].kind, observe::changes::kDeploy);
  EXPECT_EQ((*events)[1].evidence["changes"][0]["field"], "image");
  EXPECT_EQ((*events)[1].evidence["changes"][0]["after"], "registry/points-balance:4.2");
}

// A manifest is a file of the team's Git folder: untrusted bytes. A value that is not UTF-8 (a
// mis-encoded image tag) once stopped `dw collect` and `dw watch` with an exception out of the
// JSON library, when the spec was written to the collector's cursor; it is now the document's
// error (the file's, with its line), and the pass goes on.
TEST_F(ManifestCollectorTest, AValueThatIsNotUtf8IsRefusedWithItsFileAndTheCollectionGoesOn) {
  auto first = observe::changes::CollectChanges(ws, *http, *store, clock);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  dir.Write("manifests/points-balance.yaml", Manifest("registry/points-balance:4.2-\xff\xfe", 1, true));
  clock.Advance(std::chrono::minutes(60));
  // The document is refused with its file, line and field (not its bytes); the pass goes on.
  auto folder = ReadManifestFolder(manifests);
  ASSERT_TRUE(folder.ok());
  EXPECT_TRUE(folder->deployments.empty());
  ASSERT_EQ(folder->errors.size(), 1u);
  EXPECT_NE(folder->errors[0].find("points-balance.yaml:7: the text is not UTF-8 (byte 0xFF"), std::string::npos)
      << folder->errors[0];
  auto second = observe::changes::CollectChanges(ws, *http, *store, clock);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->new_events(), 0);
  Json report = second->ToJson();
  EXPECT_NE(report.dump().find("is not UTF-8"), std::string::npos) << report.dump();
}

}  // namespace
}  // namespace dw::platforms::flink
