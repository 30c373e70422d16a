// The actions stage's jobs in `dw watch`: the approval expiry sweep (a request past its TTL expires
// and escalates on the loop's clock, never granted), and the autonomous verification job, which a
// workspace gets only when one of its domains is at L3 or above; and the drafting of a restarted
// loop for an incident an earlier process opened and never sent proposals for.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sqlite3.h>

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
  auto st = actions::GetProposalState(**store, actions::TrustOf(services->workspace(), ""), "INC-1-hold", 0, clock);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->status, actions::ProposalStatus::kPending);  // the escalated round is open
  ASSERT_TRUE(st->request.has_value());
  EXPECT_EQ(st->request->round, 2);
  EXPECT_EQ(st->request->approvers, std::vector<std::string>{"lead@example.com"});
  bool said = std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    // No notify: nobody is told of the escalation, and the line says so rather than "escalated to".
    return l.find("approvals: proposal INC-1-hold v1: round 1 expired unanswered; escalation to lead@example.com") !=
               std::string::npos &&
           l.find("no notification channel routes it, so nobody is told") != std::string::npos;
  });
  EXPECT_TRUE(said);

  // The escalated round expires too, with nowhere further to go: expired, never approved.
  clock.Advance(std::chrono::minutes(61));
  for (const auto& r : loop.RunAllNow()) EXPECT_TRUE(r.status.ok()) << r.status.ToString();
  st = actions::GetProposalState(**store, actions::TrustOf(services->workspace(), ""), "INC-1-hold", 0, clock);
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

// A loop killed between opening an incident and sending its proposals leaves an open incident in a
// proposing domain with none sent, and no later pass reports it opened again: the restarted loop's
// first pass drafts and sends them. Here the first process is at L1 (it opens the incident and
// drafts nothing, as a kill right after the opening would leave it); the next, at L2, must send
// them. Found by the watch drafting crash writer (tests/crash/crash_decision_writers_test.cc).
TEST(ActionWatchJobsTest, ARestartedLoopSendsTheProposalsAnEarlierProcessNeverSent) {
  dw::testing::TempDir dir;
  SimulatedClock clock(FromUnixMillis(1'800'000'000'000));
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir.path() / "warehouse.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE w0 (member_id INTEGER); INSERT INTO w0 VALUES (1), (NULL);", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto write = [&](const std::string& autonomy) {
    dir.Write("dataworkers.yaml",
              "version: 1\nname: t\nstate: .dw/state.db\n"
              "warehouses:\n  main: {type: sqlite, path: warehouse.db}\n"
              "domains:\n  loyalty: {autonomy: " + autonomy + ", owners: [ana@example.com], approvers: [ana@example.com], approval_ttl: 1h}\n"
              "assets:\n  - {id: table://main/w0, domain: loyalty, owner: ana@example.com}\n"
              "checks:\n  - {table: main.w0, not_null: [member_id]}\n");
  };
  auto run_once = [&](const std::string& autonomy) {
    write(autonomy);
    auto services = Services::Load(dir.path(), clock);
    EXPECT_TRUE(services->workspace_status().ok()) << services->workspace_status().ToString();
    observe::watch::WatchLoop loop(clock, {});
    std::vector<std::string> lines;
    JobNames(services, loop, lines);
    return lines;
  };
  {
    write("L1");
    auto services = Services::Load(dir.path(), clock);
    auto store = services->state();
    ASSERT_TRUE(store.ok());
    store::ChangeEvent e;  // the cause the diagnosis ranks first
    e.dedup_key = "schema:w0";
    e.asset_id = "table://main/w0";
    e.kind = "schema_change";
    e.happened_at = clock.Now() - std::chrono::minutes(30);
    e.observed_at = e.happened_at;
    e.risk = 0.8;
    e.reason = "a column was dropped";
    ASSERT_TRUE((*store)->AddChangeEvent(e).ok());
  }
  std::vector<std::string> first = run_once("L1");
  std::string incident;
  for (const std::string& l : first)
    if (l.find(" incident opened ") != std::string::npos) incident = l.substr(l.find(" incident opened ") + 17, l.find(" (after") - l.find(" incident opened ") - 17);
  ASSERT_FALSE(incident.empty()) << ::testing::PrintToString(first);
  // At the same moment, as a loop restarted at once sees it: the check fails as before, so the
  // pass reports the incident neither opened nor updated.
  std::vector<std::string> next = run_once("L2");
  EXPECT_TRUE(std::none_of(next.begin(), next.end(), [](const std::string& l) { return l.find(" incident opened ") != std::string::npos; }));
  const bool sent = std::any_of(next.begin(), next.end(), [&](const std::string& l) {
    // The workspace has no notify: the request is recorded for its approver, and the line says
    // that nobody was told rather than "sent".
    return l.find(" proposal " + incident + "-") != std::string::npos &&
           l.find(": recorded for ana@example.com") != std::string::npos && l.find("nobody is told") != std::string::npos;
  });
  EXPECT_TRUE(sent) << ::testing::PrintToString(next);
  auto services = Services::Load(dir.path(), clock);
  auto store = services->state();
  ASSERT_TRUE(store.ok());
  auto proposals = (*store)->ProposalsOfIncident(incident);
  ASSERT_TRUE(proposals.ok());
  ASSERT_FALSE(proposals->empty());
  for (const auto& p : *proposals) {
    auto st = actions::GetProposalState(**store, actions::TrustOf(services->workspace(), ""), p.id, 0, clock);
    ASSERT_TRUE(st.ok());
    EXPECT_EQ(st->status, actions::ProposalStatus::kPending) << p.id;
    EXPECT_EQ(p.version, 1) << p.id;
  }
  // A third process drafts nothing more: the proposals were sent.
  std::vector<std::string> third = run_once("L2");
  EXPECT_TRUE(std::none_of(third.begin(), third.end(), [](const std::string& l) { return l.find(" proposal ") != std::string::npos; }))
      << ::testing::PrintToString(third);
}

}  // namespace
}  // namespace dw::workspace
