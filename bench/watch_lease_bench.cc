// What leases cost a `dw watch` replica on PostgreSQL (docs/watch.md): per job slot, the claim
// and the finish the replica that runs it makes (kTaken + FinishLease), and the claim a replica
// makes for a slot another one already ran (kDone). Then REPLICAS threads, each its own store
// connection as a replica process has, claim the same SLOTS slots at once: wall time per slot
// and a check that every slot was taken exactly once. Single-replica SQLite takes no leases, so
// its path costs nothing here.
//
// Then the same through the batch statements (ClaimLeases + FinishLeases, one statement each per
// batch of BATCH slots, as a `dw watch` replica asks for a wake-up's slots): one replica taking
// and finishing every slot, another finding them done, and REPLICAS replicas racing for fresh
// slots, each taking at most its share (ceil(asked / REPLICAS)) per statement and asking again for
// what is left until every slot is done: wall time per slot, every slot taken exactly once, and
// the spread of the slots among the replicas. The per-slot figures above are the baseline, in the
// same run. --work-us makes each racing replica spend that long per slot it took before asking
// again (as it would running the jobs): the spread then shows the share bound at work.
//
// usage: watch_lease_bench --pg URL [--slots N] [--replicas N] [--batch N] [--work-us N]
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>
#include <algorithm>

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
  int slots = 10000, replicas = 3, batch = 10000, work_us = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--pg") && i + 1 < argc) pg = argv[++i];
    else if (!std::strcmp(argv[i], "--slots") && i + 1 < argc) slots = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--replicas") && i + 1 < argc) replicas = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--batch") && i + 1 < argc) batch = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--work-us") && i + 1 < argc) work_us = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: watch_lease_bench --pg URL [--slots N] [--replicas N] [--batch N] [--work-us N]\n");
      return 2;
    }
  }
  if (pg.empty() || slots <= 0 || replicas <= 0 || batch <= 0 || batch > static_cast<int>(store::kMaxLeaseBatch)) {
    std::fprintf(stderr, "usage: watch_lease_bench --pg URL [--slots N] [--replicas N] [--batch N <= 20000] [--work-us N]\n");
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

  // 4. Batched: one replica takes and finishes every slot, BATCH slots per statement.
  auto slot_of = [](const std::string& prefix, int i) {
    return store::LeaseSlot{prefix + std::to_string(i % 100), i / 100};
  };
  int batch_errors = 0;
  t0 = std::chrono::steady_clock::now();
  int statements = 0;
  for (int from = 0; from < slots; from += batch) {
    std::vector<store::LeaseSlot> chunk;
    for (int i = from; i < std::min(slots, from + batch); ++i) chunk.push_back(slot_of("batch:m", i));
    auto c = leases->ClaimLeases(chunk, "r0", 30'000, static_cast<int64_t>(chunk.size()));
    ++statements;
    if (!c.ok()) return 1;
    std::vector<store::LeaseFinish> ends;
    for (size_t k = 0; k < chunk.size(); ++k) {
      if ((*c)[k].answer != store::LeaseAnswer::kTaken) return 1;
      ends.push_back({chunk[k].job, chunk[k].due_ms, (*c)[k].run_id, true, ""});
    }
    auto f = leases->FinishLeases(ends, "r0");
    ++statements;
    if (!f.ok()) return 1;
    for (bool held : *f) batch_errors += !held;
  }
  double batch_run_ms = MsSince(t0);
  // 5. Another replica asks for the same slots in batches: each is done.
  t0 = std::chrono::steady_clock::now();
  for (int from = 0; from < slots; from += batch) {
    std::vector<store::LeaseSlot> chunk;
    for (int i = from; i < std::min(slots, from + batch); ++i) chunk.push_back(slot_of("batch:m", i));
    auto c = leases->ClaimLeases(chunk, "r1", 30'000, static_cast<int64_t>(chunk.size()));
    if (!c.ok()) return 1;
    for (const auto& x : *c) batch_errors += x.answer != store::LeaseAnswer::kDone;
  }
  double batch_done_ms = MsSince(t0);

  // 6. REPLICAS replicas race for fresh slots in batches, each taking at most its share.
  std::vector<int> taken_by(static_cast<size_t>(replicas), 0);
  std::vector<int> rounds_of(static_cast<size_t>(replicas), 0);
  std::atomic<int> batch_failed{0};
  t0 = std::chrono::steady_clock::now();
  threads.clear();
  for (int r = 0; r < replicas; ++r)
    threads.emplace_back([&, r] {
      store::WatchLeases* l = store::WatchLeasesOf(*stores[r]);
      const std::string id = "brace" + std::to_string(r);
      for (int from = 0; from < slots; from += batch) {
        std::vector<store::LeaseSlot> open;
        for (int i = from; i < std::min(slots, from + batch); ++i) open.push_back(slot_of("brace:", i));
        while (!open.empty()) {
          ++rounds_of[r];
          const int64_t n = static_cast<int64_t>(open.size());
          auto c = l->ClaimLeases(open, id, 30'000, (n + replicas - 1) / replicas);
          if (!c.ok()) {
            ++batch_failed;
            return;
          }
          std::vector<store::LeaseFinish> ends;
          std::vector<store::LeaseSlot> still;
          for (size_t k = 0; k < open.size(); ++k) {
            switch ((*c)[k].answer) {
              case store::LeaseAnswer::kTaken:
                ends.push_back({open[k].job, open[k].due_ms, (*c)[k].run_id, true, ""});
                break;
              case store::LeaseAnswer::kDone:
                break;
              case store::LeaseAnswer::kHeld:
              case store::LeaseAnswer::kLeft:
                still.push_back(open[k]);
                break;
            }
          }
          taken_by[r] += static_cast<int>(ends.size());
          // The replica runs what it took before it asks again (WORK_US a slot, as a job would).
          if (work_us > 0 && !ends.empty())
            std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(work_us) * ends.size()));
          if (!ends.empty() && !l->FinishLeases(ends, id).ok()) ++batch_failed;
          open = std::move(still);
          // What another replica holds is done by the next ask; wait a moment instead of spinning.
          if (!open.empty() && ends.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
      }
    });
  for (auto& t : threads) t.join();
  double batch_race_ms = MsSince(t0);
  int batch_taken = 0;
  std::string spread;
  for (int r = 0; r < replicas; ++r) {
    batch_taken += taken_by[r];
    spread += (r ? " / " : "") + std::to_string(taken_by[r]) + " (" + std::to_string(rounds_of[r]) + " asks)";
  }
  // Every slot exactly once: one 'ok' run per slot in the store, and as many as were taken.
  auto check = store::OpenPostgresConnection(url);
  int64_t ok_runs = -1;
  if (check.ok()) {
    auto rows = (*check)->Query("SELECT count(*), count(DISTINCT job || '@' || due_ms) FROM watch_runs "
                                "WHERE job LIKE 'brace:%' AND outcome = 'ok'");
    if (rows.ok() && std::get<int64_t>((*rows)[0][0]) == std::get<int64_t>((*rows)[0][1]))
      ok_runs = std::get<int64_t>((*rows)[0][0]);
  }

  std::printf("slots %d, replicas %d, batch %d, work %d us a slot taken (racing)\n", slots, replicas, batch, work_us);
  std::printf("per slot (baseline): run here (claim taken + finish): %.3f ms per slot, %.2f s for all\n",
              run_ms / slots, run_ms / 1000);
  std::printf("per slot (baseline): done elsewhere (claim): %.3f ms per slot\n", done_ms / slots);
  std::printf("per slot (baseline): %d replicas racing: %.3f ms of wall time per slot; slots taken %d of %d (each once: %s), "
              "errors %d\n",
              replicas, race_ms / slots, taken.load(), slots, taken.load() == slots ? "yes" : "NO", failed.load());
  std::printf("batched: run here (claim taken + finish): %.4f ms per slot, %.3f s for all (%d statements)\n",
              batch_run_ms / slots, batch_run_ms / 1000, statements);
  std::printf("batched: done elsewhere (claim): %.4f ms per slot\n", batch_done_ms / slots);
  std::printf("batched: %d replicas racing: %.4f ms of wall time per slot, %.3f s for all; slots taken %d of %d "
              "(each once in the store: %s), errors %d; spread %s\n",
              replicas, batch_race_ms / slots, batch_race_ms / 1000, batch_taken, slots,
              ok_runs == slots && batch_taken == slots ? "yes" : "NO", batch_failed.load(), spread.c_str());
  const bool batched_ok = batch_errors == 0 && batch_failed.load() == 0 && ok_runs == slots && batch_taken == slots;
  stores.clear();
  one.reset();
  (void)(*admin)->ExecScript("DROP SCHEMA " + schema + " CASCADE");
  return taken.load() == slots && failed.load() == 0 && batched_ok ? 0 : 1;
}
