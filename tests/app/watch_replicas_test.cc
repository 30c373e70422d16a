// Several `dw watch` processes on one state store (docs/watch.md), through the real binary.
// PostgreSQL ($DW_TEST_PG_URL, skipped when unset): three replicas share one workspace, the one
// holding the slow monitor's lease is SIGKILLed mid-run, and the store must show every due slot
// run to success exactly once (the killed slot taken over after the lease time), one incident,
// one notification of it per channel and event, and a receipt chain that verifies. A replica
// whose clock is a minute off refuses leases and says why. SQLite: a second `dw watch` on the
// same file is refused, naming the first. And a replica killed holding a batch of claimed leases
// (the monitors of one warehouse, claimed in one statement) has each of those slots run once, by
// the others, after the lease time. Resolutions left without their receipts in a workspace with no
// observe job get them from the "receipts" job of two replicas, each once.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include "actions/actions.h"
#include "base/clock.h"
#include "base/json.h"
#include "incidents/incidents.h"
#include "store/state_store.h"
#include "store/watch_leases.h"
#include "tests/store/store_test_support.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

extern char** environ;

namespace dw {
namespace {
namespace watch_replicas_test {

using namespace std::chrono_literals;
using store::test_support::ScratchLocation;
using testing::RunCommand;
using testing::TempDir;

// A `dw watch` child with its stdout and stderr in files.
struct Watcher {
  pid_t pid = -1;
  std::filesystem::path out, err;
};

Watcher StartWatch(const TempDir& tmp, const std::string& name, const std::vector<std::string>& extra) {
  Watcher w;
  w.out = tmp.path() / (name + ".out");
  w.err = tmp.path() / (name + ".err");
  std::vector<std::string> args = {DW_BINARY, "--workspace", tmp.path().string()};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, w.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, w.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (posix_spawn(&w.pid, args[0].c_str(), &fa, nullptr, argv.data(), environ) != 0) w.pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  return w;
}

// SIGTERMs `w` and waits for it; its exit code (-1 when killed by a signal).
int StopWatch(const Watcher& w) {
  if (w.pid <= 0) return -1;
  kill(w.pid, SIGTERM);
  int status = 0;
  waitpid(w.pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void MakeWarehouse(const std::filesystem::path& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

// The workspace of the replica tests: a fast monitor every 2 s, a slow one (a query of about a
// second) every 3 s on its own warehouse, a check that fails (one NULL) so the signal pass opens
// an incident, and a Slack channel whose webhook nobody answers (the notification stays pending
// in the outbox, where it can be counted).
void WriteWorkspace(const TempDir& tmp, const std::string& state) {
  MakeWarehouse(tmp.path() / "wh.db", "CREATE TABLE t(id INTEGER, v REAL); INSERT INTO t VALUES (1, 41), (2, NULL);");
  MakeWarehouse(tmp.path() / "slow.db", "CREATE TABLE s(v REAL); INSERT INTO s VALUES (1);");
  tmp.Write("dataworkers.yaml",
            "version: 1\n"
            "name: replicas\n"
            "state: \"" + state + "\"\n"
            "warehouses:\n"
            "  main: {type: sqlite, path: wh.db}\n"
            "  slow: {type: sqlite, path: slow.db}\n"
            "checks:\n"
            "  - table: main.t\n"
            "    not_null: [v]\n"
            "monitors:\n"
            "  - {name: fast, warehouse: main, sql: \"SELECT count(*) FROM t\", every: 2s}\n"
            "  - name: slow\n"
            "    warehouse: slow\n"
            "    sql: \"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 600000) "
            "SELECT count(*) FROM c\"\n"
            "    every: 3s\n"
            "notify:\n"
            "  slack: {webhook: \"${DW_REPLICA_TEST_WEBHOOK}\"}\n");
}

// The last `lines` lines of the file at `p` (all of it when shorter).
std::string TailOf(const std::filesystem::path& p, size_t lines) {
  const std::string all = testing::ReadWholeFile(p);
  size_t at = all.size();
  if (at > 0 && all[at - 1] == '\n') --at;  // the last line's own end
  for (size_t n = 0; at > 0; --at)
    if (all[at - 1] == '\n' && ++n == lines) break;
  std::string tail = all.substr(at);
  if (!tail.empty() && tail.back() != '\n') tail += '\n';
  return tail;
}

// One row of a diagnostic query, its cells separated by " | ".
std::string RowText(const store::SqlRow& row) {
  std::string out;
  for (const store::SqlValue& v : row) {
    if (!out.empty()) out += " | ";
    if (const auto* i = std::get_if<int64_t>(&v)) out += std::to_string(*i);
    else if (const auto* d = std::get_if<double>(&v)) out += std::to_string(*d);
    else if (const auto* t = std::get_if<std::string>(&v)) out += *t;
    else out += "NULL";
  }
  return out;
}

int64_t Count(store::SqlConnection& c, const std::string& sql) {
  auto rows = c.Query(sql);
  EXPECT_TRUE(rows.ok()) << sql << ": " << rows.status().ToString();
  if (!rows.ok() || rows->empty()) return -1;
  return std::get<int64_t>((*rows)[0][0]);
}

// How long a test waits for what the replicas must do before it says they did not: generous,
// because CI machines are loaded (a pass that takes 1 s here took several there), and a wait for
// a condition ends as soon as it holds.
constexpr auto kPatience = 60s;

// Polls `done` every 100 ms until it is true or kPatience has passed; whether it became true.
bool WaitFor(const std::function<bool()>& done) {
  for (auto deadline = std::chrono::steady_clock::now() + kPatience;; std::this_thread::sleep_for(100ms)) {
    if (done()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
  }
}

// `dw watch --status --format json` on the workspace in `dir`: null when it fails or prints no JSON.
Json WatchStatus(const std::filesystem::path& dir) {
  auto status = RunCommand(std::string(DW_BINARY) + " --workspace '" + dir.string() + "' watch --status --format json");
  if (status.exit_code != 0) return Json();
  Json st = Json::parse(status.out, nullptr, false);
  return st.is_discarded() ? Json() : st;
}

class WatchReplicasTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (store::test_support::PostgresTestUrl().empty()) GTEST_SKIP() << store::test_support::kPgSkipMessage;
    auto scratch = ScratchLocation::Create("postgresql");
    ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
    scratch_ = std::move(scratch).value();
    setenv("DW_REPLICA_TEST_WEBHOOK", "http://127.0.0.1:9/hooks/replica-test", 1);
    WriteWorkspace(tmp_, scratch_->location());
  }

  // A failed test prints what CI needs to tell why (its log shows only the failing test's
  // output): the store's replicas, leases and runs, and the tail of every replica's stderr and
  // stdout. Replicas a failed assertion left running are then SIGKILLed and reaped.
  void TearDown() override {
    if (HasFailure() && scratch_) PrintStoreState();
    for (const Watcher& x : started_) {
      if (x.pid <= 0) continue;
      int status = 0;
      if (waitpid(x.pid, &status, WNOHANG) == 0) {  // still running: the test ended early
        kill(x.pid, SIGKILL);
        waitpid(x.pid, nullptr, 0);
      }
    }
    if (!HasFailure()) return;
    for (const Watcher& x : started_)
      std::cerr << "---- replica " << x.err.stem().string() << " (pid " << x.pid << "), stderr, last 40 lines:\n"
                << TailOf(x.err, 40) << "---- its stdout, last 20 lines:\n"
                << TailOf(x.out, 20);
  }

  // The watch tables, times in ms since the first replica started (the slots' due times too).
  void PrintStoreState() {
    auto conn = scratch_->Connect();
    if (!conn.ok()) {
      std::cerr << "---- the store could not be read: " << conn.status().ToString() << "\n";
      return;
    }
    const std::string t0 = "(SELECT coalesce(min(started_at), 0) FROM watch_replicas)";
    const std::pair<const char*, std::string> tables[] = {
        {"watch_replicas (replica_id | pid | started | heartbeat | stopped | lease_ms | clock_offset_ms | refusing)",
         "SELECT replica_id, pid, started_at - " + t0 + ", heartbeat_at - " + t0 + ", stopped_at - " + t0 +
             ", lease_ms, clock_offset_ms, refusing FROM watch_replicas ORDER BY started_at"},
        {"watch_leases (job | due | holder | attempts | taken | expires | finished)",
         "SELECT job, due_ms - " + t0 + ", holder, attempts, taken_at - " + t0 + ", expires_at - " + t0 +
             ", finished_at - " + t0 + " FROM watch_leases WHERE job NOT LIKE 'old:%' ORDER BY job, due_ms LIMIT 300"},
        {"watch_runs (job | due | replica | started | finished | outcome | message)",
         "SELECT job, due_ms - " + t0 + ", replica_id, started_at - " + t0 + ", finished_at - " + t0 +
             ", outcome, message FROM watch_runs WHERE job NOT LIKE 'old:%' ORDER BY job, due_ms, id LIMIT 400"},
    };
    for (const auto& [title, sql] : tables) {
      std::cerr << "---- " << title << ":\n";
      auto rows = (*conn)->Query(sql);
      if (!rows.ok()) {
        std::cerr << rows.status().ToString() << "\n";
        continue;
      }
      for (const store::SqlRow& row : *rows) std::cerr << RowText(row) << "\n";
    }
  }

  // A `dw watch` child on the workspace whose output is printed if the test fails.
  Watcher StartReplica(const std::string& name, const std::vector<std::string>& args) {
    started_.push_back(StartWatch(tmp_, name, args));
    return started_.back();
  }

  // Three `dw watch` replicas named prefix0..prefix2 on the workspace, with a 2 s lease time and
  // `extra` arguments.
  std::vector<Watcher> StartThreeReplicas(const std::string& prefix, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"watch", "--lease-time", "2s"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<Watcher> w;
    for (int i = 0; i < 3; ++i) w.push_back(StartReplica(prefix + std::to_string(i), args));
    for (const auto& x : w) EXPECT_GT(x.pid, 0) << "a replica did not start";
    return w;
  }

  // The replica of `w` killed holding a lease, and that lease.
  struct Killed {
    pid_t pid = -1;
    std::string holder;
    int64_t due_ms = 0;
  };
  // Polls the open leases every `poll` for up to kPatience until one of `job` is held by a replica
  // of `w` while `now()` is true, SIGKILLs that replica and reaps it; pid -1 when none was seen.
  static Killed KillTheHolderOf(store::WatchLeases& leases, const std::vector<Watcher>& w, const std::string& job,
                                std::chrono::milliseconds poll, const std::function<bool()>& now = [] { return true; }) {
    for (auto deadline = std::chrono::steady_clock::now() + kPatience; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(poll)) {
      auto open = leases.OpenLeases();
      EXPECT_TRUE(open.ok()) << open.status().ToString();
      if (!open.ok()) return {};
      for (const auto& l : *open) {
        if (l.job != job || !now()) continue;
        for (const auto& x : w)
          if (l.holder.find(":" + std::to_string(x.pid) + ":") != std::string::npos) {
            kill(x.pid, SIGKILL);
            waitpid(x.pid, nullptr, 0);
            return {x.pid, l.holder, l.due_ms};
          }
      }
    }
    return {};
  }

  TempDir tmp_;
  std::unique_ptr<ScratchLocation> scratch_;
  std::vector<Watcher> started_;
};

TEST_F(WatchReplicasTest, ThreeReplicasRunEachSlotOnceAndTakeOverTheKilledOnesLease) {
  SystemClock clock;
  std::vector<Watcher> w = StartThreeReplicas("r");
  if (HasFailure()) return;
  auto store = store::OpenStateStore(scratch_->location(), clock);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  store::WatchLeases* leases = store::WatchLeasesOf(**store);
  ASSERT_NE(leases, nullptr);

  // Wait for a replica to hold the slow monitor's lease, mid-run, and SIGKILL it there.
  const Killed k = KillTheHolderOf(*leases, w, "monitor:slow", 20ms);
  const pid_t killed = k.pid;
  const std::string killed_id = k.holder;
  const int64_t killed_due = k.due_ms;
  ASSERT_GT(killed, 0) << "no replica was ever seen holding monitor:slow";

  // While the other two run on: --status names all three, the killed one goes silent (no
  // heartbeat for a lease time) and the other two have run jobs. Waited for, then asserted.
  Json st;
  WaitFor([&] {
    st = WatchStatus(tmp_.path());
    if (!st.contains("replicas") || st["replicas"].size() != 3) return false;
    int ready = 0;
    for (const Json& r : st["replicas"])
      ready += r["id"] == killed_id ? r["state"] == "silent" : r["state"] == "alive" && !r["recent_runs"].empty();
    return ready == 3;
  });
  ASSERT_TRUE(st.contains("replicas")) << "dw watch --status failed";
  EXPECT_EQ(st["backend"], "postgresql");
  ASSERT_EQ(st["replicas"].size(), 3u) << st.dump();
  std::map<std::string, std::string> state_of;
  for (const Json& r : st["replicas"]) {
    state_of[r["id"]] = r["state"];
    EXPECT_FALSE(r["host"].get<std::string>().empty());
    EXPECT_GT(r["pid"].get<int64_t>(), 0);
    EXPECT_TRUE(r.contains("last_heartbeat") && r.contains("started") && r.contains("leases"));
  }
  EXPECT_EQ(state_of[killed_id], "silent") << st.dump();
  int alive = 0;
  for (const Json& r : st["replicas"]) {
    if (r["id"] == killed_id) continue;
    alive += r["state"] == "alive";
    EXPECT_FALSE(r["recent_runs"].empty()) << "a live replica ran jobs: " << st.dump();
  }
  EXPECT_EQ(alive, 2) << st.dump();
  auto text = RunCommand(std::string(DW_BINARY) + " --workspace '" + tmp_.path().string() + "' watch --status");
  EXPECT_NE(text.out.find("replica " + killed_id + " (silent)"), std::string::npos) << text.out;

  auto conn = scratch_->Connect();
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  auto& c = **conn;
  // The others run on until every lease the killed one held is taken over and finished, each
  // monitor has run three slots, and the hourly check and the daily prune have had their one slot
  // (asserted once below: waited for here, as a loaded host reaches the daily job late); then
  // they are stopped.
  WaitFor([&] {
    return Count(c, "SELECT count(*) FROM watch_leases WHERE finished_at IS NULL AND holder = '" + killed_id + "'") == 0 &&
           Count(c, "SELECT count(*) FROM watch_leases WHERE job = 'monitor:fast'") >= 3 &&
           Count(c, "SELECT count(*) FROM watch_leases WHERE job = 'monitor:slow'") >= 3 &&
           Count(c, "SELECT count(*) FROM watch_runs WHERE job = 'check:table://main/t' AND outcome = 'ok'") >= 1 &&
           Count(c, "SELECT count(*) FROM watch_runs WHERE job = 'prune-metrics' AND outcome = 'ok'") >= 1;
  });
  for (const auto& x : w)
    if (x.pid != killed) {
      EXPECT_EQ(StopWatch(x), 0) << testing::ReadWholeFile(x.err);
    }

  // Every lease ran to success, none left open (the killed one's was taken over).
  EXPECT_EQ(Count(c, "SELECT count(*) FROM watch_leases WHERE finished_at IS NULL"), 0);
  // Exactly one successful run per slot, and never two attempts at once.
  EXPECT_EQ(Count(c, "SELECT count(*) FROM (SELECT job, due_ms FROM watch_runs WHERE outcome = 'ok' "
                     "GROUP BY job, due_ms HAVING count(*) <> 1) d"),
            0);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM watch_leases l WHERE NOT EXISTS (SELECT 1 FROM watch_runs r "
                     "WHERE r.job = l.job AND r.due_ms = l.due_ms AND r.outcome = 'ok')"),
            0);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM watch_runs WHERE outcome IN ('lost', 'failed')"), 0);
  // The killed replica's slot: its attempt never finished, another replica's did, on attempt 2.
  EXPECT_EQ(Count(c, "SELECT count(*) FROM watch_runs WHERE job = 'monitor:slow' AND due_ms = " +
                         std::to_string(killed_due) + " AND replica_id = '" + killed_id + "' AND outcome = 'running'"),
            1);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM watch_runs WHERE job = 'monitor:slow' AND due_ms = " +
                         std::to_string(killed_due) + " AND replica_id <> '" + killed_id + "' AND outcome = 'ok'"),
            1);
  EXPECT_EQ(Count(c, "SELECT attempts FROM watch_leases WHERE job = 'monitor:slow' AND due_ms = " +
                         std::to_string(killed_due)),
            2);
  // No slot skipped: each monitor's slots run from its first to its last without a gap.
  for (auto [job, every] : {std::pair<std::string, int64_t>{"monitor:fast", 2000}, {"monitor:slow", 3000}}) {
    auto rows = c.Query("SELECT due_ms FROM watch_leases WHERE job = $1 ORDER BY due_ms", {job});
    ASSERT_TRUE(rows.ok());
    ASSERT_GE(rows->size(), 3u) << job;
    for (size_t i = 1; i < rows->size(); ++i)
      EXPECT_EQ(std::get<int64_t>((*rows)[i][0]) - std::get<int64_t>((*rows)[i - 1][0]), every)
          << job << " skipped a slot after slot " << i - 1;
  }
  // The hourly check and the daily prune: one slot each, run once however many replicas.
  EXPECT_EQ(Count(c, "SELECT count(*) FROM watch_runs WHERE job = 'check:table://main/t' AND outcome = 'ok'"), 1);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM watch_runs WHERE job = 'prune-metrics' AND outcome = 'ok'"), 1);
  // Three replicas, each with a heartbeat; the two stopped cleanly say so.
  EXPECT_EQ(Count(c, "SELECT count(*) FROM watch_replicas"), 3);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM watch_replicas WHERE stopped_at IS NOT NULL"), 2);

