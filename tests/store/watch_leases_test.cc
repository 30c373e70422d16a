// The store's leases for several `dw watch` replicas (store/watch_leases.h), on PostgreSQL
// ($DW_TEST_PG_URL; skipped when unset): one holder per slot, a finished slot is done for every
// replica, an expired lease is taken over (judged on the database's clock), a holder that lost
// its lease cannot finish the slot, a heartbeat keeps a running job's lease, and the cross-replica
// mutex is exclusive between sessions. SQLite offers no leases.
#include "store/watch_leases.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

#include "tests/store/store_test_support.h"

namespace dw::store {
namespace {

using namespace std::chrono_literals;
using test_support::StoreOnEachBackend;

class WatchLeasesTest : public StoreOnEachBackend {};

TEST_P(WatchLeasesTest, OneHolderPerSlotAndAnExpiredLeaseIsTakenOver) {
  WatchLeases* leases = WatchLeasesOf(*store_);
  if (GetParam() == "sqlite") {
    EXPECT_EQ(leases, nullptr) << "SQLite keeps a single dw watch: no leases";
    return;
  }
  ASSERT_NE(leases, nullptr);
  auto a = leases->ClaimLease("monitor:m", 60'000, "ra", 300);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->answer, LeaseAnswer::kTaken);
  auto b = leases->ClaimLease("monitor:m", 60'000, "rb", 300);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->answer, LeaseAnswer::kHeld);
  EXPECT_EQ(b->holder, "ra");
  EXPECT_GT(b->expires_ms, b->db_now_ms);
  // Another slot of the same job is a lease of its own.
  auto other = leases->ClaimLease("monitor:m", 120'000, "rb", 300);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->answer, LeaseAnswer::kTaken);

  // ra goes silent: after the lease time (on the database's clock) rb takes the slot over.
  std::this_thread::sleep_for(400ms);
  auto taken = leases->ClaimLease("monitor:m", 60'000, "rb", 300);
  ASSERT_TRUE(taken.ok());
  EXPECT_EQ(taken->answer, LeaseAnswer::kTaken);
  // ra wakes up: its finish does not count (the run is marked lost), rb's does.
  auto late = leases->FinishLease("monitor:m", 60'000, "ra", a->run_id, true, "");
  ASSERT_TRUE(late.ok());
  EXPECT_FALSE(*late);
  auto done = leases->FinishLease("monitor:m", 60'000, "rb", taken->run_id, true, "");
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(*done);
  auto after = leases->ClaimLease("monitor:m", 60'000, "rc", 300);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->answer, LeaseAnswer::kDone);

  auto runs = leases->RecentRuns(10);
  ASSERT_TRUE(runs.ok());
  std::map<std::string, std::string> outcome;
  for (const auto& r : *runs)
    if (r.due_ms == 60'000) outcome[r.replica_id] = r.outcome;
  EXPECT_EQ(outcome, (std::map<std::string, std::string>{{"ra", "lost"}, {"rb", "ok"}}));
}

TEST_P(WatchLeasesTest, AFailedRunGivesTheSlotBackAndAHeartbeatKeepsARunningOne) {
  WatchLeases* leases = WatchLeasesOf(*store_);
  if (leases == nullptr) return;  // SQLite
  WatchReplica ra{.id = "ra", .host = "h", .pid = 1, .started_ms = 1, .lease_ms = 300};
  ASSERT_TRUE(leases->Heartbeat(ra).ok());
  auto a = leases->ClaimLease("check:t", 0, "ra", 300);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->answer, LeaseAnswer::kTaken);
  // Heartbeats every 100 ms keep it past its lease time.
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(100ms);
    ASSERT_TRUE(leases->Heartbeat(ra).ok());
  }
  auto still = leases->ClaimLease("check:t", 0, "rb", 300);
  ASSERT_TRUE(still.ok());
  EXPECT_EQ(still->answer, LeaseAnswer::kHeld);
  // A failure hands the slot straight back to whoever asks next.
  auto failed = leases->FinishLease("check:t", 0, "ra", a->run_id, false,
                                    "warehouse down: postgresql://bob:UrlPass99@db.internal/analytics");
  ASSERT_TRUE(failed.ok());
  EXPECT_TRUE(*failed);
  auto retry = leases->ClaimLease("check:t", 0, "rb", 300);
  ASSERT_TRUE(retry.ok());
  EXPECT_EQ(retry->answer, LeaseAnswer::kTaken);

  // A run's failure is prose: stored redacted, as every error in the store.
  auto runs = leases->RecentRuns(5);
  ASSERT_TRUE(runs.ok());
  bool saw_failure = false;
  for (const auto& r : *runs)
    if (r.outcome == "failed") {
      saw_failure = true;
      EXPECT_EQ(r.message.find("UrlPass99"), std::string::npos) << r.message;
      EXPECT_NE(r.message.find("warehouse down"), std::string::npos) << r.message;
    }
  EXPECT_TRUE(saw_failure);

  auto replicas = leases->Replicas();
  ASSERT_TRUE(replicas.ok());
  ASSERT_EQ(replicas->size(), 1u);
  EXPECT_EQ((*replicas)[0].host, "h");
  ASSERT_TRUE(leases->StopReplica("rb").ok());
  auto open = leases->OpenLeases();
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 1u);
  auto now = leases->DatabaseNowMs();
  ASSERT_TRUE(now.ok());
  EXPECT_LE((*open)[0].expires_ms, *now) << "a stopped replica's leases are released";
}

TEST_P(WatchLeasesTest, TheCrossReplicaMutexIsExclusiveBetweenSessions) {
  WatchLeases* leases = WatchLeasesOf(*store_);
  if (leases == nullptr) return;  // SQLite
  auto second = OpenStateStore(scratch_->location(), clock_);
  ASSERT_TRUE(second.ok());
  WatchLeases* other = WatchLeasesOf(**second);
  ASSERT_NE(other, nullptr);
  auto held = leases->TryHoldMutex("pass");
  ASSERT_TRUE(held.ok());
  EXPECT_TRUE(*held);
  auto refused = other->TryHoldMutex("pass");
  ASSERT_TRUE(refused.ok());
  EXPECT_FALSE(*refused);
  ASSERT_TRUE(leases->ReleaseMutex("pass").ok());
  auto now_other = other->TryHoldMutex("pass");
  ASSERT_TRUE(now_other.ok());
  EXPECT_TRUE(*now_other);
  // A session that ends lets go (a replica that dies holding it).
  // (The server notices the closed connection a moment later.)
  second->reset();
  bool after = false;
  for (int i = 0; i < 100 && !after; ++i, std::this_thread::sleep_for(20ms)) {
    auto held_now = leases->TryHoldMutex("pass");
    ASSERT_TRUE(held_now.ok());
    after = *held_now;
  }
  EXPECT_TRUE(after);
}

TEST_P(WatchLeasesTest, OldHistoryIsPrunedButAnUnfinishedSlotIsKept) {
  WatchLeases* leases = WatchLeasesOf(*store_);
  if (leases == nullptr) return;  // SQLite
  ASSERT_TRUE(leases->Heartbeat({.id = "ra", .host = "h", .pid = 1, .started_ms = 1, .lease_ms = 100}).ok());
  auto done = leases->ClaimLease("m", 0, "ra", 100);
  ASSERT_TRUE(done.ok());
  ASSERT_TRUE(leases->FinishLease("m", 0, "ra", done->run_id, true, "").ok());
  auto owed = leases->ClaimLease("m", 1000, "ra", 100);
  ASSERT_TRUE(owed.ok());
  ASSERT_EQ(owed->answer, LeaseAnswer::kTaken);
  // Everything is "old" after 300 ms when keeping 200 ms; history, its runs and the replica go.
  // Slot due times here are tiny (1970), so both leases are due long before; only the finished goes.
  std::this_thread::sleep_for(300ms);
  auto pruned = leases->PruneWatchHistory(200, 100);
  ASSERT_TRUE(pruned.ok()) << pruned.status().ToString();
  // The finished lease (a later slot of its job exists) and its run; the replica, silent since.
  // The unfinished slot keeps its lease and its run.
  EXPECT_EQ(pruned->leases, 1);
  EXPECT_EQ(pruned->runs, 1);
  EXPECT_EQ(pruned->replicas, 1);
  auto open = leases->OpenLeases();
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 1u);
  EXPECT_EQ((*open)[0].due_ms, 1000) << "the slot still owed a run is kept";
  auto replicas = leases->Replicas();
  ASSERT_TRUE(replicas.ok());
  EXPECT_TRUE(replicas->empty());
  auto runs = leases->RecentRuns(10);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].due_ms, 1000);
  // The pruned slot is never taken again: its record is gone, a later slot of its job exists.
  auto again = leases->ClaimLease("m", 0, "rb", 100);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->answer, LeaseAnswer::kPruned);
  EXPECT_FALSE(leases->PruneWatchHistory(0, 10).ok());
  EXPECT_FALSE(leases->PruneWatchHistory(10, 0).ok());
}

// Abandoned: expired and unfinished while the holder is gone (never registered, stopped, or
// silent for its lease time); not a live holder's running slot, nor its failed one (it retries
// it itself, after its backoff), nor a finished one.
TEST_P(WatchLeasesTest, AbandonedSlotsAreThoseWhoseHolderIsGone) {
  WatchLeases* leases = WatchLeasesOf(*store_);
  if (leases == nullptr) return;  // SQLite
  EXPECT_EQ(leases->AbandonedLeases(0).status().code(), StatusCode::kInvalidArgument);
  WatchReplica live{.id = "live", .host = "h", .pid = 1, .started_ms = 1, .lease_ms = 60'000};
  WatchReplica dies{.id = "dies", .host = "h", .pid = 2, .started_ms = 1, .lease_ms = 200};
  WatchReplica stops{.id = "stops", .host = "h", .pid = 3, .started_ms = 1, .lease_ms = 60'000};
  for (const auto& r : {live, dies, stops}) ASSERT_TRUE(leases->Heartbeat(r).ok());
  auto claim = [&](const std::string& job, const std::string& holder, int64_t lease_ms) {
    auto c = leases->ClaimLease(job, 0, holder, lease_ms);
    EXPECT_TRUE(c.ok() && c->answer == LeaseAnswer::kTaken) << job;
    return c.ok() ? c->run_id : 0;
  };
  claim("running", "live", 60'000);
  const int64_t failed = claim("failed", "live", 60'000);
  const int64_t finished = claim("finished", "dies", 200);
  claim("dead", "dies", 200);
  claim("stopped", "stops", 60'000);
  claim("unknown", "never-registered", 200);
  ASSERT_TRUE(*leases->FinishLease("failed", 0, "live", failed, false, "warehouse down"));
  ASSERT_TRUE(*leases->FinishLease("finished", 0, "dies", finished, true, ""));
  ASSERT_TRUE(leases->StopReplica("stops").ok());
  std::this_thread::sleep_for(400ms);  // "dies" silent past its lease time; "live" is not
  auto found = leases->AbandonedLeases(10);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  std::set<std::string> jobs;
  for (const auto& l : *found) {
    EXPECT_EQ(l.due_ms, 0);
    jobs.insert(l.job);
  }
  EXPECT_EQ(jobs, (std::set<std::string>{"dead", "stopped", "unknown"}));
  auto one = leases->AbandonedLeases(1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->size(), 1u);
  // Taken over, a slot is no longer abandoned.
  claim("dead", "live", 60'000);
  auto after = leases->AbandonedLeases(10);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Backends, WatchLeasesTest, ::testing::Values("sqlite", "postgresql"));

}  // namespace
}  // namespace dw::store
