// What the `dw watch` scheduler itself costs per slot (observe/watch/watch_loop.h), without the
// jobs' work: JOBS no-op jobs in GROUPS groups, all due at once (jitter 0), run by RunDue for
// PASSES passes one `every` apart on a simulated clock. The single watcher's path (no leases,
// SQLite) is the one measured; it uses only AddJob and RunDue, so the same file built against an
// older loop gives the baseline (docs/PERFORMANCE.md says how).
//
// usage: watch_loop_bench [--jobs N] [--groups N] [--passes N]
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/clock.h"
#include "observe/watch/watch_loop.h"

using namespace dw;

int main(int argc, char** argv) {
  int jobs = 10000, groups = 10, passes = 20;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--jobs") && i + 1 < argc) jobs = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--groups") && i + 1 < argc) groups = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--passes") && i + 1 < argc) passes = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: watch_loop_bench [--jobs N] [--groups N] [--passes N]\n");
      return 2;
    }
  }
  if (jobs <= 0 || groups <= 0 || passes <= 0) {
    std::fprintf(stderr, "usage: watch_loop_bench [--jobs N] [--groups N] [--passes N]\n");
    return 2;
  }
  constexpr int64_t kEvery = 60'000;
  SimulatedClock clock{FromUnixMillis(1767225600000LL)};
  observe::watch::WatchOptions options;
  options.jitter_fraction = 0;
  observe::watch::WatchLoop loop(clock, options);
  std::atomic<long> ran{0};
  for (int i = 0; i < jobs; ++i) {
    observe::watch::WatchJob job;
    job.name = "monitor:m" + std::to_string(i);
    job.group = "warehouse:" + std::to_string(i % groups);
    job.every_ms = kEvery;
    job.run = [&ran](int64_t, int) {
      ++ran;
      return Status::Ok();
    };
    if (!loop.AddJob(std::move(job)).ok()) return 1;
  }
  double best = 1e18, total = 0;
  for (int p = 0; p < passes; ++p) {
    auto t0 = std::chrono::steady_clock::now();
    size_t n = loop.RunDue().size();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (n != static_cast<size_t>(jobs)) {
      std::fprintf(stderr, "watch_loop_bench: pass %d ran %zu of %d jobs\n", p, n, jobs);
      return 1;
    }
    best = std::min(best, ms);
    total += ms;
    clock.Advance(std::chrono::milliseconds(kEvery));
  }
  std::printf("jobs %d, groups %d, passes %d: RunDue best %.2f ms (%.3f us a slot), mean %.2f ms; %ld runs\n", jobs,
              groups, passes, best, 1000 * best / jobs, total / passes, ran.load());
  return 0;
}