  // One incident for the failed check, whichever replica's pass saw it; one notification of it.
  auto incidents = (*store)->Incidents("", 100);
  ASSERT_TRUE(incidents.ok()) << incidents.status().ToString();
  ASSERT_EQ(incidents->size(), 1u);
  auto outbox = (*store)->OutboxFor((*incidents)[0].id);
  ASSERT_TRUE(outbox.ok());
  std::set<std::string> seen;
  for (const auto& m : *outbox) EXPECT_TRUE(seen.insert(m.channel + "/" + m.event).second) << m.event;
  EXPECT_FALSE(outbox->empty()) << "the incident's opening was notified";
  auto chain = actions::VerifyReceiptChain(**store);
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  EXPECT_TRUE(chain->ok) << chain->problem;
}

// Four slow monitors on one warehouse, due together every 5 s: a replica claims its share of them
// in one batch (and the claim-ahead), and runs them in turn through the monitors' batch runner,
// holding every lease of its share meanwhile.
void WriteBatchWorkspace(const TempDir& tmp, const std::string& state) {
  std::string monitors;
  for (int i = 0; i < 4; ++i)
    monitors += "  - name: b" + std::to_string(i) +
                "\n    warehouse: slow\n"
                "    sql: \"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300000) "
                "SELECT count(*) + " + std::to_string(i) + " FROM c\"\n    every: 5s\n";
  tmp.Write("dataworkers.yaml", "version: 1\nname: batches\nstate: \"" + state +
                                    "\"\nwarehouses:\n  slow: {type: sqlite, path: slow.db}\nmonitors:\n" + monitors);
}

TEST_F(WatchReplicasTest, AReplicaKilledHoldingABatchHasEachOfItsSlotsRunOnceByTheOthers) {
  WriteBatchWorkspace(tmp_, scratch_->location());
  SystemClock clock;
  std::vector<Watcher> w = StartThreeReplicas("b");
  if (HasFailure()) return;
  auto store = store::OpenStateStore(scratch_->location(), clock);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  store::WatchLeases* leases = store::WatchLeasesOf(**store);
  ASSERT_NE(leases, nullptr);

  // Wait for a replica holding two or more of the batch's leases at once, and SIGKILL it there.
  pid_t killed = -1;
  std::string killed_id;
  for (auto deadline = std::chrono::steady_clock::now() + kPatience; killed < 0 && std::chrono::steady_clock::now() < deadline;
       std::this_thread::sleep_for(20ms)) {
    auto open = leases->OpenLeases();
    ASSERT_TRUE(open.ok()) << open.status().ToString();
    auto now = leases->DatabaseNowMs();
    ASSERT_TRUE(now.ok());
    std::map<std::string, int> held;
    for (const auto& l : *open)
      if (l.job.rfind("monitor:b", 0) == 0 && l.expires_ms > *now) ++held[l.holder];
    for (const auto& [holder, n] : held) {
      if (n < 2) continue;
      for (const auto& x : w)
        if (holder.find(":" + std::to_string(x.pid) + ":") != std::string::npos) {
          kill(x.pid, SIGKILL);
          waitpid(x.pid, nullptr, 0);
          killed = x.pid;
          killed_id = holder;
        }
      if (killed >= 0) break;
    }
  }
  ASSERT_GT(killed, 0) << "no replica was ever seen holding two of the batch's leases";

  // The lease time (2 s) passes, the others take the killed one's slots over and run on: until
  // none of its leases is left unfinished and each monitor has run two slots.
  auto conn = scratch_->Connect();
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  auto& c = **conn;
  WaitFor([&] {
    if (Count(c, "SELECT count(*) FROM watch_leases WHERE finished_at IS NULL AND holder = '" + killed_id + "'") != 0)
      return false;
    for (int i = 0; i < 4; ++i)
      if (Count(c, "SELECT count(*) FROM watch_leases WHERE job = 'monitor:b" + std::to_string(i) + "'") < 2) return false;
    return true;
  });
  for (const auto& x : w)
    if (x.pid != killed) {
      EXPECT_EQ(StopWatch(x), 0) << testing::ReadWholeFile(x.err);
    }
  // The slots the killed replica held when it died: its attempts there never finished.
  auto held = c.Query("SELECT job, due_ms FROM watch_runs WHERE replica_id = $1 AND outcome = 'running'", {killed_id});
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  ASSERT_GE(held->size(), 2u) << "the killed replica held a batch of leases";
  for (const auto& row : *held) {
    const std::string job = std::get<std::string>(row[0]);
    const int64_t due = std::get<int64_t>(row[1]);
    const std::string slot = job + "@" + std::to_string(due);
    // Each run once, to success, by another replica, on the lease's second attempt.
    auto ok = c.Query("SELECT replica_id FROM watch_runs WHERE job = $1 AND due_ms = CAST($2 AS BIGINT) AND outcome = 'ok'",
                      {job, due});
    ASSERT_TRUE(ok.ok());
    ASSERT_EQ(ok->size(), 1u) << slot;
    EXPECT_NE(std::get<std::string>((*ok)[0][0]), killed_id) << slot;
    auto attempts = c.Query("SELECT attempts FROM watch_leases WHERE job = $1 AND due_ms = CAST($2 AS BIGINT)", {job, due});
    ASSERT_TRUE(attempts.ok());
    ASSERT_EQ(attempts->size(), 1u);
    EXPECT_EQ(std::get<int64_t>((*attempts)[0][0]), 2) << slot;
  }
  // And across the whole run: every slot exactly once, none left open, none lost or failed.
  EXPECT_EQ(Count(c, "SELECT count(*) FROM watch_leases WHERE finished_at IS NULL"), 0);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM (SELECT job, due_ms FROM watch_runs WHERE outcome = 'ok' "
                     "GROUP BY job, due_ms HAVING count(*) <> 1) d"),
            0);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM watch_runs WHERE outcome IN ('lost', 'failed')"), 0);
  for (int i = 0; i < 4; ++i) {
    auto rows = c.Query("SELECT due_ms FROM watch_leases WHERE job = $1 ORDER BY due_ms", {"monitor:b" + std::to_string(i)});
    ASSERT_TRUE(rows.ok());
    ASSERT_GE(rows->size(), 2u) << i;
    for (size_t k = 1; k < rows->size(); ++k)
      EXPECT_EQ(std::get<int64_t>((*rows)[k][0]) - std::get<int64_t>((*rows)[k - 1][0]), 5000)
          << "monitor:b" << i << " skipped a slot";
  }
}

// A workspace with no monitor, check or platform (no observe job, so no incidents pass) and
// resolutions whose receipts are missing (a `dw incidents resolve` killed before writing them):
// the "receipts" job of two replicas writes each once, on whichever replica holds its slot.
TEST_F(WatchReplicasTest, TwoReplicasWriteEachMissingReceiptOnceWithNoObserveJob) {
  tmp_.Write("dataworkers.yaml", "version: 1\nname: receipts\nstate: \"" + scratch_->location() +
                                    "\"\nnotify:\n  slack: {webhook: \"${DW_REPLICA_TEST_WEBHOOK}\"}\n");
  SystemClock clock;
  auto store = store::OpenStateStore(scratch_->location(), clock);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  config::Workspace ws;
  ws.name = "receipts";
  incidents::IncidentDesk desk(**store, static_cast<const graph::GraphIndex*>(nullptr), clock, incidents::DeskOptionsFor(ws));
  incidents::SignalBatch batch;
  for (int i = 0; i < 4; ++i) {
    incidents::Signal s;
    s.kind = incidents::SignalKind::kCheck;
    s.asset_id = "table://main/r" + std::to_string(i);
    s.key = "check:" + s.asset_id + ":not_null(id)";
    s.at = clock.Now() - 10min;
    s.bad = true;
    s.summary = "not_null(id) failed";
    batch.signals.push_back(s);
  }
  auto opened = desk.Evaluate(batch);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  ASSERT_EQ(opened->opened.size(), 4u);
  for (const std::string& id : opened->opened) ASSERT_TRUE(desk.Resolve(id, "ana@example.com", "fixed").ok());
  auto receipts = [&] {
    auto all = (*store)->Receipts();
    EXPECT_TRUE(all.ok());
    return all.ok() ? all->size() : 0;
  };
  ASSERT_EQ(receipts(), 0u);

  std::vector<Watcher> w;
  for (int i = 0; i < 2; ++i) w.push_back(StartReplica("s" + std::to_string(i), {"watch", "--lease-time", "2s"}));
  for (const auto& x : w) ASSERT_GT(x.pid, 0);
  // The job's first slot is the current minute's, due within its jitter (at most 6 s) of start.
  WaitFor([&] { return receipts() >= 4; });
  // Both replicas run on for a while: nothing more is written (a wrong second write would show).
  std::this_thread::sleep_for(3s);
  std::string out;
  for (const auto& x : w) {
    EXPECT_EQ(StopWatch(x), 0) << testing::ReadWholeFile(x.err);
    out += testing::ReadWholeFile(x.out);
  }
  ASSERT_EQ(receipts(), 4u) << out;
  std::map<std::string, int> lines;
  for (size_t at = out.find(" for incident "); at != std::string::npos; at = out.find(" for incident ", at + 1))
    ++lines[out.substr(at + 14, out.find('\n', at) - at - 14)];
  for (const std::string& id : opened->opened) {
    EXPECT_EQ(lines[id], 1) << id << " in: " << out;
    auto r = actions::ReceiptOfIncident(**store, id);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->has_value()) << id;
  }
  auto conn = scratch_->Connect();
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  // The sweep's slots were leased like any other job's: each ran once, none failed.
  EXPECT_GE(Count(**conn, "SELECT count(*) FROM watch_runs WHERE job = 'receipts' AND outcome = 'ok'"), 1);
  EXPECT_EQ(Count(**conn, "SELECT count(*) FROM (SELECT due_ms FROM watch_runs WHERE job = 'receipts' AND outcome = 'ok' "
                          "GROUP BY due_ms HAVING count(*) <> 1) d"),
            0);
  EXPECT_EQ(Count(**conn, "SELECT count(*) FROM watch_runs WHERE outcome IN ('lost', 'failed')"), 0);
  auto chain = actions::VerifyReceiptChain(**store);
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  EXPECT_TRUE(chain->ok) << chain->problem;
}

