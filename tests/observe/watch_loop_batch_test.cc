// The watch scheduler's batches (observe/watch/watch_loop.h): the slots of one wake-up are asked
// for in one ClaimBatch and their ends reported in one FinishBatch per run; with leases, slots
// whose time has come and whose jitter ends within claim_ahead_ms join the batch (never a slot whose
// time has not come, and never without leases: SQLite's schedule is unchanged); jobs naming a batch
// runner and due together in one group are run by it in one call, each with its own outcome.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <set>

#include "observe/watch/watch_loop.h"

namespace dw::observe::watch {
namespace {
namespace watch_loop_batch_test {

constexpr int64_t kEvery = 60'000;
const int64_t kStart = 1767225600000LL;  // 2026-01-01 00:00 UTC, a slot boundary

// Runs every slot here, and records how the loop asked. The loop reports ends from its group
// threads (several at once with max_parallel > 1), so every record is kept under a lock, as
// ReplicaLeases keeps its own.
class CountingLeases final : public JobLeases {
 public:
  std::vector<size_t> claim_batches;   // sizes of the ClaimBatch calls
  std::vector<size_t> finish_batches;  // sizes of the FinishBatch calls
  std::map<std::string, bool> finished;
  int single_claims = 0;
  Answer Claim(const std::string&, int64_t) override {
    std::lock_guard<std::mutex> hold(mu_);
    ++single_claims;
    return {Verdict::kRun, 0, ""};
  }
  void Finish(const std::string& job, int64_t, const Status& outcome) override {
    std::lock_guard<std::mutex> hold(mu_);
    finished[job] = outcome.ok();
  }
  std::vector<Answer> ClaimBatch(const std::vector<SlotRef>& slots) override {
    std::lock_guard<std::mutex> hold(mu_);
    claim_batches.push_back(slots.size());
    return std::vector<Answer>(slots.size(), {Verdict::kRun, 0, ""});
  }
  void FinishBatch(const std::vector<SlotEnd>& ends) override {
    std::lock_guard<std::mutex> hold(mu_);
    finish_batches.push_back(ends.size());
    for (const auto& e : ends) finished[e.job] = e.outcome.ok();
  }

