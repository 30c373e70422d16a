// The FlinkDeployment diff proposal against a manifest folder on disk.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "actions/actions.h"
#include "tests/store/store_test_support.h"
#include "tests/support/subprocess.h"

namespace dw::actions {
namespace {

using ::testing::HasSubstr;

constexpr const char* kManifest = R"(apiVersion: flink.apache.org/v1beta1
kind: FlinkDeployment
metadata:
  name: points-balance
spec:
  image: registry/points-balance:1.8.0
  job:
    jarURI: local:///opt/flink/usrlib/points-balance.jar
    upgradeMode: savepoint
    allowNonRestoredState: true
    savepointRedeployNonce: 3
)";

class FlinkDeploymentDiffTest : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = tmp_.Write("deploy/points-balance.yaml", kManifest);
    ws_.dir = tmp_.path();
    config::PlatformConfig p;
    p.name = "flink";
    p.type = "flink";
    p.manifests = (tmp_.path() / "deploy").string();
    ws_.platforms["flink"] = p;
  }
  dw::testing::TempDir tmp_;
  std::filesystem::path file_;
  config::Workspace ws_;
  FlinkRedeployInput input_{"flink", "points-balance", "s3://sp/points-balance/savepoint-6",
                            "registry/points-balance:1.8.0"};
};

TEST_F(FlinkDeploymentDiffTest, DraftsARealDiffThatAppliesWithANewNonce) {
  Result<Json> c = DraftFlinkDeploymentDiff(ws_, input_);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ((*c)["savepoint_redeploy_nonce"], 4);
  const std::string diff = (*c)["diff"];
  EXPECT_THAT(diff, HasSubstr("--- a/deploy/points-balance.yaml"));
  EXPECT_THAT(diff, HasSubstr("+    savepointRedeployNonce: 4"));
  EXPECT_THAT(diff, HasSubstr("+    allowNonRestoredState: false"));
  EXPECT_THAT((*c)["hold_bad_release"].get<std::string>(), HasSubstr("1.8.0"));
  EXPECT_TRUE(CheckDiffStillApplies(*c).ok());
  // The undo diff takes the patched file back to the base.
  Result<std::string> patched = ApplyUnifiedDiff(diff, kManifest);
  ASSERT_TRUE(patched.ok());
  EXPECT_EQ(*ApplyUnifiedDiff((*c)["undo_diff"], *patched), kManifest);
}

TEST_F(FlinkDeploymentDiffTest, AManifestThatChangedSinceIsAConflict) {
  Result<Json> c = DraftFlinkDeploymentDiff(ws_, input_);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  std::string changed = kManifest;
  changed.replace(changed.find("upgradeMode: savepoint"), 22, "upgradeMode: last-state");
  std::ofstream(file_) << changed;
  Status s = CheckDiffStillApplies(*c);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("conflict"));
}

TEST_F(FlinkDeploymentDiffTest, AConflictingDiffIsNeverSentForApproval) {
  Result<Json> c = DraftFlinkDeploymentDiff(ws_, input_);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto scratch = store::test_support::ScratchLocation::Create("sqlite");
  ASSERT_TRUE(scratch.ok());
  SimulatedClock clock(FromUnixMillis(1'800'000'000'000));
  auto st = store::OpenStateStore((*scratch)->location(), clock);
  ASSERT_TRUE(st.ok());
  config::DomainConfig d{"loyalty", "L2", {"ana@example.com"}, {"ana@example.com"}, {}, "2h"};
  ws_.domains["loyalty"] = d;
  ProposalDraft draft{"P-flink", "INC-1", "loyalty", "flink_deployment_diff", "agent:dw-incidents", *c};
  ASSERT_TRUE(StoreProposal(**st, draft, clock).ok());
  std::ofstream(file_) << "kind: FlinkDeployment\n";  // someone rewrote the manifest meanwhile
  Result<ApprovalRequestView> sent = SendForApproval(**st, ws_, "P-flink", clock, "agent:dw-incidents");
  ASSERT_FALSE(sent.ok());
  EXPECT_THAT(sent.status().message(), HasSubstr("conflict"));
}

TEST_F(FlinkDeploymentDiffTest, SaysWhatIsMissing) {
  FlinkRedeployInput no_sp = input_;
  no_sp.last_good_savepoint = "";
  EXPECT_THAT(DraftFlinkDeploymentDiff(ws_, no_sp).status().message(),
              HasSubstr("no savepoint taken before the bad release"));
  FlinkRedeployInput other = input_;
  other.deployment = "other";
  EXPECT_THAT(DraftFlinkDeploymentDiff(ws_, other).status().message(),
              HasSubstr("holds FlinkDeployment other"));
  ws_.platforms["flink"].manifests = "";
  EXPECT_THAT(DraftFlinkDeploymentDiff(ws_, input_).status().message(),
              HasSubstr("platforms.flink.manifests"));
}

}  // namespace
}  // namespace dw::actions