TEST_F(WatchReplicasTest, AReplicaWhoseClockIsAMinuteOffRefusesLeasesAndSaysWhy) {
  // --now a minute back: the replica's clock runs 60 s behind the database's.
  std::string behind = FormatRfc3339(SystemClock().Now() - std::chrono::seconds(60));
  Watcher skewed = StartReplica("skewed", {"--now", behind, "watch", "--lease-time", "2s"});
  ASSERT_GT(skewed.pid, 0);
  // Its status shows it registered and refusing (a few seconds on a quiet machine).
  Json st;
  WaitFor([&] {
    st = WatchStatus(tmp_.path());
    return st.contains("replicas") && st["replicas"].size() == 1 && !st["replicas"][0]["refusing"].get<std::string>().empty();
  });
  EXPECT_EQ(StopWatch(skewed), 0);
  ASSERT_TRUE(st.contains("replicas")) << "dw watch --status failed";
  ASSERT_EQ(st["replicas"].size(), 1u) << st.dump();
  std::string refusing = st["replicas"][0]["refusing"];
  EXPECT_NE(refusing.find("behind the state store's"), std::string::npos) << refusing;
  EXPECT_LT(st["replicas"][0]["clock_offset_ms"].get<int64_t>(), -55000);
  std::string err = testing::ReadWholeFile(skewed.err);
  EXPECT_NE(err.find("refuses to take leases: its clock is 6"), std::string::npos) << err;
  // It ran nothing: no slot was leased.
  auto conn = scratch_->Connect();
  ASSERT_TRUE(conn.ok());
  EXPECT_EQ(Count(**conn, "SELECT count(*) FROM watch_runs"), 0);
}

