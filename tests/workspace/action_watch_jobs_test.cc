// The actions stage's jobs in `dw watch`: the approval expiry sweep (a request past its TTL expires
// and escalates on the loop's clock, never granted), and the autonomous verification job, which a
// workspace gets only when one of its domains is at L3 or above.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "actions/actions.h"
#include "observe/watch/watch_loop.h"
#include "tests/support/subprocess.h"
#include "workspace/services.h"
#include "workspace/watch_jobs.h"

namespace dw::workspace {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<Services> Load(dw::testing::TempDir& dir, const std::string& autonomy, const Clock& clock) {
  dir.Write("dataworkers.yaml",
            "version: 1\nname: t\nstate: .dw/state.db\n"
            "domains:\n  loyalty: {autonomy: " + autonomy +
                ", owners: [ana@example.com], approvers: [ana@example.com],"
                " escalate_to: [lead@example.com], approval_ttl: 1h}\n");
  auto services = Services::Load(dir.path(), clock);
  EXPECT_TRUE(services->workspace_status().ok()) << services->workspace_status().ToString();
  return services;
}

std::vector<std::string> JobNames(const std::shared_ptr<Services>& services, observe::watch::WatchLoop& loop,
                                  std::vector<std::string>& lines) {
  auto env = WatchEnvironmentFor(services, [&lines](const std::string& l) { lines.push_back(l); });
  EXPECT_TRUE(observe::watch::AddWatchJobs(loop, WatchJobKinds(services), env).ok());
  std::vector<std::string> names;
  for (const auto& r : loop.RunAllNow()) {
    EXPECT_TRUE(r.status.ok()) << r.job << ": " << r.status.ToString();
    names.push_back(r.job);
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(ActionWatchJobsTest, AnUnansweredRequestExpiresAndEscalatesOnTheLoopsClockNeverGranted) {
  dw::testing::TempDir dir;
  SimulatedClock clock(FromUnixMillis(1'800'000'000'000));
  auto services = Load(dir, "L2", clock);
  auto store = services->state();
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(actions::StoreProposal(**store, {"INC-1-hold", "INC-1", "loyalty", "hold", "agent:dw-incidents",
                                               {{"step", "pause the sync"}}},
                                     clock)
                  .ok());
  ASSERT_TRUE(actions::SendForApproval(**store, services->workspace(), "INC-1-hold", clock, "agent:dw-incidents").ok());

  observe::watch::WatchLoop loop(clock, {});
  std::vector<std::string> lines;
  clock.Advance(std::chrono::minutes(61));
  std::vector<std::string> names = JobNames(services, loop, lines);
  EXPECT_NE(std::find(names.begin(), names.end(), "approvals"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "verify"), names.end()) << "an L2 workspace verifies nothing by itself";
  auto st = actions::GetProposalState(**store, "INC-1-hold", 0, clock);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->status, actions::ProposalStatus::kPending);  // the escalated round is open
  ASSERT_TRUE(st->request.has_value());
  EXPECT_EQ(st->request->round, 2);
  EXPECT_EQ(st->request->approvers, std::vector<std::string>{"lead@example.com"});
  bool said = std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("approvals: proposal INC-1-hold v1: round 1 expired unanswered; escalated to lead@example.com") !=
           std::string::npos;
  });
  EXPECT_TRUE(said);

  // The escalated round expires too, with nowhere further to go: expired, never approved.
  clock.Advance(std::chrono::minutes(61));
  for (const auto& r : loop.RunAllNow()) EXPECT_TRUE(r.status.ok()) << r.status.ToString();
  st = actions::GetProposalState(**store, "INC-1-hold", 0, clock);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->status, actions::ProposalStatus::kExpired);
  EXPECT_TRUE(st->decided_by.empty());
}

TEST(ActionWatchJobsTest, AnL3DomainGetsTheAutonomousVerificationJob) {
  dw::testing::TempDir dir;
  SimulatedClock clock(FromUnixMillis(1'800'000'000'000));
  auto services = Load(dir, "L3", clock);
  observe::watch::WatchLoop loop(clock, {});
  std::vector<std::string> lines;
  std::vector<std::string> names = JobNames(services, loop, lines);
  EXPECT_NE(std::find(names.begin(), names.end(), "verify"), names.end());
}

}  // namespace
}  // namespace dw::workspace
