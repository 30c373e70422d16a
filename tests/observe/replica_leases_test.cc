// One `dw watch` replica's leases over the PostgreSQL store ($DW_TEST_PG_URL; skipped when
// unset), with an injected clock: a clock 45 s behind the database's refuses leases and says why
// (once), a clock back within 30 s takes them again, and a run it finishes is recorded once. Two
// live replicas share a batch: each takes its half in one claim and leaves the rest to the other.
// Three live replicas racing for one wake-up's slots with no work each take at most a third (the
// share is counted from the wake-up, not from what is left); a live replica that never asks has
// its third taken by the others after the share grace, each slot once. The lease-history job
// prunes in bounded steps. A job holding the store connection never stops the heartbeat.
#include "observe/watch/replica_leases.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <set>
#include <thread>

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

// A job holding the replica's store connection for longer than the lease time (a statement slow
// on a loaded machine, or waiting for a lock): the heartbeat, on its own connection, extends the
// replica's lease meanwhile, so another replica finds the slot held, not expired. (Sharing the
// jobs' connection, the heartbeat waited behind the job and a live replica lost its lease: the
// three-replica test's "lost" run under load.)
TEST(ReplicaLeasesTest, AJobHoldingTheStoreConnectionDoesNotStopTheHeartbeat) {
  if (store::test_support::PostgresTestUrl().empty()) GTEST_SKIP() << store::test_support::kPgSkipMessage;
  auto scratch = ScratchLocation::Create("postgresql");
  ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
  SystemClock clock;
  auto jobs = store::OpenStateStore((*scratch)->location(), clock);
  auto beats = store::OpenStateStore((*scratch)->location(), clock);
  auto other = store::OpenStateStore((*scratch)->location(), clock);
  ASSERT_TRUE(jobs.ok() && beats.ok() && other.ok());
  ReplicaLeases replica(*store::WatchLeasesOf(**jobs), clock, ThisReplica(clock, 2'000),
                        {.lease_ms = 2'000, .heartbeat_leases = store::WatchLeasesOf(**beats)}, nullptr);
  ASSERT_TRUE(replica.Start().ok());
  ASSERT_EQ(replica.Claim("monitor:m", 60'000).verdict, JobLeases::Verdict::kRun);
  // The jobs' connection busy for 6 s (a transaction on it that holds it), three lease times.
  std::thread busy([&] {
    EXPECT_TRUE((*jobs)->InTransaction([](store::StateStore&) {
                         std::this_thread::sleep_for(std::chrono::seconds(6));
                         return Status::Ok();
                       }).ok());
  });
  std::this_thread::sleep_for(std::chrono::seconds(4));
  auto asked = store::WatchLeasesOf(**other)->ClaimLease("monitor:m", 60'000, "other:1:1", 2'000);
  busy.join();
  ASSERT_TRUE(asked.ok()) << asked.status().ToString();
  EXPECT_EQ(asked->answer, store::LeaseAnswer::kHeld) << "the live replica's lease was let expire";
  replica.Finish("monitor:m", 60'000, Status::Ok());
  auto runs = store::WatchLeasesOf(**other)->RecentRuns(10);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].outcome, "ok") << "its end was recorded: the lease was still its own";
  EXPECT_TRUE(replica.Stop().ok());
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
  // a takes what it left free as soon as it asks again (no share grace): the slot b gives back
  // after a failure is taken by a's next claim.
  ReplicaLeases a(*store::WatchLeasesOf(**store_a), clock, self_a, {.share_grace_ms = 0},
                  [&](const std::string& l) { said.push_back(l); });
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

// N replicas over their own connections to one scratch store, every one alive at its heartbeat.
struct Replicas {
  std::unique_ptr<ScratchLocation> scratch;
  std::vector<std::unique_ptr<store::StateStore>> stores;
  std::vector<std::unique_ptr<ReplicaLeases>> leases;
};

Replicas StartReplicas(int n, const Clock& clock, ReplicaOptions options) {
  Replicas r;
  auto scratch = ScratchLocation::Create("postgresql");
  EXPECT_TRUE(scratch.ok()) << scratch.status().ToString();
  if (!scratch.ok()) return r;
  r.scratch = std::move(scratch).value();
  for (int i = 0; i < n; ++i) {
    auto s = store::OpenStateStore(r.scratch->location(), clock);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok()) return r;
    r.stores.push_back(std::move(s).value());
    store::WatchReplica self = ThisReplica(clock, options.lease_ms);
    self.id += ":" + std::to_string(i);
    r.leases.push_back(std::make_unique<ReplicaLeases>(*store::WatchLeasesOf(*r.stores.back()), clock, self, options,
                                                       nullptr));
  }
  for (int round = 0; round < 2; ++round)
    for (auto& l : r.leases) EXPECT_TRUE(l->Beat().ok());
  for (auto& l : r.leases) EXPECT_EQ(l->live_replicas(), n);
  return r;
}

// As a replica's loop with no work per slot: claims the slots, finishes what it took at once,
// asks again every 5 ms for what is held or left elsewhere, until every slot is accounted for.
int RaceForSlots(ReplicaLeases& leases, const std::vector<JobLeases::SlotRef>& all) {
  int ran = 0;
  std::vector<JobLeases::SlotRef> open = all;
  while (!open.empty()) {
    auto answers = leases.ClaimBatch(open);
    std::vector<JobLeases::SlotRef> still;
    std::vector<JobLeases::SlotEnd> ends;
    for (size_t i = 0; i < open.size(); ++i) {
      if (answers[i].verdict == JobLeases::Verdict::kRun) ends.push_back({open[i].job, open[i].due_ms, Status::Ok()});
      else if (answers[i].verdict != JobLeases::Verdict::kDoneElsewhere) still.push_back(open[i]);
    }
    ran += static_cast<int>(ends.size());
    leases.FinishBatch(ends);
    open = std::move(still);
    if (!open.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return ran;
}

int64_t SlotsRunOnce(const ScratchLocation& scratch) {
  auto conn = scratch.Connect();
  EXPECT_TRUE(conn.ok());
  if (!conn.ok()) return -1;
  auto rows = (*conn)->Query("SELECT count(*) FROM (SELECT job, due_ms FROM watch_runs WHERE outcome = 'ok' "
                             "GROUP BY job, due_ms HAVING count(*) = 1) once");
  EXPECT_TRUE(rows.ok());
  return rows.ok() ? std::get<int64_t>((*rows)[0][0]) : -1;
}

TEST(ReplicaLeasesTest, ThreeLiveReplicasRacingForAWakeUpWithNoWorkEachTakeAtMostAThird) {
  if (store::test_support::PostgresTestUrl().empty()) GTEST_SKIP() << store::test_support::kPgSkipMessage;
  SystemClock clock;
  // A long share grace: a replica slow to start under load still finds its third waiting.
  Replicas r = StartReplicas(3, clock, {.lease_ms = 30'000, .share_grace_ms = 60'000});
  ASSERT_EQ(r.leases.size(), 3u);
  std::vector<JobLeases::SlotRef> slots;
  for (int i = 0; i < 3000; ++i) slots.push_back({"monitor:m" + std::to_string(i), 1'800'000'000'000});
  std::vector<int> ran(3, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) threads.emplace_back([&, i] { ran[i] = RaceForSlots(*r.leases[i], slots); });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ran[0] + ran[1] + ran[2], 3000);
  for (int i = 0; i < 3; ++i) EXPECT_LE(ran[i], 1000) << "replica " << i << " took more than a third";
  EXPECT_EQ(SlotsRunOnce(*r.scratch), 3000);
}

TEST(ReplicaLeasesTest, TheThirdOfALiveReplicaThatNeverAsksIsTakenByTheOthersAfterTheGraceEachSlotOnce) {
  if (store::test_support::PostgresTestUrl().empty()) GTEST_SKIP() << store::test_support::kPgSkipMessage;
  SystemClock clock;
  Replicas r = StartReplicas(3, clock, {.lease_ms = 30'000, .share_grace_ms = 300});
  ASSERT_EQ(r.leases.size(), 3u);
  std::vector<JobLeases::SlotRef> slots;
  for (int i = 0; i < 900; ++i) slots.push_back({"monitor:m" + std::to_string(i), 1'800'000'000'000});
  std::vector<int> ran(2, 0);
  const auto t0 = std::chrono::steady_clock::now();
  std::thread a([&] { ran[0] = RaceForSlots(*r.leases[0], slots); });
  std::thread b([&] { ran[1] = RaceForSlots(*r.leases[1], slots); });
  a.join();
  b.join();
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(ran[0] + ran[1], 900) << "the silent replica's third is not left behind";
  EXPECT_GE(ran[0], 300);
  EXPECT_GE(ran[1], 300);
  EXPECT_GE(took, std::chrono::milliseconds(300)) << "its third waited for the grace";
  EXPECT_EQ(SlotsRunOnce(*r.scratch), 900);
}

TEST(ReplicaLeasesTest, TheLeaseHistoryJobPrunesInBoundedStepsAndSaysWhatItDeleted) {
  if (store::test_support::PostgresTestUrl().empty()) GTEST_SKIP() << store::test_support::kPgSkipMessage;
  SystemClock clock;
  Replicas r = StartReplicas(1, clock, {.keep_history_ms = 600'000, .prune_rows = 7, .prune_budget_ms = 60'000});
  ASSERT_EQ(r.leases.size(), 1u);
  auto conn = r.scratch->Connect();
  ASSERT_TRUE(conn.ok());
  // 100 finished slots of one job in 1970, the newest of them kept.
  ASSERT_TRUE((*conn)->ExecScript("INSERT INTO watch_leases (job, due_ms, holder, run_id, attempts, taken_at, "
                                  "expires_at, finished_at) SELECT 'm', g * 1000, 'x', 0, 1, 0, 1, 1 "
                                  "FROM generate_series(0, 99) g")
                  .ok());
  WatchLoop loop(clock, {.leases = r.leases[0].get()});
  std::vector<std::string> said;
  ASSERT_TRUE(AddLeaseHistoryJob(loop, *r.leases[0], 60'000, [&](const std::string& l) { said.push_back(l); }).ok());
  auto records = loop.RunAllNow();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].job, "prune-lease-history");
  EXPECT_TRUE(records[0].ran);
  EXPECT_TRUE(records[0].status.ok()) << records[0].status.ToString();
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("99 finished lease(s)"), std::string::npos) << said[0];
  auto rows = (*conn)->Query("SELECT count(*) FROM watch_leases WHERE job = 'm'");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(std::get<int64_t>((*rows)[0][0]), 1);
  // Its own slot is leased and recorded like any job's.
  rows = (*conn)->Query("SELECT count(*) FROM watch_runs WHERE job = 'prune-lease-history' AND outcome = 'ok'");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(std::get<int64_t>((*rows)[0][0]), 1);
}

}  // namespace
}  // namespace dw::observe::watch
