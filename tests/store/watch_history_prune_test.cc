// Pruning the `dw watch` lease and run history (store/watch_leases.h, PruneWatchHistory) on
// PostgreSQL ($DW_TEST_PG_URL; skipped when unset): a prune never removes a slot still leased or
// owed a run, nor its runs, nor a job's newest slot; a pruned slot asked for again is answered
// kPruned and never run a second time (one slot and batch claims alike); a step deletes at most
// its bound; and two replicas pruning at once, while a third claims and finishes slots, share the
// work without waiting on each other, and every slot still runs exactly once.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "base/clock.h"
#include "store/watch_leases.h"
#include "tests/store/store_test_support.h"

namespace dw::store {
namespace {
namespace watch_history_prune_test {

using namespace std::chrono_literals;
using test_support::ScratchLocation;

int64_t Count(SqlConnection& c, const std::string& sql) {
  auto rows = c.Query(sql);
  EXPECT_TRUE(rows.ok()) << sql << ": " << rows.status().ToString();
  if (!rows.ok() || rows->empty()) return -1;
  return std::get<int64_t>((*rows)[0][0]);
}

class WatchHistoryPruneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (test_support::PostgresTestUrl().empty()) GTEST_SKIP() << test_support::kPgSkipMessage;
    auto scratch = ScratchLocation::Create("postgresql");
    ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
    scratch_ = std::move(scratch).value();
    store_ = Open();
    ASSERT_NE(store_, nullptr);
    leases_ = WatchLeasesOf(*store_);
    ASSERT_NE(leases_, nullptr);
  }
  std::unique_ptr<StateStore> Open() {
    auto s = OpenStateStore(scratch_->location(), clock_);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(s).value() : nullptr;
  }
  // Claims (job, due) for `replica` and, when `finish`, ends it well.
  void Run(const std::string& job, int64_t due, const std::string& replica, bool finish, int64_t lease_ms = 60'000) {
    auto c = leases_->ClaimLease(job, due, replica, lease_ms);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    ASSERT_EQ(c->answer, LeaseAnswer::kTaken) << job << "@" << due;
    if (finish) {
      ASSERT_TRUE(leases_->FinishLease(job, due, replica, c->run_id, true, "").ok());
    }
  }

