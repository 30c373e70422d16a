// One `dw watch` replica's leases over the PostgreSQL store ($DW_TEST_PG_URL; skipped when
// unset), with an injected clock: a clock 45 s behind the database's refuses leases and says why
// (once), a clock back within 30 s takes them again, and a run it finishes is recorded once. Two
// live replicas share a batch: each takes its half in one claim and leaves the rest to the other.
#include "observe/watch/replica_leases.h"

#include <gtest/gtest.h>

#include <map>

#include "tests/store/store_test_support.h"

namespace dw::observe::watch {
namespace {

using store::test_support::ScratchLocation;

TEST(ReplicaLeasesTest, AClockFarFromTheStoresRefusesLeasesUntilItAgrees) {
  if (store::test_support::PostgresTestUrl().empty()) GTEST_SKIP() << store::test_support::kPgSkipMessage;
  auto scratch = ScratchLocation::Create("postgresql");
  ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
  SystemClock real;
  auto opened = store::OpenStateStore((*scratch)->location(), real);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  store::WatchLeases* leases = store::WatchLeasesOf(**opened);
  ASSERT_NE(leases, nullptr);
  auto db_now = leases->DatabaseNowMs();
  ASSERT_TRUE(db_now.ok());

  // The replica's clock runs 45 s behind the database's.
  SimulatedClock clock{FromUnixMillis(*db_now - 45'000)};
  std::vector<std::string> said;
  ReplicaLeases replica(*leases, clock, ThisReplica(clock, 2'000), {.lease_ms = 2'000},
                        [&](const std::string& line) { said.push_back(line); });
  ASSERT_TRUE(replica.Beat().ok());
  EXPECT_NE(replica.refusing().find("behind the state store's"), std::string::npos) << replica.refusing();
  JobLeases::Answer refused = replica.Claim("monitor:m", 60'000);
  EXPECT_EQ(refused.verdict, JobLeases::Verdict::kRefused);
  EXPECT_NE(refused.why.find("its clock is 45"), std::string::npos) << refused.why;
  ASSERT_TRUE(replica.Beat().ok());
  ASSERT_EQ(said.size(), 1u) << "the refusal is said once, not at every heartbeat";
  EXPECT_NE(said[0].find("refuses to take leases"), std::string::npos) << said[0];
  auto replicas = leases->Replicas();
  ASSERT_TRUE(replicas.ok());
  ASSERT_EQ(replicas->size(), 1u);
  EXPECT_LT((*replicas)[0].clock_offset_ms, -44'000);
  EXPECT_FALSE((*replicas)[0].refusing.empty()) << "--status shows why";

  // Set forward to within the allowed 30 s (20 s ahead): it takes leases again, and says so.
  clock.Set(FromUnixMillis(ToUnixMillis(real.Now()) + 20'000));
  ASSERT_TRUE(replica.Beat().ok());
  EXPECT_EQ(replica.refusing(), "");
  ASSERT_EQ(said.size(), 2u);
  EXPECT_NE(said[1].find("takes leases again"), std::string::npos) << said[1];
  JobLeases::Answer run = replica.Claim("monitor:m", 60'000);
  ASSERT_EQ(run.verdict, JobLeases::Verdict::kRun) << run.why;
  replica.Finish("monitor:m", 60'000, Status::Ok());
  EXPECT_EQ(replica.Claim("monitor:m", 60'000).verdict, JobLeases::Verdict::kDoneElsewhere);
  auto runs = leases->RecentRuns(10);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].outcome, "ok");
  EXPECT_EQ((*runs)[0].replica_id, replica.id());
}

TEST(ReplicaLeasesTest, TwoLiveReplicasEachTakeTheirShareOfABatchAndFinishItInOne) {
  if (store::test_support::PostgresTestUrl().empty()) GTEST_SKIP() << store::test_support::kPgSkipMessage;
  auto scratch = ScratchLocation::Create("postgresql");
  ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
  SystemClock clock;
  auto store_a = store::OpenStateStore((*scratch)->location(), clock);
  auto store_b = store::OpenStateStore((*scratch)->location(), clock);
  ASSERT_TRUE(store_a.ok() && store_b.ok());
  store::WatchReplica self_a = ThisReplica(clock, 30'000), self_b = self_a;
  self_a.id += ":a";
  self_b.id += ":b";
  std::vector<std::string> said;
  ReplicaLeases a(*store::WatchLeasesOf(**store_a), clock, self_a, {}, [&](const std::string& l) { said.push_back(l); });
  ReplicaLeases b(*store::WatchLeasesOf(**store_b), clock, self_b, {}, [&](const std::string& l) { said.push_back(l); });
  ASSERT_TRUE(a.Beat().ok());
  EXPECT_EQ(a.live_replicas(), 1) << "alone so far";
  ASSERT_TRUE(b.Beat().ok());
  ASSERT_TRUE(a.Beat().ok());
  EXPECT_EQ(a.live_replicas(), 2);
  EXPECT_EQ(b.live_replicas(), 2);

  std::vector<JobLeases::SlotRef> slots;
  for (int i = 0; i < 10; ++i) slots.push_back({"monitor:m" + std::to_string(i), 60'000});
  auto first = a.ClaimBatch(slots);
  ASSERT_EQ(first.size(), 10u);
  for (int i = 0; i < 10; ++i) {
    if (i < 5) {
      EXPECT_EQ(first[i].verdict, JobLeases::Verdict::kRun) << i << ": " << first[i].why;
    } else {
      EXPECT_EQ(first[i].verdict, JobLeases::Verdict::kHeldElsewhere) << i;
      EXPECT_NE(first[i].why.find("left for the other replicas"), std::string::npos) << first[i].why;
      EXPECT_LE(first[i].retry_in_ms, 50) << "asked again soon, in case nobody takes it";
    }
  }
  auto second = b.ClaimBatch(slots);
  ASSERT_EQ(second.size(), 10u);
  for (int i = 0; i < 10; ++i) {
    if (i < 5) {
      EXPECT_EQ(second[i].verdict, JobLeases::Verdict::kHeldElsewhere) << i;
      EXPECT_EQ(second[i].why, "held by " + a.id());
    } else {
      EXPECT_EQ(second[i].verdict, JobLeases::Verdict::kRun) << i << ": " << second[i].why;
    }
  }
  // Each finishes its half in one report; one of b's failed and is given back to whoever asks.
  std::vector<JobLeases::SlotEnd> ends_a, ends_b;
  for (int i = 0; i < 5; ++i) ends_a.push_back({slots[i].job, slots[i].due_ms, Status::Ok()});
  for (int i = 5; i < 10; ++i)
    ends_b.push_back({slots[i].job, slots[i].due_ms, i == 7 ? Unavailable("warehouse down") : Status::Ok()});
  a.FinishBatch(ends_a);
  b.FinishBatch(ends_b);
  EXPECT_TRUE(said.empty()) << said.front();
  auto after = a.ClaimBatch(slots);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(after[i].verdict, i == 7 ? JobLeases::Verdict::kRun : JobLeases::Verdict::kDoneElsewhere) << i;
  auto runs = store::WatchLeasesOf(**store_a)->RecentRuns(100);
  ASSERT_TRUE(runs.ok());
  std::map<std::string, int> outcomes;
  for (const auto& r : *runs) ++outcomes[(r.replica_id == a.id() ? "a/" : "b/") + r.outcome];
  EXPECT_EQ(outcomes, (std::map<std::string, int>{{"a/ok", 5}, {"a/running", 1}, {"b/ok", 4}, {"b/failed", 1}}));
}

}  // namespace
}  // namespace dw::observe::watch