TEST(WatchSqliteTest, ASecondWatchOnTheSameSqliteFileIsRefusedNamingTheFirst) {
  TempDir tmp;
  tmp.Write("dataworkers.yaml", "version: 1\nname: single\n");
  Watcher first = StartWatch(tmp, "first", {"watch"});
  ASSERT_GT(first.pid, 0);
  // The first one holds the lock once its status names it.
  std::string ws = std::string(DW_BINARY) + " --workspace '" + tmp.path().string() + "'";
  Json st;
  WaitFor([&] {
    st = WatchStatus(tmp.path());
    return st.contains("replicas") && !st["replicas"].empty();
  });
  ASSERT_TRUE(st.contains("replicas")) << "dw watch --status failed";
  EXPECT_EQ(st["backend"], "sqlite");
  ASSERT_EQ(st["replicas"].size(), 1u) << st.dump();
  EXPECT_EQ(st["replicas"][0]["pid"], first.pid);
  auto second = RunCommand(ws + " watch");
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_NE(second.err.find("already watched by dw watch pid " + std::to_string(first.pid)), std::string::npos)
      << second.err;
  EXPECT_NE(second.err.find("SQLite keeps a single dw watch replica"), std::string::npos) << second.err;
  // A SIGKILLed watcher leaves no stale lock: the next one starts.
  kill(first.pid, SIGKILL);
  waitpid(first.pid, nullptr, 0);
  auto after = RunCommand(ws + " watch --status");
  EXPECT_NE(after.out.find("no dw watch is running on it"), std::string::npos) << after.out;
  Watcher next = StartWatch(tmp, "next", {"watch"});
  // Stopped once it holds the lock (its status names it), it stops cleanly.
  EXPECT_TRUE(WaitFor([&] {
    Json now = WatchStatus(tmp.path());
    return now.contains("replicas") && now["replicas"].size() == 1 && now["replicas"][0]["pid"] == next.pid;
  })) << "the next dw watch never took the lock: " << testing::ReadWholeFile(next.err);
  EXPECT_EQ(StopWatch(next), 0) << testing::ReadWholeFile(next.err);
}

