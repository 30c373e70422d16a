// Kill -9 in the judgement and action write paths and in `dw collect` (docs/RELIABILITY.md): the
// writers tests/crash/crash_consistency_test.cc does not cover. Each is SIGKILLed at seeded random
// moments on SQLite and PostgreSQL ($DW_TEST_PG_URL; skipped when unset), and after every kill the
// store is reopened (migrations all applied, SQLite integrity_check ok, receipt chain verified) and
// checked for what the writer acknowledged, for nothing half-written, and for recovery without a
// manual step (the next pass of the same writer finishes the work exactly once):
//   - `dw collect` (the real binary against in-process simulators of the loyalty example's Flink
//     and the EV example's Kestra): a printed report means every event of the pass is there;
//     each platform's events and cursors are written in one transaction, so a platform's events are
//     all there or none; a completing pass afterwards ends with exactly the events of a clean run.
//   - incidents opening and grouping through `dw watch --once` (the real binary over a SQLite
//     warehouse of 8 tables, each failing two checks; a fresh store per kill): an incident printed
//     opened ("incident opened ID") is there with both checks' signals and its `open` notice in
//     the outbox; no incident is there without them, none twice for a table; the next `dw watch
//     --once` opens the rest, never a second for a table.
//   - approvals through `dw approve` (one run per proposal, a sequence killed at a seeded moment):
//     a decision whose acceptance was printed is there; a proposal is approved exactly when its
//     `approved` notice is queued and one decision event is recorded; approving again after the
//     crash is refused (exit 1) for an approved proposal and accepted for the one the kill left
//     pending.
//   - receipts on resolve through `dw incidents resolve --format json` (a sequence of runs): a
//     resolution whose receipt was printed has it and its `resolved` notice; after `dw watch
//     --once` (its "receipts" job, the watch loop's retry, in a workspace with no check) every
//     resolved incident has exactly one.
// CI makes a few kills per writer; bench/crash.sh makes 200 (DW_CRASH_KILLS), DW_CRASH_SEED replays.
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "actions/actions.h"
#include "base/clock.h"
#include "base/json.h"
#include "base/rfc3339.h"
#include "incidents/incidents.h"
#include "sim/sim_support.h"
#include "store/migrations.h"
#include "tests/actions/actions_test_support.h"
#include "store/state_store.h"
#include "store/sql_connection.h"
#include "tests/crash/crash_harness.h"
#include "tests/crash/reopen_check.h"
#include "tests/crash/writer_fixture.h"
#include "tests/store/store_test_support.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw::crash {
namespace {
namespace crash_writers_test {

using store::test_support::ScratchLocation;
using namespace std::chrono_literals;

class CrashWritersTest : public WriterFixture {};

// ---- dw collect ----------------------------------------------------------------------------

// One stored change event as a clean run writes it (the store's id and observed time aside).
std::string EventLine(const store::ChangeEvent& e) {
  return e.dedup_key + " | " + e.kind + " | " + e.asset_id + " | " + FormatRfc3339(e.happened_at) + " | " +
         std::to_string(e.risk);
}

std::set<std::string> StoredEvents(store::StateStore& st) {
  auto all = st.ChangeEventsBetween(TimePoint(std::chrono::seconds(0)), TimePoint(std::chrono::seconds(4000000000)));
  EXPECT_TRUE(all.ok()) << all.status().ToString();
  std::set<std::string> out;
  if (!all.ok()) return out;
  for (const auto& e : *all) {
    EXPECT_TRUE(out.insert(EventLine(e)).second) << "an event stored twice: " << EventLine(e);
  }
  return out;
}

// Runs `dw collect --format json` on the workspace `dir`, killing it after `kill_after` (never
// when zero).
BinaryRun RunCollect(const std::filesystem::path& dir, std::chrono::microseconds kill_after) {
  return RunBinary({DW_BINARY, "--workspace", dir.string(), "--now", "2026-11-25T02:36:00Z", "collect", "--format", "json"},
                   kill_after.count() == 0 ? std::chrono::steady_clock::time_point::max()
                                           : std::chrono::steady_clock::now() + kill_after);
}

// The workspace of the collect test: the two simulated platforms (the loyalty example's Flink,
// the EV example's Kestra; the Kafka Connect and Schema Registry collectors record nothing on a
// first pass, their first answers being the baseline) (`only`: just that one), the
// state store at `location`.
void WriteCollectWorkspace(const std::filesystem::path& dir, const std::map<std::string, std::string>& urls,
                           const std::string& only, const std::string& location) {
  std::string yaml = "version: 1\nname: crash\nplatforms:\n";
  const std::map<std::string, std::string> types = {
      {"flink", "type: flink"},
      {"kestra", "type: kestra, tenant: main, username: admin@kestra.io, password: \"Admin1234!\""}};
  for (const auto& [name, url] : urls)
    if (only.empty() || only == name)
      yaml += "  " + name + ": {" + types.at(name) + ", url: \"" + url + "\", timeout: 5s}\n";
  yaml += "state: " + Json(location).dump() + "\n";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "dataworkers.yaml") << yaml;
}

TEST_P(CrashWritersTest, DwCollectPrintedPassesAreWholeEachPlatformIsAllOrNothingAndTheNextPassFinishes) {
  const uint64_t seed = Seed();
  KillClock kills_at(seed, 11);
  const int kills = KillCount(6);
  std::vector<std::unique_ptr<sim::RunningSim>> sims;
  std::map<std::string, std::string> urls;
  const std::vector<std::tuple<std::string, sim::Platform, std::string>> platforms = {
      {"flink", sim::Platform::kFlink, "loyalty-flink/sim/flink.json"},
      {"kestra", sim::Platform::kKestra, "ev-kestra/sim/kestra.json"}};
  for (const auto& [name, platform, file] : platforms) {
    auto s = sim::RunningSim::Start(platform, Json::parse(dw::testing::ReadWholeFile(
                                                  std::filesystem::path(DW_SOURCE_DIR) / "examples" / file)));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    urls[name] = (*s)->url();
    sims.push_back(std::move(s).value());
  }
  dw::testing::TempDir tmp;

  // The clean runs: each platform alone (its events), then both (their union).
  std::map<std::string, std::set<std::string>> per_platform;
  std::set<std::string> all;
  for (const auto& [name, platform, file] : platforms) {
    auto scratch = ScratchLocation::Create(GetParam());
    ASSERT_TRUE(scratch.ok());
    WriteCollectWorkspace(tmp.path() / ("clean-" + name), urls, name, (*scratch)->location());
    BinaryRun run = RunCollect(tmp.path() / ("clean-" + name), 0us);
    ASSERT_EQ(run.child.exit_code, 0) << run.out << "\nstderr: " << run.err;
    auto st = Reopen((*scratch)->location(), "clean run of " + name);
    ASSERT_NE(st, nullptr);
    per_platform[name] = StoredEvents(*st);
    ASSERT_FALSE(per_platform[name].empty()) << name << " collected nothing: the test would prove nothing";
    all.insert(per_platform[name].begin(), per_platform[name].end());
  }
  std::chrono::microseconds clean_took{0};
  {
    const auto start = std::chrono::steady_clock::now();
    WriteCollectWorkspace(tmp.path() / "clean", urls, "", scratch_->location());
    BinaryRun run = RunCollect(tmp.path() / "clean", 0us);
    clean_took = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
    ASSERT_EQ(run.child.exit_code, 0) << run.out << "\nstderr: " << run.err;
    auto st = Reopen(scratch_->location(), "clean run");
    ASSERT_NE(st, nullptr);
    ASSERT_EQ(StoredEvents(*st), all) << "one pass over both platforms is not the union of each alone";
  }

  int killed = 0, printed = 0, partial = 0;
  for (int k = 0; k < kills; ++k) {
    // A fresh store each time: the first pass over an empty store is the one that writes.
    auto scratch = ScratchLocation::Create(GetParam());
    ASSERT_TRUE(scratch.ok());
    const auto dir = tmp.path() / ("kill-" + std::to_string(k));
    WriteCollectWorkspace(dir, urls, "", WriterLocation((*scratch)->location()));
    // The kill falls anywhere from the start to half again the clean run's own time.
    BinaryRun run = RunCollect(dir, 1us + kills_at.Next(clean_took + clean_took / 2));
    AwaitWriterSessionsGone();
    killed += run.child.killed ? 1 : 0;
    if (!run.child.killed) {
      ASSERT_LE(run.child.exit_code, 1) << Where(seed, k) << ": " << run.out << "\nstderr: " << run.err;
    }
    const Json report = Json::parse(run.out, nullptr, false);
    const bool acked = !report.is_discarded() && report.contains("platforms");
    printed += acked ? 1 : 0;

    auto st = Reopen((*scratch)->location(), Where(seed, k));
    ASSERT_NE(st, nullptr);
    const std::set<std::string> stored = StoredEvents(*st);
    for (const std::string& e : stored) ASSERT_EQ(all.count(e), 1u) << Where(seed, k) << ": an event no clean run wrote: " << e;
    size_t whole = 0;
    for (const auto& [name, events] : per_platform) {
      size_t present = 0;
      for (const std::string& e : events) present += stored.count(e);
      ASSERT_TRUE(present == 0 || present == events.size())
          << Where(seed, k) << ": " << present << " of " << name << "'s " << events.size() << " events are there";
      whole += present == events.size() ? 1 : 0;
    }
    if (whole > 0 && whole < per_platform.size()) ++partial;
    if (acked) {
      ASSERT_EQ(stored, all) << Where(seed, k) << ": the pass printed its report and events are missing";
    }
    // The next pass (cursors and all) finishes the work: exactly the clean run's events.
    BinaryRun next = RunCollect(dir, 0us);
    ASSERT_EQ(next.child.exit_code, 0) << Where(seed, k) << ": " << next.out << "\nstderr: " << next.err;
    ASSERT_EQ(StoredEvents(*st), all) << Where(seed, k) << ": the pass after the kill did not end where a clean run does";
    const Json again = Json::parse(next.out, nullptr, false);
    ASSERT_FALSE(again.is_discarded()) << next.out;
    ASSERT_EQ(again.value("new_events", -1), static_cast<int>(all.size() - stored.size())) << Where(seed, k) << ": " << next.out;
  }
  std::cout << "[ crash ] dw collect: " << kills << " kills (" << killed << " mid-run, " << partial
            << " between two platforms' commits), " << printed << " printed passes whole, " << all.size()
            << " events per pass\n";
}

// ---- the judgement and action writers, through the real binary (workspace: writer_fixture.h) --

// ---- incidents: `dw watch --once` opening them --------------------------------------------------

constexpr int kCheckedTables = 8;

// A SQLite warehouse at `path` of kCheckedTables tables, each failing both of its checks (a NULL
// member_id, a duplicate one); returns the workspace's warehouses and checks.
std::string FailingChecks(const std::filesystem::path& path) {
  std::string sql, yaml = "warehouses:\n  main: {type: sqlite, path: " + Json(path.string()).dump() + "}\nchecks:\n";
  for (int i = 0; i < kCheckedTables; ++i) {
    const std::string t = "t" + std::to_string(i);
    sql += "CREATE TABLE " + t + " (member_id INTEGER, balance REAL); INSERT INTO " + t + " VALUES (1, 1), (1, 2), (NULL, 3);";
    yaml += "  - {table: main." + t + ", not_null: [member_id], unique: [member_id]}\n";
  }
  ExecSqliteWarehouse(path, sql);
  return yaml;
}

// The incidents a `dw watch` run printed as opened ("... incident opened ID (after JOB)").
std::vector<std::string> PrintedOpened(const std::string& out) {
  std::vector<std::string> ids;
  for (const std::string& line : WholeLines(out)) {
    const size_t at = line.find(" incident opened ");
    if (at == std::string::npos) continue;
    const size_t from = at + 17;
    ids.push_back(line.substr(from, line.find(' ', from) - from));
  }
  return ids;
}

// Checks the open incidents of `st` (each whole: both checks' signals, opened, its `open` notice
// queued; one per table at most) and returns them by root.
std::map<std::string, std::string> WholeOpenIncidents(store::StateStore& st, const Clock& clock, const std::string& where) {
  incidents::IncidentDesk desk(st, static_cast<const graph::GraphIndex*>(nullptr), clock, incidents::DeskOptionsFor(NotifyingWorkspace()));
  incidents::IncidentFilter open;
  open.status = incidents::IncidentStatus::kOpen;
  open.limit = 1000;
  auto listed = desk.List(open);
  EXPECT_TRUE(listed.ok()) << listed.status().ToString();
  std::map<std::string, std::string> by_root;
  if (!listed.ok()) return by_root;
  for (const auto& inc : *listed) {
    std::set<std::string> keys;
    for (const auto& s : inc.signals) keys.insert(s.key);
    EXPECT_EQ(keys.size(), 2u) << where << ": incident " << inc.id << " holds " << keys.size() << " distinct signals";
    EXPECT_TRUE(!inc.transitions.empty() && inc.transitions.front().to == "open") << where << ": " << inc.id;
    EXPECT_EQ(OutboxEvents(st, inc.id).count("open"), 1u) << where << ": incident " << inc.id << " without its open notice";
    EXPECT_TRUE(by_root.emplace(inc.root_asset, inc.id).second) << where << ": two incidents for " << inc.root_asset;
  }
  return by_root;
}

TEST_P(CrashWritersTest, DwWatchOnceIncidentsPrintedOpenedAreThereWholeAndTheNextPassOpensNoSecond) {
  const uint64_t seed = Seed();
  KillClock kills_at(seed, 12);
  const int kills = KillCount(10);
  const TimePoint now = At("2026-11-24T14:00:00Z");
  dw::testing::TempDir tmp;
  const std::string checks = FailingChecks(tmp.path() / "warehouse.db");
  auto watch_once = [&](const std::filesystem::path& dir) { return Dw(dir, now, {"watch", "--once"}); };

  // The clean runs, each on a store of its own: every table's incident, opened in one pass of
  // every check. The kill window is the quickest of three (the first run of a test often pays for
  // a cold cache, and a window past a typical run lets most runs finish).
  std::chrono::microseconds clean_took = std::chrono::hours(1);
  for (int c = 0; c < 3; ++c) {
    auto scratch = ScratchLocation::Create(GetParam());
    ASSERT_TRUE(scratch.ok());
    const auto dir = tmp.path() / ("clean-" + std::to_string(c));
    WriteNotifyingWorkspace(dir, checks, (*scratch)->location());
    const auto start = std::chrono::steady_clock::now();
    BinaryRun run = RunBinary(watch_once(dir), kNever);
    clean_took = std::min(clean_took, std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start));
    ASSERT_EQ(run.child.exit_code, 0) << run.out << "\nstderr: " << run.err;
    ASSERT_EQ(PrintedOpened(run.out).size(), static_cast<size_t>(kCheckedTables)) << run.out;
    auto st = Reopen((*scratch)->location(), "clean run");
    ASSERT_NE(st, nullptr);
    ASSERT_EQ(WholeOpenIncidents(*st, clock_, "clean run").size(), static_cast<size_t>(kCheckedTables));
  }

