// Which jobs `dw watch` runs: the observe stage's kinds with their default periods, and a later
// stage's job added by one registration.
#include "observe/watch/watch_jobs.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace dw::observe::watch {
namespace {

TEST(WatchJobsTest, TheObserveStagesKindsAndTheirDefaultPeriods) {
  std::vector<std::pair<std::string, int64_t>> got;
  for (const WatchJobKind& k : ObserveWatchJobKinds()) got.emplace_back(k.name, k.every_ms);
  const int64_t minute = 60 * 1000;
  EXPECT_EQ(got, (std::vector<std::pair<std::string, int64_t>>{
                     {"monitors", 0}, {"checks", 60 * minute}, {"collect", 5 * minute}, {"tables", 15 * minute}, {"prune-metrics", 24 * 60 * minute}}));
}

TEST(WatchJobsTest, AddingAJobIsOneRegistration) {
  config::Workspace ws;  // no monitor, check or platform: only the prune job of the observe kinds
  SimulatedClock clock(FromUnixMillis(1767225600000LL));
  std::vector<std::string> lines;
  auto env = std::make_shared<WatchEnvironment>();
  env->workspace = &ws;
  env->state = [] { return Result<store::StateStore*>(Unavailable("no state store in this test")); };
  env->clock = &clock;
  env->say = [&lines](const std::string& line) { lines.push_back(line); };

  std::vector<WatchJobKind> kinds = ObserveWatchJobKinds();
  kinds.push_back({"signals", 60 * 1000, [](WatchLoop& loop, const std::shared_ptr<const WatchEnvironment>& e, int64_t every) {
                     return loop.AddJob({"signals", "incidents", every, [e](int64_t, int) {
                                           e->say("signals evaluated");
                                           return Status::Ok();
                                         }});
                   }});
  WatchLoop loop(clock, {});
  ASSERT_TRUE(AddWatchJobs(loop, kinds, env).ok());
  std::vector<RunRecord> runs = loop.RunAllNow();
  std::vector<std::string> names;
  for (const RunRecord& r : runs) names.push_back(r.job);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"prune-metrics", "signals"}));
  for (const RunRecord& r : runs) {
    if (r.job == "prune-metrics") {
      EXPECT_EQ(r.status.code(), StatusCode::kUnavailable);  // the store's error is the job's
    } else {
      EXPECT_TRUE(r.status.ok()) << r.status.ToString();
    }
  }
  EXPECT_EQ(lines, (std::vector<std::string>{"signals evaluated"}));
}

TEST(WatchJobsTest, AKindThatFailsStopsTheRest) {
  config::Workspace ws;
  SimulatedClock clock(FromUnixMillis(1767225600000LL));
  auto env = std::make_shared<WatchEnvironment>();
  env->workspace = &ws;
  env->clock = &clock;
  std::vector<WatchJobKind> kinds = {
      {"broken", 1000, [](WatchLoop&, const std::shared_ptr<const WatchEnvironment>&, int64_t) {
         return InvalidArgument("monitor m: every: must be positive");
       }},
      {"never", 1000, [](WatchLoop&, const std::shared_ptr<const WatchEnvironment>&, int64_t) {
         ADD_FAILURE() << "a kind after a failed one was added";
         return Status::Ok();
       }}};
  WatchLoop loop(clock, {});
  Status st = AddWatchJobs(loop, kinds, env);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "monitor m: every: must be positive");
}

}  // namespace
}  // namespace dw::observe::watch