// A large old history (300,000 finished slots of 1,000 jobs that are no longer in the workspace,
// each with its run, and 20 slots still owed a run): the replicas keep 10 minutes of it, so the
// lease-history job prunes on its first run; the replica running it is SIGKILLed mid-prune.
TEST_F(WatchReplicasTest, AReplicaKilledWhilePruningHasThePruneTakenOverAndEverySlotStillRunsOnce) {
  SystemClock clock;
  auto store = store::OpenStateStore(scratch_->location(), clock);  // migrates the schema
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  store::WatchLeases* leases = store::WatchLeasesOf(**store);
  ASSERT_NE(leases, nullptr);
  auto conn = scratch_->Connect();
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  auto& c = **conn;
  ASSERT_TRUE(c.ExecScript("INSERT INTO watch_leases (job, due_ms, holder, run_id, attempts, taken_at, expires_at, "
                           "finished_at) SELECT 'old:' || (g % 1000), (g / 1000) * 1000, 'gone', 0, 1, 0, 1, 1 "
                           "FROM generate_series(0, 299999) g;"
                           "INSERT INTO watch_runs (job, due_ms, replica_id, started_at, finished_at, outcome, message) "
                           "SELECT job, due_ms, holder, due_ms, due_ms + 1, 'ok', '' FROM watch_leases;"
                           "INSERT INTO watch_leases (job, due_ms, holder, run_id, attempts, taken_at, expires_at) "
                           "SELECT 'owed:' || g, 0, 'gone', 0, 1, 0, 1 FROM generate_series(0, 19) g;"
                           "ANALYZE watch_leases; ANALYZE watch_runs;")
                  .ok());
  std::vector<Watcher> w = StartThreeReplicas("p", {"--lease-history", "10m"});
  if (HasFailure()) return;

  // Wait for a replica to hold the prune's lease, mid-prune (it has deleted some of the old slots
  // already), and SIGKILL it there.
  const Killed k = KillTheHolderOf(*leases, w, "prune-lease-history", 5ms, [&] {
    return Count(c, "SELECT count(*) FROM watch_leases WHERE job LIKE 'old:%'") < 300'000;
  });
  const pid_t killed = k.pid;
  const std::string killed_id = k.holder;
  const int64_t prune_due = k.due_ms;
  int64_t old_when_killed = -1;
  ASSERT_GT(killed, 0) << "no replica was ever seen holding the prune's lease";
  old_when_killed = Count(c, "SELECT count(*) FROM watch_leases WHERE job LIKE 'old:%'");

  // After the lease time another replica takes the prune's slot over and finishes it.
  const std::string slot = "job = 'prune-lease-history' AND due_ms = " + std::to_string(prune_due);
  // Then the others run on until the fast monitor has run three slots.
  WaitFor([&] {
    return Count(c, "SELECT count(*) FROM watch_leases WHERE finished_at IS NOT NULL AND " + slot) > 0 &&
           Count(c, "SELECT count(*) FROM watch_runs WHERE job = 'monitor:fast' AND outcome = 'ok'") >= 3;
  });
  for (const auto& x : w)
    if (x.pid != killed) {
      EXPECT_EQ(StopWatch(x), 0) << testing::ReadWholeFile(x.err);
    }

  // The prune's slot: the killed attempt never finished; another replica's did, on attempt 2.
  EXPECT_EQ(Count(c, "SELECT attempts FROM watch_leases WHERE finished_at IS NOT NULL AND " + slot), 2);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM watch_runs WHERE outcome = 'running' AND replica_id = '" + killed_id +
                         "' AND " + slot),
            1);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM watch_runs WHERE outcome = 'ok' AND " + slot), 1);
  // It pruned (before and after the kill), never a slot owed a run, nor a job's newest slot, nor
  // the run of a slot it kept.
  const int64_t old_left = Count(c, "SELECT count(*) FROM watch_leases WHERE job LIKE 'old:%'");
  EXPECT_LT(old_when_killed, 300'000) << "the killed replica had pruned some";
  EXPECT_LT(old_left, old_when_killed) << "the replica that took over pruned more";
  EXPECT_EQ(Count(c, "SELECT count(DISTINCT job) FROM watch_leases WHERE job LIKE 'old:%'"), 1000);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM watch_leases WHERE job LIKE 'old:%' AND due_ms = 299000"), 1000);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM watch_leases WHERE job LIKE 'owed:%' AND finished_at IS NULL"), 20);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM watch_leases l WHERE job LIKE 'old:%' AND NOT EXISTS "
                     "(SELECT 1 FROM watch_runs r WHERE r.job = l.job AND r.due_ms = l.due_ms)"),
            0);
  // Every slot of the workspace's jobs ran to success exactly once, across the kill and the prune.
  EXPECT_EQ(Count(c, "SELECT count(*) FROM (SELECT job, due_ms FROM watch_runs WHERE outcome = 'ok' "
                     "AND job NOT LIKE 'old:%' GROUP BY job, due_ms HAVING count(*) <> 1) d"),
            0);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM watch_leases l WHERE finished_at IS NOT NULL AND job NOT LIKE 'old:%' "
                     "AND NOT EXISTS (SELECT 1 FROM watch_runs r WHERE r.job = l.job AND r.due_ms = l.due_ms "
                     "AND r.outcome = 'ok')"),
            0);
  EXPECT_GE(Count(c, "SELECT count(*) FROM watch_runs WHERE job = 'monitor:fast' AND outcome = 'ok'"), 3);
  EXPECT_EQ(Count(c, "SELECT count(*) FROM watch_runs WHERE outcome IN ('lost', 'failed')"), 0);
}

}  // namespace watch_replicas_test
}  // namespace
}  // namespace dw