  size_t acked_total = 0;
  int killed = 0, mid_pass = 0, retried_opened = 0;
  for (int k = 0; k < kills; ++k) {
    // A fresh store each time: the first pass over an empty store is the one that opens them.
    auto scratch = ScratchLocation::Create(GetParam());
    ASSERT_TRUE(scratch.ok());
    const auto dir = tmp.path() / ("kill-" + std::to_string(k));
    WriteNotifyingWorkspace(dir, checks, WriterLocation((*scratch)->location()));
    BinaryRun run = RunKilledWithin(watch_once(dir), clean_took, 1.0, kills_at, killed);
    if (!run.child.killed) {
      ASSERT_EQ(run.child.exit_code, 0) << Where(seed, k) << ": " << run.out << "\nstderr: " << run.err;
    }
    const std::vector<std::string> acked = PrintedOpened(run.out);
    acked_total += acked.size();
    mid_pass += run.child.killed && !acked.empty() && acked.size() < static_cast<size_t>(kCheckedTables);

    auto st = Reopen((*scratch)->location(), Where(seed, k));
    ASSERT_NE(st, nullptr);
    const std::map<std::string, std::string> by_root = WholeOpenIncidents(*st, clock_, Where(seed, k));
    ASSERT_FALSE(::testing::Test::HasFailure()) << Where(seed, k);
    std::set<std::string> ids;
    for (const auto& [root, id] : by_root) ids.insert(id);
    for (const std::string& id : acked) ASSERT_EQ(ids.count(id), 1u) << Where(seed, k) << ": incident " << id << " was printed opened and is gone";

    // The restarted pass: every table's incident is open once, those there before unchanged.
    BinaryRun next = RunBinary(watch_once(dir), kNever);
    ASSERT_EQ(next.child.exit_code, 0) << Where(seed, k) << ": " << next.out << "\nstderr: " << next.err;
    const std::vector<std::string> opened_again = PrintedOpened(next.out);
    for (const std::string& id : opened_again) ASSERT_EQ(ids.count(id), 0u) << Where(seed, k) << ": " << id << " opened a second time";
    retried_opened += static_cast<int>(opened_again.size());
    const std::map<std::string, std::string> after = WholeOpenIncidents(*st, clock_, Where(seed, k) + ", after the next pass");
    ASSERT_FALSE(::testing::Test::HasFailure()) << Where(seed, k);
    ASSERT_EQ(after.size(), static_cast<size_t>(kCheckedTables)) << Where(seed, k) << ": " << next.out;
    for (const auto& [root, id] : by_root) ASSERT_EQ(after.at(root), id) << Where(seed, k);
    ASSERT_EQ(by_root.size() + opened_again.size(), static_cast<size_t>(kCheckedTables)) << Where(seed, k);
  }
  EXPECT_GT(killed, kills / 2) << "most runs should die by the kill, not finish";
  std::cout << "[ crash ] dw watch --once (incidents): " << kills << " kills (" << killed << " mid-run, " << mid_pass
            << " between two incidents of the pass), " << acked_total << " incidents printed opened kept whole, "
            << retried_opened << " opened once by the next pass\n";
}

