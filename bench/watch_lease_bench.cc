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
// same run. Last, the same through REPLICAS WatchLoops with their ReplicaLeases, as `dw watch`
// runs: SLOTS jobs due at once, the pass's wall time and the runs of each replica. --work-us makes each racing replica spend that long per slot it took before asking
// again (as it would running the jobs): the spread then shows the share bound at work.
//
// Step 6 keeps the share rule replicas had before (each statement takes ceil(what is left /
// REPLICAS)) as the baseline of the spread; step 7 goes through ReplicaLeases, whose share is
// counted from the wake-up (observe/watch/fair_share.h).
//
// Last (--history ROWS, default 2,000,000; 0 skips it): the lease and run tables filled with ROWS
// finished slots each (10,000 jobs a minute, as many minutes back as that makes), the claim and
// the finish of the next 10,000 slots timed on that history; then the history pruned to the last
// --keep-min minutes (default 60) through PruneWatchHistory's bounded steps (2,000 slots each, as
// dw watch takes them) (the steps timed: how
// long one holds its rows), and the claim and finish of the following 10,000 slots timed again.
// Before the prune, the sweep a replica makes for abandoned slots (AbandonedLeases) is timed on
// the whole history.
//
// usage: watch_lease_bench --pg URL [--slots N] [--replicas N] [--batch N] [--work-us N]
//                          [--history ROWS] [--keep-min M]
#include <atomic>
#include <mutex>
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
#include "observe/watch/replica_leases.h"
#include "observe/watch/watch_loop.h"

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

int64_t Count(store::SqlConnection& c, const std::string& sql) {
  auto rows = c.Query(sql);
  if (!rows.ok() || rows->empty()) return -1;
  return std::get<int64_t>((*rows)[0][0]);
}

