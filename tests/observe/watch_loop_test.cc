// The watch scheduler driven by a simulated clock: days of schedule in milliseconds.
#include "observe/watch/watch_loop.h"

#include <gtest/gtest.h>

#include <map>
#include <thread>

namespace dw::observe::watch {
namespace {
namespace watch_loop_test {

constexpr int64_t kHour = 3600LL * 1000;
const int64_t kStart = 1767225600000LL + 30 * 60 * 1000;  // 2026-01-01 00:30 UTC

struct Harness {
  SimulatedClock clock{FromUnixMillis(kStart)};
  std::atomic<bool> stop{false};
  // Waits by moving simulated time; stops the loop once `until_ms` is reached.
  std::function<void(int64_t)> WaitUntil(int64_t until_ms) {
    return [this, until_ms](int64_t ms) {
      clock.Advance(std::chrono::milliseconds(std::max<int64_t>(ms, 1)));
      if (ToUnixMillis(clock.Now()) >= until_ms) stop = true;
    };
  }
};

TEST(WatchLoopTest, RunsEachJobOnItsEveryForDaysOfSimulatedTime) {
  Harness h;
  WatchLoop loop(h.clock, {});
  std::map<std::string, int> runs;
  std::vector<int64_t> hourly_starts;
  ASSERT_TRUE(loop.AddJob({"monitor:hourly", "warehouse:main", kHour, [&](int64_t, int) {
                             ++runs["hourly"];
                             hourly_starts.push_back(ToUnixMillis(h.clock.Now()));
                             return Status::Ok();
                           }}).ok());
  ASSERT_TRUE(loop.AddJob({"monitor:daily", "warehouse:main", 24 * kHour, [&](int64_t, int) {
                             ++runs["daily"];
                             return Status::Ok();
                           }}).ok());
  loop.Run(h.stop, h.WaitUntil(kStart + 3 * 24 * kHour), nullptr);
  // The current slot (00:00, run at once at 00:30), then every hour through day 4 00:00 (+jitter).
  EXPECT_EQ(runs["hourly"], 73);
  EXPECT_EQ(runs["daily"], 3);  // days 1-3; day 4's slot waits for its jitter (over 30 min)
  // Jitter: a fixed offset within 10% of the period after each slot, the same every time.
  ASSERT_GE(hourly_starts.size(), 3u);
  int64_t offset = hourly_starts[1] % kHour;
  EXPECT_LT(offset, kHour / 10);
  EXPECT_EQ(hourly_starts[2] % kHour, offset);
}

TEST(WatchLoopTest, AfterDowntimeOneCatchUpRunCoversTheMissedSlots) {
  Harness h;
  WatchLoop loop(h.clock, {});
  std::vector<int> missed;
  ASSERT_TRUE(loop.AddJob({"m", "g", kHour, [&](int64_t, int m) {
                             missed.push_back(m);
                             return Status::Ok();
                           }}).ok());
  loop.RunDue();                                      // the 00:00 slot
  h.clock.Advance(std::chrono::milliseconds(10 * kHour));  // down for ten hours
  auto records = loop.RunDue();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].missed, 9);
  EXPECT_EQ(records[0].due_ms, (kStart + 10 * kHour) / kHour * kHour);
  EXPECT_EQ(missed, (std::vector<int>{0, 9}));
  EXPECT_TRUE(loop.RunDue().empty()) << "nothing more is due in the same slot";
}

TEST(WatchLoopTest, FailuresAreRecordedAndRetriedWithoutStoppingOtherJobs) {
  Harness h;
  WatchLoop loop(h.clock, {.max_parallel = 2, .jitter_fraction = 0, .retry_min_ms = 60'000});
  int attempts = 0, other = 0;
  ASSERT_TRUE(loop.AddJob({"flaky", "warehouse:a", kHour, [&](int64_t, int) {
                             return ++attempts < 3 ? Unavailable("warehouse a is down") : Status::Ok();
                           }}).ok());
  ASSERT_TRUE(loop.AddJob({"steady", "warehouse:b", kHour, [&](int64_t, int) {
                             ++other;
                             return Status::Ok();
                           }}).ok());
  auto first = loop.RunDue();
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].job, "flaky");
  EXPECT_EQ(first[0].status.code(), StatusCode::kUnavailable);
  EXPECT_EQ(loop.MillisUntilNextDue(), 60'000);  // the retry, before the next hour
  h.clock.Advance(std::chrono::milliseconds(60'000));
  EXPECT_FALSE(loop.RunDue()[0].status.ok());
  EXPECT_EQ(loop.MillisUntilNextDue(), 120'000);  // backoff doubled
  h.clock.Advance(std::chrono::milliseconds(120'000));
  auto third = loop.RunDue();
  ASSERT_EQ(third.size(), 1u);
  EXPECT_TRUE(third[0].status.ok());
  EXPECT_EQ(third[0].due_ms, kStart / kHour * kHour) << "the retry still covers the failed slot";
  EXPECT_EQ(other, 1);
}

TEST(WatchLoopTest, OneGroupRunsOneJobAtATime) {
  Harness h;
  WatchLoop loop(h.clock, {.max_parallel = 4, .jitter_fraction = 0});
  std::atomic<int> running{0}, max_running{0};
  for (int i = 0; i < 6; ++i)
    ASSERT_TRUE(loop.AddJob({"m" + std::to_string(i), "warehouse:main", kHour, [&](int64_t, int) {
                               int now = ++running;
                               int seen = max_running.load();
                               while (now > seen && !max_running.compare_exchange_weak(seen, now)) {}
                               std::this_thread::yield();
                               --running;
                               return Status::Ok();
                             }}).ok());
  EXPECT_EQ(loop.RunDue().size(), 6u);
  EXPECT_EQ(max_running.load(), 1);
}

TEST(WatchLoopTest, OnceRunsEverythingAndStopEndsTheLoop) {
  Harness h;
  WatchLoop loop(h.clock, {});
  int runs = 0;
  ASSERT_TRUE(loop.AddJob({"weekly", "g", 7 * 24 * kHour, [&](int64_t, int) {
                             ++runs;
                             return Status::Ok();
                           }}).ok());
  EXPECT_EQ(loop.RunAllNow().size(), 1u);
  EXPECT_EQ(runs, 1);
  h.stop = true;
  EXPECT_EQ(loop.Run(h.stop, [](int64_t) {}, nullptr), 0u);
  EXPECT_FALSE(loop.AddJob({"weekly", "g", kHour, [](int64_t, int) { return Status::Ok(); }}).ok());
  EXPECT_FALSE(loop.AddJob({"zero", "g", 0, [](int64_t, int) { return Status::Ok(); }}).ok());
}

}  // namespace watch_loop_test
}  // namespace
}  // namespace dw::observe::watch
