// Whether the cause an approved Kestra flow fix addresses is gone: asked of Kestra (a fake reader
// here; the replay `kestra-fix-saved-after-verify` asks dw-sim over HTTP).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "actions/cause_check.h"
#include "tests/actions/actions_test_support.h"

namespace dw::actions {
namespace {

using ::testing::HasSubstr;

constexpr char kBad[] = "id: tariff_sync\nnamespace: pricing\ntasks:\n  - uri: https://pricing.internal/v1/tariffs/current\n";
constexpr char kFixed[] = "id: tariff_sync\nnamespace: pricing\ntasks:\n  - uri: https://pricing.internal/v2/tariffs/current\n";

class CauseCheckTest : public test_support::ActionsFixture {
 protected:
  // INC-1's flow fix against revision 8 (source kBad), approved by bo when `approve`.
  void Fix(bool approve = true) {
    ProposalDraft d{"INC-1-kestra_flow_diff", "INC-1", "loyalty", "kestra_flow_diff", "agent:dw-incidents",
                    {{"flow", "kestra://kestra/pricing.tariff_sync"}, {"base_sha256", Sha256Hex(kBad)},
                     {"base_revision", 8}, {"diff", "..."}}};
    ASSERT_TRUE(StoreProposal(*store_, d, clock_).ok());
    ASSERT_TRUE(SendForApproval(*store_, ws_, d.id, clock_, d.author).ok());
    if (approve) {
      ASSERT_TRUE(DecideAs("bo@example.com", d.id, 1, Verdict::kApprove).accepted);
    }
  }
  static FlowRevisionReader Runs(int64_t revision, std::string source) {
    return [revision, source](const std::string& platform, const std::string& ns,
                              const std::string& id) -> Result<FlowRevision> {
      if (platform != "kestra" || ns != "pricing" || id != "tariff_sync") return NotFound("asked for the wrong flow");
      return FlowRevision{revision, source};
    };
  }
  CauseCheck Check(const FlowRevisionReader& reader) {
    auto c = CheckCauseGone(*store_, Trust(), "INC-1", reader, clock_);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? *c : CauseCheck{};
  }
};

TEST_F(CauseCheckTest, TheBadRevisionStillRunningIsLive) {
  Fix();
  CauseCheck c = Check(Runs(8, kBad));
  EXPECT_TRUE(c.checked);
  EXPECT_TRUE(c.live);
  EXPECT_THAT(c.sentence, HasSubstr("still runs revision 8"));
}

TEST_F(CauseCheckTest, ARevertToTheBadSourceIsLiveWhateverItsNumber) {
  Fix();
  CauseCheck c = Check(Runs(10, kBad));
  EXPECT_TRUE(c.live);
  EXPECT_THAT(c.sentence, HasSubstr("revision 10"));
}

TEST_F(CauseCheckTest, TheFixOrALaterRevisionIsGone) {
  Fix();
  CauseCheck fixed = Check(Runs(9, kFixed));
  EXPECT_TRUE(fixed.checked);
  EXPECT_FALSE(fixed.live);
  EXPECT_THAT(fixed.note, HasSubstr("runs revision 9"));
  EXPECT_FALSE(Check(Runs(12, std::string(kFixed) + "# a later edit\n")).live);
}

TEST_F(CauseCheckTest, AKestraThatCannotBeAskedIsNotTakenForAFix) {
  Fix();
  CauseCheck c = Check([](const std::string&, const std::string&, const std::string&) -> Result<FlowRevision> {
    return Unavailable("connection refused");
  });
  EXPECT_TRUE(c.live);
  EXPECT_THAT(c.sentence, HasSubstr("connection refused"));
  EXPECT_TRUE(Check(nullptr).live);
}

TEST_F(CauseCheckTest, WithoutAnApprovedFixThereIsNothingToLookFor) {
  Fix(/*approve=*/false);
  CauseCheck c = Check(Runs(8, kBad));
  EXPECT_FALSE(c.checked);
  EXPECT_FALSE(c.live);
}

}  // namespace
}  // namespace dw::actions