int main(int argc, char** argv) {
  std::string pg;
  int slots = 10000, replicas = 3, batch = 10000, work_us = 0, history = 2'000'000, keep_min = 60;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--pg") && i + 1 < argc) pg = argv[++i];
    else if (!std::strcmp(argv[i], "--slots") && i + 1 < argc) slots = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--replicas") && i + 1 < argc) replicas = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--batch") && i + 1 < argc) batch = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--work-us") && i + 1 < argc) work_us = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--history") && i + 1 < argc) history = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--keep-min") && i + 1 < argc) keep_min = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: watch_lease_bench --pg URL [--slots N] [--replicas N] [--batch N] [--work-us N] "
                   "[--history ROWS] [--keep-min M]\n");
      return 2;
    }
  }
  if (pg.empty() || slots <= 0 || replicas <= 0 || batch <= 0 || batch > static_cast<int>(store::kMaxLeaseBatch) ||
      history < 0 || keep_min <= 0) {
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
              case store::LeaseAnswer::kPruned:
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

  // 7. Through the loop, as `dw watch` runs: REPLICAS WatchLoops, each with its ReplicaLeases over
  // its own store connection, SLOTS no-op jobs in 10 groups all due at once (jitter 0, hourly, so
  // every replica names the same slot), each replica calling RunDue until every slot is accounted
  // for (run here or done elsewhere). The jobs of a group run through one batch runner call, as
  // the monitors do. WORK_US is each run's work.
  SystemClock sys;
  std::vector<std::unique_ptr<observe::watch::ReplicaLeases>> reps;
  for (int r = 0; r < replicas; ++r) {
    store::WatchReplica self = observe::watch::ThisReplica(sys, 30'000);
    self.id += ":loop" + std::to_string(r);
    reps.push_back(std::make_unique<observe::watch::ReplicaLeases>(*store::WatchLeasesOf(*stores[r]), sys, self,
                                                                   observe::watch::ReplicaOptions{}, nullptr));
    if (!reps.back()->Beat().ok()) return 1;
  }
  for (auto& rep : reps)
    if (!rep->Beat().ok()) return 1;  // now each counts every replica alive
  std::vector<std::unique_ptr<observe::watch::WatchLoop>> loops;
  std::mutex last_run_mu;
  std::chrono::steady_clock::time_point last_run_end;
  std::vector<std::atomic<int>> loop_runs(static_cast<size_t>(replicas));
  for (int r = 0; r < replicas; ++r) {
    loops.push_back(std::make_unique<observe::watch::WatchLoop>(
        sys, observe::watch::WatchOptions{.leases = reps[r].get(), .jitter_fraction = 0, .claim_ahead_ms = 2000}));
    // As the monitors kind: the due jobs of a group run through one batch runner call.
    if (!loops.back()
             ->AddBatchRunner("noop",
                              [&, r](const std::vector<observe::watch::BatchItem>& items) {
                                loop_runs[r] += static_cast<int>(items.size());
                                if (work_us > 0)
                                  std::this_thread::sleep_for(std::chrono::microseconds(
                                      static_cast<int64_t>(work_us) * static_cast<int64_t>(items.size())));
                                std::lock_guard<std::mutex> lock(last_run_mu);
                                last_run_end = std::chrono::steady_clock::now();
                                return std::vector<Status>(items.size(), Status::Ok());
                              })
             .ok())
      return 1;
    for (int i = 0; i < slots; ++i)
      if (!loops.back()
               ->AddJob({"loop:m" + std::to_string(i), "warehouse:" + std::to_string(i % 10), 3'600'000,
                         [](int64_t, int) { return Status::Ok(); }, "noop"})
               .ok())
        return 1;
  }
  std::vector<int> loop_wakeups(static_cast<size_t>(replicas), 0);
  t0 = std::chrono::steady_clock::now();
  threads.clear();
  for (int r = 0; r < replicas; ++r)
    threads.emplace_back([&, r] {
      for (;;) {
        ++loop_wakeups[r];
        loops[r]->RunDue();
        const int64_t next = loops[r]->MillisUntilNextDue();
        if (next > 60'000) return;  // every slot of this hour is accounted for
        if (next > 0) std::this_thread::sleep_for(std::chrono::milliseconds(next));
      }
    });
  for (auto& t : threads) t.join();
  double loop_ms = MsSince(t0);
  double runs_done_ms = std::chrono::duration<double, std::milli>(last_run_end - t0).count();
  int loop_total = 0;
  std::string loop_spread;
  for (int r = 0; r < replicas; ++r) {
    loop_total += loop_runs[r].load();
    loop_spread += (r ? " / " : "") + std::to_string(loop_runs[r].load()) + " (" + std::to_string(loop_wakeups[r]) +
                   " wake-ups)";
  }
  int64_t loop_ok = -1;
  if (check.ok()) {
    auto rows = (*check)->Query("SELECT count(*), count(DISTINCT job) FROM watch_runs WHERE job LIKE 'loop:%' AND outcome = 'ok'");
    if (rows.ok() && std::get<int64_t>((*rows)[0][0]) == std::get<int64_t>((*rows)[0][1]))
      loop_ok = std::get<int64_t>((*rows)[0][0]);
  }

  // 8. A large history, then pruned: the claim and finish of 10,000 slots on each.
  const int hist_jobs = 10000;
  double hist_fill_ms = 0, hist_claim_ms = 0, hist_finish_ms = 0, pruned_claim_ms = 0, pruned_finish_ms = 0;
  double prune_ms = 0, prune_step_max_ms = 0;
  double sweep_ms = 0;     // one AbandonedLeases(1000) on the whole history, the mean of kSweeps
  size_t sweep_found = 0;  // the abandoned slots it found (the history has none)
  constexpr int kSweeps = 20;
  int prune_steps = 0;
  int64_t pruned_rows = 0, kept_leases = -1;
  bool hist_ok = true;
  if (history > 0 && check.ok()) {
    auto db_now = leases->DatabaseNowMs();
    if (!db_now.ok()) return 1;
    const int64_t minute = 60'000;
    const int64_t latest = *db_now / minute * minute;  // the newest minute of history
    const int minutes = (history + hist_jobs - 1) / hist_jobs;
    t0 = std::chrono::steady_clock::now();
    const std::string base = std::to_string(latest - static_cast<int64_t>(minutes - 1) * minute);
    const std::string n = std::to_string(history);
    // Slot g: job hist:m<g % jobs>, due base + (g / jobs) minutes, run and finished a second in.
    if (!(*check)->ExecScript(
              "INSERT INTO watch_leases (job, due_ms, holder, run_id, attempts, taken_at, expires_at, finished_at) "
              "SELECT 'hist:m' || (g % " + std::to_string(hist_jobs) + "), " + base + " + (g / " +
              std::to_string(hist_jobs) + ") * 60000, 'old', 0, 1, " + base + " + (g / " + std::to_string(hist_jobs) +
              ") * 60000 + 100, " + base + " + (g / " + std::to_string(hist_jobs) + ") * 60000 + 30100, " + base +
              " + (g / " + std::to_string(hist_jobs) + ") * 60000 + 1000 FROM generate_series(0, " + n + " - 1) g;"
              "INSERT INTO watch_runs (job, due_ms, replica_id, started_at, finished_at, outcome, message) "
              "SELECT job, due_ms, holder, taken_at, finished_at, 'ok', '' FROM watch_leases WHERE job LIKE 'hist:%';"
              "ANALYZE watch_leases; ANALYZE watch_runs;")
             .ok())
      return 1;
    hist_fill_ms = MsSince(t0);
    auto claim_finish = [&](int64_t due, double& claim_ms, double& finish_ms) {
      std::vector<store::LeaseSlot> next;
      for (int i = 0; i < hist_jobs; ++i) next.push_back({"hist:m" + std::to_string(i), due});
      auto t = std::chrono::steady_clock::now();
      auto c = leases->ClaimLeases(next, "r0", 30'000, hist_jobs);
      claim_ms = MsSince(t);
      if (!c.ok()) {
        hist_ok = false;
        return;
      }
      std::vector<store::LeaseFinish> ends;
      for (int i = 0; i < hist_jobs; ++i) {
        if ((*c)[static_cast<size_t>(i)].answer != store::LeaseAnswer::kTaken) hist_ok = false;
        ends.push_back({next[static_cast<size_t>(i)].job, due, (*c)[static_cast<size_t>(i)].run_id, true, ""});
      }
      t = std::chrono::steady_clock::now();
      auto f = leases->FinishLeases(ends, "r0");
      finish_ms = MsSince(t);
      if (!f.ok()) hist_ok = false;
    };
    claim_finish(latest + minute, hist_claim_ms, hist_finish_ms);
    // What each replica asks every tenth of its lease time: the abandoned slots, on this history.
    auto sweep_t = std::chrono::steady_clock::now();
    for (int i = 0; i < kSweeps; ++i) {
      auto found = leases->AbandonedLeases(1000);
      if (!found.ok()) hist_ok = false;
      else sweep_found = found->size();
    }
    sweep_ms = MsSince(sweep_t) / kSweeps;
    t0 = std::chrono::steady_clock::now();
    for (;;) {
      auto step_t = std::chrono::steady_clock::now();
      auto step = leases->PruneWatchHistory(static_cast<int64_t>(keep_min) * minute, 2000);
      prune_step_max_ms = std::max(prune_step_max_ms, MsSince(step_t));
      ++prune_steps;
      if (!step.ok()) {
        hist_ok = false;
        break;
      }
      pruned_rows += step->total();
      if (step->leases < 2000) break;
    }
    prune_ms = MsSince(t0);
    (void)(*check)->ExecScript("ANALYZE watch_leases; ANALYZE watch_runs;");
    kept_leases = Count(**check, "SELECT count(*) FROM watch_leases WHERE job LIKE 'hist:%'");
    claim_finish(latest + 2 * minute, pruned_claim_ms, pruned_finish_ms);
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
  std::printf("batched, the share rule before (ceil(left / replicas) each ask): %d replicas racing: %.4f ms of wall time per slot, %.3f s for all; slots taken %d of %d "
              "(each once in the store: %s), errors %d; spread %s\n",
              replicas, batch_race_ms / slots, batch_race_ms / 1000, batch_taken, slots,
              ok_runs == slots && batch_taken == slots ? "yes" : "NO", batch_failed.load(), spread.c_str());
  std::printf("through the loop (ReplicaLeases: the share counted from the wake-up): %d replicas, %d jobs due at once: every run done after %.3f s (%.4f ms a slot), "
              "every replica knowing every slot accounted for after %.3f s; runs %d of %d (each once in the store: %s); "
              "spread %s\n",
              replicas, slots, runs_done_ms / 1000, runs_done_ms / slots, loop_ms / 1000, loop_total, slots,
              loop_ok == slots && loop_total == slots ? "yes" : "NO", loop_spread.c_str());
  if (history > 0)
    std::printf("history: %d finished slots (and their runs) filled in %.1f s; the next %d slots on it: claim %.3f s, "
                "finish %.3f s; pruned to the last %d min in %d steps of at most 2000 slots with their runs (%.1f s, the longest "
                "step %.0f ms, %lld rows deleted, %lld leases kept); the following %d slots: claim %.3f s, finish "
                "%.3f s (%s); the sweep for abandoned slots on the whole history: %.3f ms (%zu found)\n",
                history, hist_fill_ms / 1000, hist_jobs, hist_claim_ms / 1000, hist_finish_ms / 1000, keep_min,
                prune_steps, prune_ms / 1000, prune_step_max_ms, static_cast<long long>(pruned_rows),
                static_cast<long long>(kept_leases), hist_jobs, pruned_claim_ms / 1000, pruned_finish_ms / 1000,
                hist_ok ? "every slot taken and finished" : "FAILED", sweep_ms, sweep_found);
  const bool batched_ok = hist_ok && loop_ok == slots && loop_total == slots && batch_errors == 0 && batch_failed.load() == 0 && ok_runs == slots && batch_taken == slots;
  loops.clear();
  reps.clear();
  stores.clear();
  one.reset();
  (void)(*admin)->ExecScript("DROP SCHEMA " + schema + " CASCADE");
  return taken.load() == slots && failed.load() == 0 && batched_ok ? 0 : 1;
}
