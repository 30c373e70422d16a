// The watch scheduler with leases (several replicas, docs/watch.md), against a scripted JobLeases:
// a slot done elsewhere is not run here, a slot held elsewhere is asked for again as itself (so a
// dead holder's slot is taken over, not skipped), a refusal keeps the slot due, and every run
// here is reported back with its outcome.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <utility>

#include "observe/watch/watch_loop.h"

namespace dw::observe::watch {
namespace {
namespace watch_loop_leases_test {

constexpr int64_t kEvery = 60'000;
const int64_t kStart = 1767225600000LL;  // 2026-01-01 00:00 UTC, a slot boundary

// Answers from a script per due time; kRun when nothing is scripted.
class ScriptedLeases final : public JobLeases {
 public:
  std::map<int64_t, std::deque<Answer>> script;
  std::vector<std::pair<int64_t, bool>> finished;  // (due, ok)
  std::vector<int64_t> asked;
  Answer Claim(const std::string&, int64_t due_ms) override {
    asked.push_back(due_ms);
    auto& q = script[due_ms];
    if (q.empty()) return {Verdict::kRun, 0, ""};
    Answer a = q.front();
    q.pop_front();
    return a;
  }
  void Finish(const std::string&, int64_t due_ms, const Status& outcome) override {
    finished.push_back({due_ms, outcome.ok()});
  }
  // Handed out by the next Abandoned() call, then cleared.
  std::vector<SlotRef> abandoned;
  std::vector<SlotRef> Abandoned() override { return std::exchange(abandoned, {}); }
};

TEST(WatchLoopLeasesTest, ASlotDoneElsewhereIsNotRunHereAndTheNextOneIs) {
  SimulatedClock clock{FromUnixMillis(kStart)};
  ScriptedLeases leases;
  leases.script[kStart].push_back({JobLeases::Verdict::kDoneElsewhere, 0, ""});
  WatchLoop loop(clock, {.leases = &leases, .jitter_fraction = 0});
  std::vector<int64_t> ran;
  ASSERT_TRUE(loop.AddJob({"m", "g", kEvery, [&](int64_t due, int) {
                             ran.push_back(due);
                             return Status::Ok();
                           }}).ok());
  auto first = loop.RunDue();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_FALSE(first[0].ran);
  EXPECT_TRUE(first[0].status.ok());
  EXPECT_TRUE(ran.empty());
  EXPECT_TRUE(loop.RunDue().empty()) << "the slot is accounted for";
  clock.Advance(std::chrono::milliseconds(kEvery));
  auto second = loop.RunDue();
  ASSERT_EQ(second.size(), 1u);
  EXPECT_TRUE(second[0].ran);
  EXPECT_EQ(ran, (std::vector<int64_t>{kStart + kEvery}));
  EXPECT_EQ(leases.finished, (std::vector<std::pair<int64_t, bool>>{{kStart + kEvery, true}}));
}

// Adds job "m" (every kEvery) to `loop`; each run appends its due time and missed count to `ran`.
bool AddRecordingJob(WatchLoop& loop, std::vector<std::pair<int64_t, int>>& ran) {
  return loop
      .AddJob({"m", "g", kEvery, [&ran](int64_t due, int missed) {
                 ran.push_back({due, missed});
                 return Status::Ok();
               }})
      .ok();
}

TEST(WatchLoopLeasesTest, ASlotHeldByAReplicaThatDiesIsTakenOverAsItselfNotSkipped) {
  SimulatedClock clock{FromUnixMillis(kStart)};
  ScriptedLeases leases;
  // Held twice (its holder is running it, then silent), then the lease expires and it is ours.
  leases.script[kStart].push_back({JobLeases::Verdict::kHeldElsewhere, 40'000, "held by r1"});
  leases.script[kStart].push_back({JobLeases::Verdict::kHeldElsewhere, 40'000, "held by r1"});
  WatchLoop loop(clock, {.leases = &leases, .jitter_fraction = 0});
  std::vector<std::pair<int64_t, int>> ran;
  ASSERT_TRUE(AddRecordingJob(loop, ran));
  EXPECT_FALSE(loop.RunDue()[0].ran);
  EXPECT_EQ(loop.MillisUntilNextDue(), 40'000) << "asked again when the holder's lease ends";
  clock.Advance(std::chrono::milliseconds(40'000));
  EXPECT_FALSE(loop.RunDue()[0].ran);
  // By now the next slot (00:01) has begun; the held 00:00 slot is still the one asked for.
  clock.Advance(std::chrono::milliseconds(40'000));
  auto taken = loop.RunDue();
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_TRUE(taken[0].ran);
  EXPECT_EQ(taken[0].due_ms, kStart);
  // Then the 00:01 slot, at once (it is due), as a slot of its own.
  auto next = loop.RunDue();
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].due_ms, kStart + kEvery);
  EXPECT_EQ(ran, (std::vector<std::pair<int64_t, int>>{{kStart, 0}, {kStart + kEvery, 0}}));
  EXPECT_EQ(leases.asked, (std::vector<int64_t>{kStart, kStart, kStart, kStart + kEvery}));
}

// The three-replica test's failure under load (tests/app/watch_replicas_test.cc): while every live
// replica waited a lease time for a dead replica's slot, the job's next slot came due, nobody
// asked for it, and each replica then jumped to the latest slot: the one between was skipped.
TEST(WatchLoopLeasesTest, ALaterSlotRunsOnTimeWhileAnEarlierOneIsHeldElsewhere) {
  SimulatedClock clock{FromUnixMillis(kStart)};
  ScriptedLeases leases;
  // 00:00 is held for longer than `every` (its holder runs long, then dies), then it is ours.
  for (int i = 0; i < 3; ++i)
    leases.script[kStart].push_back({JobLeases::Verdict::kHeldElsewhere, 40'000, "held by r1"});
  WatchLoop loop(clock, {.leases = &leases, .jitter_fraction = 0});
  std::vector<std::pair<int64_t, int>> ran;
  ASSERT_TRUE(AddRecordingJob(loop, ran));
  EXPECT_FALSE(loop.RunDue()[0].ran);  // 00:00, held
  clock.Advance(std::chrono::milliseconds(40'000));
  EXPECT_FALSE(loop.RunDue()[0].ran);  // 00:00 again at 00:40, still held
  EXPECT_EQ(loop.MillisUntilNextDue(), 20'000) << "the next slot is due at 00:01, before 00:00 is asked again";
  clock.Advance(std::chrono::milliseconds(20'000));
  auto on_time = loop.RunDue();
  ASSERT_EQ(on_time.size(), 1u);
  EXPECT_TRUE(on_time[0].ran);
  EXPECT_EQ(on_time[0].due_ms, kStart + kEvery) << "00:01 runs on time while 00:00 is held";
  clock.Advance(std::chrono::milliseconds(20'000));
  EXPECT_FALSE(loop.RunDue()[0].ran);  // 00:00 again at 01:20, still held
  clock.Advance(std::chrono::milliseconds(40'000));
  // At 02:00 both 00:00 (asked again) and 00:02 are due: the held one first, then 00:02 at once.
  auto taken = loop.RunDue();
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].due_ms, kStart);
  EXPECT_TRUE(taken[0].ran);
  EXPECT_EQ(loop.MillisUntilNextDue(), 0);
  auto next = loop.RunDue();
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].due_ms, kStart + 2 * kEvery);
  // Every slot ran once, none folded into a later one.
  EXPECT_EQ(ran, (std::vector<std::pair<int64_t, int>>{{kStart + kEvery, 0}, {kStart, 0}, {kStart + 2 * kEvery, 0}}));
  EXPECT_EQ(leases.finished,
            (std::vector<std::pair<int64_t, bool>>{{kStart + kEvery, true}, {kStart, true}, {kStart + 2 * kEvery, true}}));
}

TEST(WatchLoopLeasesTest, ARefusalKeepsTheSlotDueAndAFailureIsReportedToTheLeases) {
  SimulatedClock clock{FromUnixMillis(kStart)};
  ScriptedLeases leases;
  leases.script[kStart].push_back({JobLeases::Verdict::kRefused, 5'000, "refusing leases: clock 45 s ahead"});
  WatchLoop loop(clock, {.leases = &leases, .jitter_fraction = 0, .retry_min_ms = 1'000});
  int runs = 0;
  ASSERT_TRUE(loop.AddJob({"m", "g", kEvery, [&](int64_t, int) {
                             ++runs;
                             return runs == 1 ? Unavailable("warehouse down") : Status::Ok();
                           }}).ok());
  auto refused = loop.RunDue();
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_FALSE(refused[0].ran);
  EXPECT_NE(refused[0].status.message().find("clock 45 s ahead"), std::string::npos);
  EXPECT_EQ(loop.MillisUntilNextDue(), 5'000);
  clock.Advance(std::chrono::milliseconds(5'000));
  auto failed = loop.RunDue();
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_TRUE(failed[0].ran);
  EXPECT_FALSE(failed[0].status.ok());
  clock.Advance(std::chrono::milliseconds(1'000));
  auto retried = loop.RunDue();
  ASSERT_EQ(retried.size(), 1u);
  EXPECT_EQ(retried[0].due_ms, kStart) << "the retry covers the slot that failed";
  EXPECT_TRUE(retried[0].status.ok());
  EXPECT_EQ(leases.finished, (std::vector<std::pair<int64_t, bool>>{{kStart, false}, {kStart, true}}));
}

// The three-replica batch test's failure under load (tests/app/watch_replicas_test.cc): a replica
// that started after a due time asked only for the job's next slot; the one before it, taken by a
// replica that then died, was asked for by nobody and never ran. The leases' sweep of abandoned
// slots hands it to the loop, which asks for it as a held slot; one its schedule has not passed,
// or of a job it does not run, is left to the schedule.
TEST(WatchLoopLeasesTest, AnAbandonedSlotTheScheduleHadPassedIsAskedForAndRun) {
  SimulatedClock clock{FromUnixMillis(kStart + kEvery)};
  ScriptedLeases leases;
  WatchLoop loop(clock, {.leases = &leases, .jitter_fraction = 0});
  std::vector<std::pair<int64_t, int>> ran;
  ASSERT_TRUE(AddRecordingJob(loop, ran));
  auto first = loop.RunDue();  // 00:01, this replica's first slot
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].due_ms, kStart + kEvery);
  clock.Advance(std::chrono::milliseconds(5'000));
  EXPECT_TRUE(loop.RunDue().empty()) << "nothing of its own is due";
  leases.abandoned = {{"m", kStart}, {"m", kStart + 2 * kEvery}, {"other", kStart}};
  auto adopted = loop.RunDue();
  ASSERT_EQ(adopted.size(), 1u);
  EXPECT_EQ(adopted[0].due_ms, kStart);
  EXPECT_TRUE(adopted[0].ran);
  EXPECT_TRUE(loop.RunDue().empty()) << "00:02 is left to the schedule, 'other' is not a job here";
  EXPECT_EQ(ran, (std::vector<std::pair<int64_t, int>>{{kStart + kEvery, 0}, {kStart, 0}}));
  EXPECT_EQ(leases.asked, (std::vector<int64_t>{kStart + kEvery, kStart}));
  EXPECT_EQ(leases.finished, (std::vector<std::pair<int64_t, bool>>{{kStart + kEvery, true}, {kStart, true}}));
}

}  // namespace watch_loop_leases_test
}  // namespace
}  // namespace dw::observe::watch