// ---- approvals: `dw approve` -------------------------------------------------------------------

TEST_P(CrashWritersTest, DwApproveAcceptedDecisionsAreThereWithTheirNoticeAndNoProposalIsDecidedTwice) {
  const uint64_t seed = Seed();
  KillClock kills_at(seed, 13);
  const int kills = KillCount(10);
  config::Workspace ws = NotifyingWorkspace();
  dw::testing::TempDir tmp;
  const auto dir = tmp.path() / "ws";
  const std::string key_file = (tmp.path() / "ana.ed25519.pem").string();
  {
    auto st = Reopen(scratch_->location(), "setup");
    ASSERT_NE(st, nullptr);
    auto issued = actions::IssuePersonKey(*st, "ana@example.com", clock_, "crash test");
    ASSERT_TRUE(issued.ok()) << issued.status().ToString();
    ASSERT_TRUE(actions::WritePrivateKeyFile(key_file, issued->private_key_pem).ok());
    ws = WithDeclaredKey(ws, *issued);
    WriteNotifyingWorkspace(dir, "", WriterLocation(scratch_->location()), "", DeclaredKeyYaml(*issued));
  }
  const actions::DecisionTrust trust = actions::TrustOf(ws, "");
  const TimePoint decided_at = clock_.Now() + 5min;  // inside the 2h the requests are open
  auto approve = [&](const std::string& id) {
    return Dw(dir, decided_at, {"approve", id, "--as", "ana@example.com", "--key", key_file, "--version", "1"});
  };
  std::vector<std::string> pool;  // sent, not yet decided (as far as the parent knows)
  int next_id = 0;
  auto refill = [&](store::StateStore& st) {
    while (pool.size() < 24) {
      const std::string id = "P-" + std::to_string(next_id++);
      actions::ProposalDraft d{id, "INC-crash", "loyalty", "hold", "agent:dw-incidents", {{"step", "pause the sync"}}};
      ASSERT_TRUE(actions::StoreProposal(st, d, clock_).ok());
      ASSERT_TRUE(actions::SendForApproval(st, ws, id, clock_, "agent:dw-incidents").ok());
      pool.push_back(id);
    }
  };
  std::set<std::string> acked_all;
  // How long one clean `dw approve` takes: the kills fall over the first four of a sequence. The
  // fastest of three, as the other writers measure it: the first run alone pays for a cold cache,
  // and a window four times that let whole sequences finish before the kill (a loaded host once counted 5
  // kills of 10).
  std::chrono::microseconds one_took = std::chrono::hours(1);
  {
    auto st = Reopen(scratch_->location(), "setup");
    ASSERT_NE(st, nullptr);
    refill(*st);
  }
  for (int clean = 0; clean < 3; ++clean) {
    const auto start = std::chrono::steady_clock::now();
    BinaryRun run = RunBinary(approve(pool.front()), kNever);
    one_took = std::min(one_took, std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start));
    ASSERT_EQ(run.child.exit_code, 0) << run.out << "\nstderr: " << run.err;
    acked_all.insert(pool.front());
    pool.erase(pool.begin());
  }
  int killed = 0, commands = 0;
  for (int k = 0; k < kills; ++k) {
    {
      auto st = Reopen(scratch_->location(), Where(seed, k));
      ASSERT_NE(st, nullptr);
      refill(*st);
    }
    const std::vector<BinaryRun> runs = RunSequenceUntilKilled(
        [&](int i) { return approve(pool[static_cast<size_t>(i)]); }, static_cast<int>(pool.size()), 1us + kills_at.Next(one_took * 4));
    AwaitWriterSessionsGone();
    commands += static_cast<int>(runs.size());
    std::set<std::string> acked;
    std::string in_flight;
    for (size_t i = 0; i < runs.size(); ++i) {
      const BinaryRun& r = runs[i];
      if (r.child.killed) {
        in_flight = pool[i];
        ++killed;
      } else {
        ASSERT_EQ(r.child.exit_code, 0) << Where(seed, k) << ": dw approve " << pool[i] << ": " << r.out << "\nstderr: " << r.err;
      }
      // The acceptance is the line printed (after Decide returned): a killed run that printed it
      // acknowledged it too.
      if (!WholeLines(r.out).empty()) acked.insert(pool[i]);
    }
    acked_all.insert(acked.begin(), acked.end());

    auto st = Reopen(scratch_->location(), Where(seed, k));
    ASSERT_NE(st, nullptr);
    const std::set<std::string> outbox = OutboxEvents(*st, "INC-crash");
    std::vector<std::string> still_pending;
    for (const std::string& id : pool) {
      auto state = actions::GetProposalState(*st, trust, id, 1, clock_);
      ASSERT_TRUE(state.ok()) << state.status().ToString();
      const bool approved = state->status == actions::ProposalStatus::kApproved;
      ASSERT_TRUE(approved || state->status == actions::ProposalStatus::kPending)
          << Where(seed, k) << ": " << id << " is " << actions::ProposalStatusName(state->status);
      if (acked.count(id)) {
        ASSERT_TRUE(approved) << Where(seed, k) << ": " << id << " was accepted and is not approved";
      }
      ASSERT_EQ(outbox.count("approved:" + id + ".v1"), approved ? 1u : 0u)
          << Where(seed, k) << ": " << id << (approved ? " approved without its notice" : " has a notice and no approval");
      auto events = st->ActionEvents("proposal:" + id);
      ASSERT_TRUE(events.ok());
      int decisions = 0;
      for (const auto& e : *events) decisions += e.kind == "approved";
      ASSERT_EQ(decisions, approved ? 1 : 0) << Where(seed, k) << ": " << id << " has " << decisions << " decision events";
      if (approved) {
        ASSERT_EQ(state->decided_by, "ana@example.com");
        acked_all.insert(id);  // decided by a run that was killed after Decide committed
      } else {
        still_pending.push_back(id);
      }
    }
    // After the crash, the person approves again: refused for an approved proposal (exit 1),
    // accepted for the one the kill left pending; no decision is lost or counted twice.
    if (!runs.empty() && std::find(still_pending.begin(), still_pending.end(), pool.front()) == still_pending.end()) {
      BinaryRun again = RunBinary(approve(pool.front()), kNever);
      ASSERT_EQ(again.child.exit_code, 1) << Where(seed, k) << ": approving " << pool.front() << " a second time: " << again.out << "\nstderr: " << again.err;
    }
    if (!in_flight.empty()) {
      const bool was_pending = std::find(still_pending.begin(), still_pending.end(), in_flight) != still_pending.end();
      BinaryRun again = RunBinary(approve(in_flight), kNever);
      ASSERT_EQ(again.child.exit_code, was_pending ? 0 : 1) << Where(seed, k) << ": approving " << in_flight << " (in flight at the kill) again: " << again.out << "\nstderr: " << again.err;
      if (was_pending) {
        still_pending.erase(std::find(still_pending.begin(), still_pending.end(), in_flight));
        acked_all.insert(in_flight);
      }
    }
    pool = still_pending;
  }
  // Every decision ever accepted is still there, once.
  auto st = Reopen(scratch_->location(), "the end");
  ASSERT_NE(st, nullptr);
  for (const std::string& id : acked_all) {
    auto state = actions::GetProposalState(*st, trust, id, 1, clock_);
    ASSERT_TRUE(state.ok());
    ASSERT_EQ(state->status, actions::ProposalStatus::kApproved) << id;
  }
  EXPECT_GT(killed, kills / 2);
  std::cout << "[ crash ] dw approve: " << kills << " kills (" << killed << " mid-run) over " << commands
            << " runs, " << acked_all.size() << " accepted decisions kept, each with its notice and one decision event\n";
}