 private:
  std::mutex mu_;
};

Status Ok(int64_t, int) { return Status::Ok(); }

TEST(WatchLoopBatchTest, JobsNamingARunnerAndDueTogetherInOneGroupRunInOneCall) {
  SimulatedClock clock{FromUnixMillis(kStart)};
  CountingLeases leases;
  WatchLoop loop(clock, {.leases = &leases, .max_parallel = 1, .jitter_fraction = 0, .retry_min_ms = 1'000});
  std::vector<std::vector<std::string>> calls;
  EXPECT_FALSE(loop.AddJob({"early", "g", kEvery, Ok, "judge"}).ok()) << "its runner is not added yet";
  ASSERT_TRUE(loop.AddBatchRunner("judge", [&](const std::vector<BatchItem>& items) {
                    std::vector<std::string> names;
                    std::vector<Status> out;
                    for (const auto& i : items) {
                      names.push_back(i.job + "@" + std::to_string(i.due_ms - kStart));
                      out.push_back(i.job == "m2" && calls.empty() ? Unavailable("m2's warehouse is down")
                                                                   : Status::Ok());
                    }
                    calls.push_back(names);
                    return out;
                  }).ok());
  EXPECT_FALSE(loop.AddBatchRunner("judge", [](const std::vector<BatchItem>&) { return std::vector<Status>{}; }).ok());
  EXPECT_FALSE(loop.AddBatchRunner("", [](const std::vector<BatchItem>&) { return std::vector<Status>{}; }).ok());
  int own_runs = 0;
  for (const char* m : {"m1", "m2", "m3"})
    ASSERT_TRUE(loop.AddJob({m, "warehouse:a", kEvery,
                             [&](int64_t, int) {
                               ++own_runs;
                               return Status::Ok();
                             },
                             "judge"})
                    .ok());
  ASSERT_TRUE(loop.AddJob({"other-warehouse", "warehouse:b", kEvery, Ok, "judge"}).ok());
  ASSERT_TRUE(loop.AddJob({"check", "warehouse:a", kEvery, Ok}).ok());

  auto first = loop.RunDue();
  ASSERT_EQ(first.size(), 5u);
  EXPECT_EQ(own_runs, 0) << "the runner ran them, not their own run";
  // One call for warehouse a's three monitors, one for warehouse b's (groups never share a call).
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1], (std::vector<std::string>{"other-warehouse@0"}));
  EXPECT_EQ(calls[0], (std::vector<std::string>{"m1@0", "m2@0", "m3@0"}));
  // One claim for the wake-up; one finish per run (the batch's three together).
  EXPECT_EQ(leases.claim_batches, (std::vector<size_t>{5}));
  EXPECT_EQ(leases.single_claims, 0);
  std::multiset<size_t> finishes(leases.finish_batches.begin(), leases.finish_batches.end());
  EXPECT_EQ(finishes, (std::multiset<size_t>{1, 1, 3}));
  // Each item has its own outcome: m2 failed and alone is retried after its backoff.
  for (const auto& r : first) EXPECT_EQ(r.status.ok(), r.job != "m2") << r.job;
  EXPECT_FALSE(leases.finished["m2"]);
  EXPECT_TRUE(leases.finished["m1"]);
  clock.Advance(std::chrono::milliseconds(1'000));
  auto retry = loop.RunDue();
  ASSERT_EQ(retry.size(), 1u);
  EXPECT_EQ(retry[0].job, "m2");
  EXPECT_TRUE(retry[0].status.ok());
  EXPECT_EQ(calls.back(), (std::vector<std::string>{"m2@0"}));
}

TEST(WatchLoopBatchTest, ARunnerAnsweringTheWrongNumberOfOutcomesFailsEveryItemOfItsCall) {
  SimulatedClock clock{FromUnixMillis(kStart)};
  WatchLoop loop(clock, {.jitter_fraction = 0});
  ASSERT_TRUE(loop.AddBatchRunner("short", [](const std::vector<BatchItem>&) {
                    return std::vector<Status>{Status::Ok()};
                  }).ok());
  ASSERT_TRUE(loop.AddJob({"x", "g", kEvery, Ok, "short"}).ok());
  ASSERT_TRUE(loop.AddJob({"y", "g", kEvery, Ok, "short"}).ok());
  auto records = loop.RunDue();
  ASSERT_EQ(records.size(), 2u);
  for (const auto& r : records) {
    EXPECT_EQ(r.status.code(), StatusCode::kInternal);
    EXPECT_NE(r.status.message().find("answered 1 outcomes for 2 slots"), std::string::npos) << r.status.message();
  }
}

// Twenty jobs every minute with the default jitter (up to 6 s after the slot). Jobs of different
// groups run on the loop's parallel threads, so `ran` is appended under a lock.
std::mutex ran_lock;
void AddTwenty(WatchLoop& loop, std::vector<std::pair<std::string, int64_t>>& ran, const SimulatedClock& clock) {
  for (int i = 0; i < 20; ++i)
    ASSERT_TRUE(loop.AddJob({"monitor:m" + std::to_string(i), "warehouse:" + std::to_string(i % 3), kEvery,
                             [&ran, &clock, i](int64_t due, int) {
                               EXPECT_GE(ToUnixMillis(clock.Now()), due) << "never before its slot";
                               std::lock_guard<std::mutex> hold(ran_lock);
                               ran.push_back({"m" + std::to_string(i), due});
                               return Status::Ok();
                             }})
                    .ok());
}

TEST(WatchLoopBatchTest, WithLeasesTheSlotsWhoseTimeHasComeAreClaimedAheadInOneBatch) {
  SimulatedClock clock{FromUnixMillis(kStart)};
  CountingLeases leases;
  WatchLoop loop(clock, {.leases = &leases, .claim_ahead_ms = 6'000});
  std::vector<std::pair<std::string, int64_t>> ran;
  AddTwenty(loop, ran, clock);
  // At the slot, every job's jitter ends within 6 s: all twenty are claimed in one statement.
  auto first = loop.RunDue();
  EXPECT_EQ(first.size(), 20u);
  EXPECT_EQ(leases.claim_batches, (std::vector<size_t>{20}));
  for (const auto& [job, due] : ran) EXPECT_EQ(due, kStart) << job;
  EXPECT_TRUE(loop.RunDue().empty()) << "each slot once";
  // Just before the next slot nothing is claimed: a slot whose time has not come never is.
  clock.Advance(std::chrono::milliseconds(kEvery - 1));
  EXPECT_TRUE(loop.RunDue().empty());
  EXPECT_EQ(leases.claim_batches.size(), 1u);
  clock.Advance(std::chrono::milliseconds(1));
  EXPECT_EQ(loop.RunDue().size(), 20u);
  EXPECT_EQ(leases.claim_batches, (std::vector<size_t>{20, 20}));
  EXPECT_EQ(ran.size(), 40u);
}

TEST(WatchLoopBatchTest, WithoutLeasesNothingIsClaimedAheadAndEachJobStartsAfterItsJitter) {
  SimulatedClock clock{FromUnixMillis(kStart)};
  WatchLoop loop(clock, {.claim_ahead_ms = 6'000});  // ignored without leases
  std::vector<std::pair<std::string, int64_t>> ran;
  AddTwenty(loop, ran, clock);
  size_t total = 0;
  int wake_ups = 0;
  // Wake up when the loop says; every job runs once in the slot's first 6 s, not all at once.
  for (; total < 20 && wake_ups < 100; ++wake_ups) {
    int64_t wait = loop.MillisUntilNextDue();
    ASSERT_GE(wait, 0);
    clock.Advance(std::chrono::milliseconds(wait));
    total += loop.RunDue().size();
  }
  EXPECT_EQ(total, 20u);
  EXPECT_GT(wake_ups, 1) << "the jitter spreads the single watcher's runs, as before";
  EXPECT_LT(ToUnixMillis(clock.Now()), kStart + 6'000);
}

}  // namespace watch_loop_batch_test
}  // namespace
}  // namespace dw::observe::watch
