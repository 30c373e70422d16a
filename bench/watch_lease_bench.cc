// What leases cost a `dw watch` replica on PostgreSQL (docs/watch.md): per job slot, the claim
// and the finish the replica that runs it makes (kTaken + FinishLease), and the claim a replica
// makes for a slot another one already ran (kDone). Then REPLICAS threads, each its own store
// connection as a replica process has, claim the same SLOTS slots at once: wall time per slot
// and a check that every slot was taken exactly once. Single-replica SQLite takes no leases, so
// its path costs nothing here (the baseline).
//
// usage: watch_lease_bench --pg URL [--slots N] [--replicas N]
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "store/postgres_connection.h"
#include "store/state_store.h"
#include "store/watch_leases.h"

using namespace dw;

namespace {

double MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::unique_ptr<store::StateStore> Open(const std::string& url, const Clock& clock) {
  auto s = store::OpenStateStore(url, clock);
  if (!s.ok()) {
    std::fprintf(stderr, "watch_lease_bench: %s\n", s.status().message().c_str());
    std::exit(2);
  }
  return std::move(s).value();
}

}  // namespace

int main(int argc, char** argv) {
  std::string pg;
  int slots = 2000, replicas = 3;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--pg") && i + 1 < argc) pg = argv[++i];
    else if (!std::strcmp(argv[i], "--slots") && i + 1 < argc) slots = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--replicas") && i + 1 < argc) replicas = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: watch_lease_bench --pg URL [--slots N] [--replicas N]\n");
      return 2;
    }
  }
  if (pg.empty() || slots <= 0 || replicas <= 0) {
    std::fprintf(stderr, "usage: watch_lease_bench --pg URL [--slots N] [--replicas N]\n");
    return 2;
  }
  // A private schema so runs never see each other's rows.
  const std::string schema = "dw_lease_bench_" + std::to_string(::getpid());
  auto admin = store::OpenPostgresConnection(pg);
  if (!admin.ok() || !(*admin)->ExecScript("CREATE SCHEMA " + schema).ok()) {
    std::fprintf(stderr, "watch_lease_bench: cannot create schema %s\n", schema.c_str());
    return 2;
  }
  const std::string url = pg + (pg.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + schema;
  SystemClock clock;
  auto one = Open(url, clock);
  store::WatchLeases* leases = store::WatchLeasesOf(*one);

  // 1. One replica runs every slot: claim (taken) + finish.
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < slots; ++i) {
    auto c = leases->ClaimLease("monitor:m" + std::to_string(i % 100), i / 100, "r0", 30'000);
    if (!c.ok() || c->answer != store::LeaseAnswer::kTaken) return 1;
    if (!leases->FinishLease("monitor:m" + std::to_string(i % 100), i / 100, "r0", c->run_id, true, "").ok()) return 1;
  }
  double run_ms = MsSince(t0);
  // 2. Another replica asks for the same slots: each is done.
  t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < slots; ++i) {
    auto c = leases->ClaimLease("monitor:m" + std::to_string(i % 100), i / 100, "r1", 30'000);
    if (!c.ok() || c->answer != store::LeaseAnswer::kDone) return 1;
  }
  double done_ms = MsSince(t0);

  // 3. REPLICAS replicas race for fresh slots at once.
  std::vector<std::unique_ptr<store::StateStore>> stores;
  for (int r = 0; r < replicas; ++r) stores.push_back(Open(url, clock));
  std::atomic<int> taken{0}, failed{0};
  t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int r = 0; r < replicas; ++r)
    threads.emplace_back([&, r] {
      store::WatchLeases* l = store::WatchLeasesOf(*stores[r]);
      const std::string id = "race" + std::to_string(r);
      for (int i = 0; i < slots; ++i) {
        auto c = l->ClaimLease("race:" + std::to_string(i % 100), i / 100, id, 30'000);
        if (!c.ok()) {
          ++failed;
          continue;
        }
        if (c->answer != store::LeaseAnswer::kTaken) continue;
        ++taken;
        if (!l->FinishLease("race:" + std::to_string(i % 100), i / 100, id, c->run_id, true, "").ok()) ++failed;
      }
    });
  for (auto& t : threads) t.join();
  double race_ms = MsSince(t0);

  std::printf("slots %d, replicas %d\n", slots, replicas);
  std::printf("run here (claim taken + finish): %.3f ms per slot\n", run_ms / slots);
  std::printf("done elsewhere (claim): %.3f ms per slot\n", done_ms / slots);
  std::printf("%d replicas racing: %.3f ms of wall time per slot; slots taken %d of %d (each once: %s), errors %d\n",
              replicas, race_ms / slots, taken.load(), slots, taken.load() == slots ? "yes" : "NO", failed.load());
  stores.clear();
  one.reset();
  (void)(*admin)->ExecScript("DROP SCHEMA " + schema + " CASCADE");
  return taken.load() == slots && failed.load() == 0 ? 0 : 1;
}
