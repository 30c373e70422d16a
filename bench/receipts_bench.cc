// Receipts, measured on a SQLite state store in a temporary folder:
//   append N:  N receipts appended one by one, each its own transaction (the way receipts are
//              written: one per resolved incident), receipts per second (target >= 10,000).
//   verify N:  a chain of N receipts (default 1,000,000; built in batched transactions first and
//              kept in DIR for the next run), then VerifyReceiptChain over all of it: wall and CPU
//              seconds (target < 3 s on one core: run under `taskset -c 0`).
// Each receipt's content is about 600 bytes, the size of an incident receipt's summary.
// usage: receipts_bench append [N] | receipts_bench verify [N] [DIR]
#include <time.h>
#include <unistd.h>

#include <algorithm>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "actions/actions.h"
#include "store/state_store.h"

namespace {

namespace fs = std::filesystem;
using Steady = std::chrono::steady_clock;

double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

dw::Json Content(int64_t i) {
  return {{"incident", "INC-" + std::to_string(i)},
          {"cause", "flink://flink/points-balance restored from savepoint-7 with "
                    "allowNonRestoredState: true; operator state of the balance aggregator skipped"},
          {"evidence", {{"metric", "avg_active_balance"}, {"observed", "0.00"}, {"band", "41.20..58.90"}}},
          {"approvals", {{{"by", "ana@example.com"}, {"surface", "cli"}, {"at", "2027-01-15T09:12:00.000Z"}}}},
          {"runs", {"dbt://loyalty/fct_member_tier", "sync://hightouch/tier-changes-to-braze"}},
          {"undo", "git revert the FlinkDeployment diff; savepoints s3://sp/savepoint-6 and s3://sp/savepoint-7"}};
}

int Append(int64_t n) {
  fs::path dir = fs::temp_directory_path() / ("dw-receipts-bench-" + std::to_string(getpid()));
  fs::create_directories(dir);
  dw::SimulatedClock clock(dw::FromUnixMillis(1'800'000'000'000));
  auto store = dw::store::OpenStateStore((dir / "state.db").string(), clock);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    return 1;
  }
  auto t0 = Steady::now();
  double c0 = CpuSeconds();
  for (int64_t i = 0; i < n; ++i) {
    auto r = dw::actions::WriteReceipt(**store, Content(i), clock);
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
      return 1;
    }
  }
  double wall = std::chrono::duration<double>(Steady::now() - t0).count();
  double cpu = CpuSeconds() - c0;
  std::printf("append: %lld receipts in %.3f s wall, %.3f s CPU: %.0f receipts/s\n",
              static_cast<long long>(n), wall, cpu, static_cast<double>(n) / wall);
  store->reset();
  fs::remove_all(dir);
  return 0;
}

int Verify(int64_t n, fs::path dir) {
  if (dir.empty()) dir = fs::temp_directory_path() / "dw-receipts-bench-verify";
  fs::create_directories(dir);
  dw::SimulatedClock clock(dw::FromUnixMillis(1'800'000'000'000));
  auto store = dw::store::OpenStateStore((dir / ("chain-" + std::to_string(n) + ".db")).string(), clock);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    return 1;
  }
  auto head = dw::actions::CurrentReceiptHead(**store);
  if (!head.ok()) return 1;
  if (head->seq < n) {
    auto t0 = Steady::now();
    for (int64_t i = head->seq; i < n;) {
      int64_t end = std::min(n, i + 20'000);
      dw::Status s = (*store)->InTransaction([&](dw::store::StateStore& tx) -> dw::Status {
        for (; i < end; ++i) {
          auto r = dw::actions::WriteReceipt(tx, Content(i), clock);
          if (!r.ok()) return r.status();
        }
        return dw::Status::Ok();
      });
      if (!s.ok()) {
        std::fprintf(stderr, "%s\n", s.ToString().c_str());
        return 1;
      }
    }
    std::printf("built a chain of %lld receipts in %.1f s (kept in %s)\n",
                static_cast<long long>(n),
                std::chrono::duration<double>(Steady::now() - t0).count(), dir.c_str());
  }
  auto t0 = Steady::now();
  double c0 = CpuSeconds();
  auto v = dw::actions::VerifyReceiptChain(**store);
  double wall = std::chrono::duration<double>(Steady::now() - t0).count();
  double cpu = CpuSeconds() - c0;
  if (!v.ok() || !v->ok) {
    std::fprintf(stderr, "verify failed: %s\n", v.ok() ? v->problem.c_str() : v.status().ToString().c_str());
    return 1;
  }
  std::printf("verify: %lld receipts in %.3f s wall, %.3f s CPU\n",
              static_cast<long long>(v->receipts), wall, cpu);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "append";
  if (mode == "append") return Append(argc > 2 ? std::atoll(argv[2]) : 20'000);
  if (mode == "verify")
    return Verify(argc > 2 ? std::atoll(argv[2]) : 1'000'000, argc > 3 ? fs::path(argv[3]) : fs::path());
  std::fprintf(stderr, "usage: receipts_bench append [N] | receipts_bench verify [N] [DIR]\n");
  return 2;
}