  SystemClock clock_;
  std::unique_ptr<ScratchLocation> scratch_;
  std::unique_ptr<StateStore> store_;
  WatchLeases* leases_ = nullptr;
};

TEST_F(WatchHistoryPruneTest, APruneKeepsSlotsStillLeasedOrOwedARunAndEachJobsNewestAndNeverRunsAPrunedOneAgain) {
  // Slot due times in 1970: all older than any history kept.
  Run("a", 0, "r1", true);
  Run("a", 1000, "r1", true);
  Run("a", 2000, "r1", false);         // running now, its lease held for a minute
  Run("b", 0, "r1", true);             // b's newest slot
  Run("c", 0, "r1", false, 1);         // its holder died: expired, owed a run
  Run("c", 1000, "r1", true);
  std::this_thread::sleep_for(20ms);
  auto pruned = leases_->PruneWatchHistory(5, 100);
  ASSERT_TRUE(pruned.ok()) << pruned.status().ToString();
  EXPECT_EQ(pruned->leases, 2) << "a@0 and a@1000 only";
  EXPECT_EQ(pruned->runs, 2) << "the runs of a@0 and a@1000 only";
  auto conn = scratch_->Connect();
  ASSERT_TRUE(conn.ok());
  EXPECT_EQ(Count(**conn, "SELECT count(*) FROM watch_leases"), 4);
  EXPECT_EQ(Count(**conn, "SELECT count(*) FROM watch_runs WHERE job = 'a' AND due_ms = 2000 AND outcome = 'running'"), 1);
  EXPECT_EQ(Count(**conn, "SELECT count(*) FROM watch_runs WHERE job = 'c' AND due_ms = 0"), 1);
  EXPECT_EQ(Count(**conn, "SELECT count(*) FROM watch_runs WHERE job = 'b'"), 1);

  // A replica that stalled through the prune asks for the pruned slots again: never taken.
  auto one = leases_->ClaimLease("a", 1000, "r2", 60'000);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->answer, LeaseAnswer::kPruned);
  auto batch = leases_->ClaimLeases({{"a", 0}, {"a", 2000}, {"b", 0}, {"c", 0}, {"c", 1000}, {"a", 3000}}, "r2",
                                    60'000, 10);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ((*batch)[0].answer, LeaseAnswer::kPruned);
  EXPECT_EQ((*batch)[1].answer, LeaseAnswer::kHeld) << "still running on r1";
  EXPECT_EQ((*batch)[2].answer, LeaseAnswer::kDone) << "a job's newest slot is kept";
  EXPECT_EQ((*batch)[3].answer, LeaseAnswer::kTaken) << "the dead holder's slot is taken over";
  EXPECT_EQ((*batch)[4].answer, LeaseAnswer::kDone);
  EXPECT_EQ((*batch)[5].answer, LeaseAnswer::kTaken) << "a new slot of a job is taken as ever";
  EXPECT_EQ(Count(**conn, "SELECT count(*) FROM watch_runs WHERE job = 'a' AND due_ms IN (0, 1000)"), 0)
      << "no pruned slot ran again";
  // A slot older than the horizon that nobody ever claimed, of a job with no later slot, is new.
  auto fresh = leases_->ClaimLease("d", 0, "r2", 60'000);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(fresh->answer, LeaseAnswer::kTaken);
}

TEST_F(WatchHistoryPruneTest, AStepDeletesAtMostItsBound) {
  for (int i = 0; i < 5; ++i) Run("m", i * 1000, "r1", true);
  std::this_thread::sleep_for(20ms);
  auto first = leases_->PruneWatchHistory(5, 2);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->leases, 2);
  EXPECT_EQ(first->runs, 2);
  auto second = leases_->PruneWatchHistory(5, 10);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->leases, 2) << "the newest of five is kept";
  EXPECT_EQ(second->runs, 2);
  auto third = leases_->PruneWatchHistory(5, 10);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->total(), 0) << "nothing older is left but the newest slot and its run";
}

TEST_F(WatchHistoryPruneTest, TwoReplicasPruningAtOnceShareTheWorkWhileAThirdRunsEachSlotOnce) {
  auto conn = scratch_->Connect();
  ASSERT_TRUE(conn.ok());
  // 40,000 finished old slots of 100 jobs (and their runs), and one slot owed a run per job.
  ASSERT_TRUE((*conn)->ExecScript(
                     "INSERT INTO watch_leases (job, due_ms, holder, run_id, attempts, taken_at, expires_at, finished_at) "
                     "SELECT 'old:' || (g % 100), (g / 100) * 1000, 'gone', 0, 1, 0, 1, 1 FROM generate_series(0, 39999) g;"
                     "INSERT INTO watch_runs (job, due_ms, replica_id, started_at, finished_at, outcome, message) "
                     "SELECT job, due_ms, holder, due_ms, due_ms + 1, 'ok', '' FROM watch_leases;"
                     "INSERT INTO watch_leases (job, due_ms, holder, run_id, attempts, taken_at, expires_at) "
                     "SELECT 'old:' || g, 50000000, 'gone', 0, 1, 0, 1 FROM generate_series(0, 99) g;")
                  .ok());
  auto p1 = Open(), p2 = Open(), worker = Open();
  ASSERT_TRUE(p1 && p2 && worker);
  std::atomic<int64_t> deleted_leases{0}, errors{0};
  auto prune = [&](StateStore* s) {
    for (;;) {
      auto step = WatchLeasesOf(*s)->PruneWatchHistory(60'000, 500);
      if (!step.ok()) {
        ++errors;
        return;
      }
      deleted_leases += step->leases;
      if (step->leases == 0) return;
    }
  };
  // The third replica claims and finishes 2,000 current slots of the same jobs meanwhile.
  std::atomic<int> taken{0};
  auto work = [&] {
    WatchLeases* l = WatchLeasesOf(*worker);
    auto now = l->DatabaseNowMs();
    if (!now.ok()) {
      ++errors;
      return;
    }
    for (int round = 0; round < 20; ++round) {
      std::vector<LeaseSlot> slots;
      for (int j = 0; j < 100; ++j) slots.push_back({"old:" + std::to_string(j), *now + round * 1000});
      auto c = l->ClaimLeases(slots, "worker", 60'000, 100);
      if (!c.ok()) {
        ++errors;
        return;
      }
      std::vector<LeaseFinish> ends;
      for (size_t k = 0; k < slots.size(); ++k)
        if ((*c)[k].answer == LeaseAnswer::kTaken) ends.push_back({slots[k].job, slots[k].due_ms, (*c)[k].run_id, true, ""});
      taken += static_cast<int>(ends.size());
      if (!l->FinishLeases(ends, "worker").ok()) ++errors;
    }
  };
  std::thread a(prune, p1.get()), b(prune, p2.get()), w(work);
  a.join();
  b.join();
  w.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(deleted_leases.load(), 40'000) << "every finished old slot, each deleted once";
  EXPECT_EQ(taken.load(), 2000);
  EXPECT_EQ(Count(**conn, "SELECT count(*) FROM watch_leases WHERE finished_at IS NULL AND holder = 'gone'"), 100)
      << "the slots owed a run are kept";
  EXPECT_EQ(Count(**conn, "SELECT count(*) FROM watch_runs WHERE replica_id = 'gone'"), 0);
  EXPECT_EQ(Count(**conn, "SELECT count(*) FROM (SELECT job, due_ms FROM watch_runs WHERE replica_id = 'worker' "
                          "AND outcome = 'ok' GROUP BY job, due_ms HAVING count(*) = 1) once"),
            2000);
  EXPECT_EQ(Count(**conn, "SELECT count(*) FROM watch_runs WHERE replica_id = 'worker'"), 2000);
}

}  // namespace watch_history_prune_test
}  // namespace
}  // namespace dw::store