// ---- receipts on resolve: `dw incidents resolve` ------------------------------------------------

// The receipt `dw incidents resolve --format json` printed ("receipt": "receipt SEQ HASH"), or 0.
int64_t PrintedReceiptSeq(const std::string& out) {
  const Json j = Json::parse(out, nullptr, false);
  if (j.is_discarded() || !j.contains("receipt") || !j["receipt"].is_string()) return 0;
  const std::string line = j["receipt"].get<std::string>();
  if (line.rfind("receipt ", 0) != 0) return 0;
  return std::stoll(line.substr(8, line.find(' ', 8) - 8));
}

TEST_P(CrashWritersTest, DwIncidentsResolveGetsExactlyOneReceiptWithItsNoticeThroughAKill) {
  const uint64_t seed = Seed();
  KillClock kills_at(seed, 14);
  const int kills = KillCount(10);
  const config::Workspace ws = NotifyingWorkspace();
  const TimePoint start = At("2026-11-24T15:15:00Z");
  dw::testing::TempDir tmp;
  const auto dir = tmp.path() / "ws";
  // No warehouse, check or monitor: the retry is the "receipts" job of `dw watch --once`, which
  // runs whether or not any observe job does (it once needed a passing check to run at all).
  WriteNotifyingWorkspace(dir, "", WriterLocation(scratch_->location()));
  auto resolve = [&](const std::string& id, TimePoint at) {
    return Dw(dir, at, {"incidents", "resolve", id, "--as", "ana@example.com", "--reason", "fixed at the source", "--format", "json"});
  };
  // Opens `n` incidents at `now` (each on a table of its own), as a pass of `dw watch` would.
  auto open_incidents = [&](int k, int n, TimePoint now) {
    clock_.Set(now);
    auto st = Reopen(scratch_->location(), Where(seed, k));
    EXPECT_NE(st, nullptr);
    incidents::IncidentDesk desk(*st, static_cast<const graph::GraphIndex*>(nullptr), clock_, incidents::DeskOptionsFor(ws));
    incidents::SignalBatch b;
    for (int i = 0; i < n; ++i) b.signals.push_back(CheckSignal("table://main/rk" + std::to_string(k) + "_" + std::to_string(i), "not_null(id)", now));
    auto report = desk.Evaluate(b);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->opened.size(), static_cast<size_t>(n));
    return report->opened;
  };
  std::map<std::string, int64_t> acked_all;  // incident -> its receipt's seq
  // How long one clean `dw incidents resolve` takes: the kills fall over the first four of a
  // sequence. The quickest of three (the first run of a test often pays for a cold cache: with one
  // measurement, a loaded CI run once let half its sequences end before the kill).
  std::chrono::microseconds one_took = std::chrono::hours(1);
  const std::vector<std::string> clean = open_incidents(-1, 3, start - 24h);
  ASSERT_EQ(clean.size(), 3u);
  for (const std::string& id : clean) {
    const auto t0 = std::chrono::steady_clock::now();
    BinaryRun run = RunBinary(resolve(id, start - 23h), kNever);
    one_took = std::min(one_took, std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0));
    ASSERT_EQ(run.child.exit_code, 0) << run.out << "\nstderr: " << run.err;
    ASSERT_GT(PrintedReceiptSeq(run.out), 0) << run.out;
    acked_all[id] = PrintedReceiptSeq(run.out);
  }
  int killed = 0, commands = 0;
  size_t retried = 0;
  for (int k = 0; k < kills; ++k) {
    // Each kill's incidents open a day after the last kill's resolutions (the sweep of receipts
    // reads every incident resolved in the last 7 days).
    const TimePoint now = start + std::chrono::hours(24) * k;
    const std::vector<std::string> opened = open_incidents(k, 8, now);
    ASSERT_EQ(opened.size(), 8u);
    const std::vector<BinaryRun> runs = RunSequenceUntilKilled(
        [&](int i) { return resolve(opened[static_cast<size_t>(i)], now + 1h); }, static_cast<int>(opened.size()),
        1us + kills_at.Next(one_took * 4));
    clock_.Set(now + 1h);  // the parent carries on at the commands' time, as the restarted loop would
    AwaitWriterSessionsGone();
    commands += static_cast<int>(runs.size());
    std::map<std::string, int64_t> acked;
    for (size_t i = 0; i < runs.size(); ++i) {
      const BinaryRun& r = runs[i];
      killed += r.child.killed ? 1 : 0;
      if (!r.child.killed) {
        ASSERT_EQ(r.child.exit_code, 0) << Where(seed, k) << ": dw incidents resolve " << opened[i] << ": " << r.out << "\nstderr: " << r.err;
        ASSERT_GT(PrintedReceiptSeq(r.out), 0) << Where(seed, k) << ": " << r.out;
      }
      if (PrintedReceiptSeq(r.out) > 0) acked[opened[i]] = PrintedReceiptSeq(r.out);
    }

    auto st = Reopen(scratch_->location(), Where(seed, k));
    ASSERT_NE(st, nullptr);
    incidents::IncidentDesk desk(*st, static_cast<const graph::GraphIndex*>(nullptr), clock_, incidents::DeskOptionsFor(ws));
    size_t resolved_without_receipt = 0;
    for (const std::string& id : opened) {
      auto inc = desk.Get(id);
      ASSERT_TRUE(inc.ok()) << inc.status().ToString();
      auto receipt = actions::ReceiptOfIncident(*st, id);
      ASSERT_TRUE(receipt.ok()) << receipt.status().ToString();
      const bool resolved = inc->status == incidents::IncidentStatus::kResolved;
      if (acked.count(id)) {
        ASSERT_TRUE(resolved) << Where(seed, k) << ": " << id << " was acknowledged resolved and is " << incidents::IncidentStatusName(inc->status);
        ASSERT_TRUE(receipt->has_value()) << Where(seed, k) << ": " << id << " lost its acknowledged receipt";
        ASSERT_EQ((*receipt)->seq, acked[id]) << Where(seed, k);
      }
      if (receipt->has_value()) {
        ASSERT_TRUE(resolved) << Where(seed, k) << ": a receipt for an incident that is not resolved";
        ASSERT_EQ(OutboxEvents(*st, id).count("resolved"), 1u) << Where(seed, k) << ": " << id << "'s receipt without its notice";
        Json body = Json::parse((*receipt)->body, nullptr, false);
        ASSERT_FALSE(body.is_discarded()) << Where(seed, k);
        ASSERT_EQ(body["content"]["incident"]["id"], id) << Where(seed, k);
      } else {
        ASSERT_EQ(OutboxEvents(*st, id).count("resolved"), 0u) << Where(seed, k) << ": " << id << "'s notice without its receipt";
        resolved_without_receipt += resolved ? 1 : 0;
      }
    }
    ASSERT_LE(resolved_without_receipt, 1u) << Where(seed, k) << ": only the resolution in flight may lack its receipt";
    // The watch loop's retry (`dw watch --once`: its "receipts" job) writes the missing receipt,
    // and only that one.
    BinaryRun sweep = RunBinary(Dw(dir, now + 1h, {"watch", "--once"}), kNever);
    ASSERT_EQ(sweep.child.exit_code, 0) << Where(seed, k) << ": " << sweep.out << "\nstderr: " << sweep.err;
    size_t written = 0;
    for (const std::string& line : WholeLines(sweep.out)) written += line.find(" for incident ") != std::string::npos;
    ASSERT_EQ(written, resolved_without_receipt) << Where(seed, k) << ": " << sweep.out;
    AwaitWriterSessionsGone();
    retried += written;
    for (const std::string& id : opened) {
      auto inc = desk.Get(id);
      ASSERT_TRUE(inc.ok());
      auto receipt = actions::ReceiptOfIncident(*st, id);
      ASSERT_TRUE(receipt.ok());
      if (inc->status == incidents::IncidentStatus::kResolved) {
        ASSERT_TRUE(receipt->has_value()) << Where(seed, k) << ": " << id << " resolved without a receipt after the retry";
        acked_all[id] = (*receipt)->seq;
      } else {
        ASSERT_TRUE(desk.Close(id, "ana@example.com", incidents::CloseReason::kFalsePositive, "crash test").ok());
      }
    }
  }
  // No incident has two receipts, and every receipt kept names the incident it was written for.
  auto st = Reopen(scratch_->location(), "the end");
  ASSERT_NE(st, nullptr);
  auto receipts = st->Receipts();
  ASSERT_TRUE(receipts.ok());
  std::map<std::string, int> per_incident;
  for (const auto& r : *receipts) {
    Json body = Json::parse(r.body, nullptr, false);
    ASSERT_FALSE(body.is_discarded());
    ++per_incident[body["content"]["incident"]["id"].get<std::string>()];
  }
  for (const auto& [id, n] : per_incident) ASSERT_EQ(n, 1) << id << " has " << n << " receipts";
  for (const auto& [id, seq] : acked_all) ASSERT_EQ(per_incident.count(id), 1u) << id;
  EXPECT_GT(killed, kills / 2);
  std::cout << "[ crash ] dw incidents resolve: " << kills << " kills (" << killed << " mid-run) over " << commands
            << " runs, " << acked_all.size() << " resolutions each with one receipt and its notice, " << retried
            << " receipt(s) written by dw watch --once after the kill\n";
}

INSTANTIATE_TEST_SUITE_P(Backends, CrashWritersTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace crash_writers_test
}  // namespace
}  // namespace dw::crash
