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
//   - incidents opening and grouping (IncidentDesk::Evaluate, what `dw watch` runs after every
//     job): an incident reported opened is there with both signals grouped into it and its `open`
//     notice in the outbox; no incident is there without them; re-evaluating the signals in flight
//     never opens a second incident for a root.
//   - approvals (actions::Decide with the workspace, as `dw approve` calls it): an accepted
//     decision is there; a proposal is approved exactly when its `approved` notice is queued and
//     one decision event is recorded; deciding again after the crash is refused.
//   - receipts on resolve (IncidentDesk::Resolve then WriteResolutionReceipts, as `dw incidents
//     resolve` runs them): an acknowledged resolution has its receipt and `resolved` notice; after
//     the watch loop's retry (WriteResolutionReceipts) every resolved incident has exactly one.
// CI makes a few kills per writer; bench/crash.sh makes 200 (DW_CRASH_KILLS), DW_CRASH_SEED replays.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sqlite3.h>

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
#include "store/state_store.h"
#include "store/sql_connection.h"
#include "tests/crash/crash_harness.h"
#include "tests/crash/reopen_check.h"
#include "tests/store/store_test_support.h"
#include "tests/support/subprocess.h"

namespace dw::crash {
namespace {

using store::test_support::ScratchLocation;
using namespace std::chrono_literals;

std::string Where(uint64_t seed, int kill) {
  return "DW_CRASH_SEED=" + std::to_string(seed) + ", kill " + std::to_string(kill);
}

TimePoint At(const std::string& rfc3339) { return *ParseRfc3339(rfc3339); }

// The workspace the judgement and action writers run with: one domain whose approver is ana, and a
// Teams channel (never delivered to here) so every notice is queued in the outbox.
config::Workspace NotifyingWorkspace() {
  config::Workspace ws;
  ws.name = "crash";
  config::DomainConfig d;
  d.name = "loyalty";
  d.autonomy = "L2";
  d.owners = {"ana@example.com"};
  d.approvers = {"ana@example.com"};
  d.approval_ttl = "2h";
  ws.domains["loyalty"] = d;
  ws.notify = Json{{"teams", {{"webhook", "https://example.invalid/workflows/crash"}}}};
  return ws;
}

incidents::Signal CheckSignal(const std::string& table, const std::string& check, TimePoint at) {
  incidents::Signal s;
  s.kind = incidents::SignalKind::kCheck;
  s.key = "check:" + table + ":" + check;
  s.asset_id = table;
  s.at = at;
  s.bad = true;
  s.summary = check + " on " + table + " failed";
  return s;
}

std::set<std::string> OutboxEvents(store::StateStore& st, const std::string& incident_id) {
  std::set<std::string> out;
  auto all = st.OutboxFor(incident_id);
  EXPECT_TRUE(all.ok()) << all.status().ToString();
  if (all.ok())
    for (const auto& m : *all) out.insert(m.event);
  return out;
}

class CrashWritersTest : public store::test_support::ScratchOnEachBackend {
 protected:
  CrashWritersTest() : ScratchOnEachBackend(At("2026-11-24T15:15:00Z")) {}


  // Reopens the store at `location` as a new process would after the crash
  // (tests/crash/reopen_check.h).
  std::unique_ptr<store::StateStore> Reopen(const std::string& location, const std::string& where) {
    return ReopenAndCheck(location, GetParam(), clock_, where);
  }

  // Where a writer opens the store: on PostgreSQL with an application_name of its own, so that
  // the check can wait for the killed writer's server session to end. (The server finishes a
  // statement the client died in, a COMMIT included, before it notices the client is gone: until
  // then what the writer left is still moving.)
  std::string WriterLocation(const std::string& location) const {
    if (GetParam() != "postgresql") return location;
    return location + (location.find('?') == std::string::npos ? "?" : "&") + "application_name=" + WriterName();
  }
  std::string WriterName() const { return "dw_crash_writer_" + std::to_string(getpid()); }

  // On PostgreSQL, waits (up to 10 s) until no server session of a killed writer is left.
  void AwaitWriterSessionsGone() {
    if (GetParam() != "postgresql") return;
    auto admin = store::OpenPostgresConnection(store::test_support::PostgresTestUrl());
    ASSERT_TRUE(admin.ok()) << admin.status().ToString();
    for (int i = 0; i < 1000; ++i) {
      auto rows = (*admin)->Query("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", {WriterName()});
      ASSERT_TRUE(rows.ok()) << rows.status().ToString();
      if (std::get<int64_t>((*rows)[0][0]) == 0) {
        sessions_awaited_ += i > 0 ? 1 : 0;
        return;
      }
      std::this_thread::sleep_for(10ms);
    }
    FAIL() << "a killed writer's PostgreSQL session is still there after 10 s";
  }

  void TearDown() override {
    if (GetParam() == "postgresql")
      std::cout << "[ crash ] waited for " << sessions_awaited_ << " killed writer session(s) to end\n";
  }

  int sessions_awaited_ = 0;
};

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

struct CollectRun {
  std::string out;
  KilledChild child;
};

// Runs `dw collect --format json` on the workspace `dir`, killing it after `kill_after` (never
// when zero).
CollectRun RunCollect(const std::filesystem::path& dir, std::chrono::microseconds kill_after) {
  CollectRun run;
  int fd = -1;
  pid_t pid = Spawn({DW_BINARY, "--workspace", dir.string(), "--now", "2026-11-25T02:36:00Z", "collect",
                     "--format", "json"}, &fd);
  if (pid <= 0) return run;
  std::thread reader([&] {
    char buf[4096];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) run.out.append(buf, static_cast<size_t>(n));
  });
  KillAt(pid, kill_after.count() == 0 ? std::chrono::steady_clock::time_point::max()
                                      : std::chrono::steady_clock::now() + kill_after,
         &run.child);
  reader.join();
  close(fd);
  return run;
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
    CollectRun run = RunCollect(tmp.path() / ("clean-" + name), 0us);
    ASSERT_EQ(run.child.exit_code, 0) << run.out;
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
    CollectRun run = RunCollect(tmp.path() / "clean", 0us);
    clean_took = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
    ASSERT_EQ(run.child.exit_code, 0) << run.out;
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
    CollectRun run = RunCollect(dir, 1us + kills_at.Next(clean_took + clean_took / 2));
    AwaitWriterSessionsGone();
    killed += run.child.killed ? 1 : 0;
    if (!run.child.killed) {
      ASSERT_LE(run.child.exit_code, 1) << Where(seed, k) << ": " << run.out;
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
    CollectRun next = RunCollect(dir, 0us);
    ASSERT_EQ(next.child.exit_code, 0) << Where(seed, k) << ": " << next.out;
    ASSERT_EQ(StoredEvents(*st), all) << Where(seed, k) << ": the pass after the kill did not end where a clean run does";
    const Json again = Json::parse(next.out, nullptr, false);
    ASSERT_FALSE(again.is_discarded()) << next.out;
    ASSERT_EQ(again.value("new_events", -1), static_cast<int>(all.size() - stored.size())) << Where(seed, k) << ": " << next.out;
  }
  std::cout << "[ crash ] dw collect: " << kills << " kills (" << killed << " mid-run, " << partial
            << " between two platforms' commits), " << printed << " printed passes whole, " << all.size()
            << " events per pass\n";
}

// ---- incidents: opening and grouping ---------------------------------------------------------

std::string Root(int kill, int round) {
  return "table://main/k" + std::to_string(kill) + "_r" + std::to_string(round);
}

TEST_P(CrashWritersTest, IncidentsReportedOpenedAreThereWholeAndTheRetriedPassOpensNoSecond) {
  const uint64_t seed = Seed();
  KillClock kills_at(seed, 12);
  const int kills = KillCount(10);
  const config::Workspace ws = NotifyingWorkspace();
  const TimePoint now = At("2026-11-24T15:15:00Z");
  size_t acked_total = 0;
  int killed = 0, retried_opened = 0;
  for (int k = 0; k < kills; ++k) {
    const std::string location = WriterLocation(scratch_->location());
    KilledChild child = ForkAndKill([&](const auto& ack) {
      SimulatedClock c(now);
      auto st = store::OpenStateStore(location, c);
      if (!st.ok()) _exit(4);
      incidents::DeskOptions options = incidents::DeskOptionsFor(ws);
      incidents::IncidentDesk desk(**st, static_cast<const graph::GraphIndex*>(nullptr), c, options);
      for (int r = 0; r < 100000; ++r) {
        incidents::SignalBatch b;
        b.signals = {CheckSignal(Root(k, r), "not_null(member_id)", now), CheckSignal(Root(k, r), "unique(member_id)", now)};
        auto report = desk.Evaluate(b);
        if (!report.ok() || report->opened.size() != 1) _exit(5);
        ack(std::to_string(r) + " " + report->opened[0]);
      }
    }, 1ms + kills_at.Next(120ms));
    AwaitWriterSessionsGone();
    killed += child.killed ? 1 : 0;
    ASSERT_TRUE(child.killed || child.exit_code == 0) << Where(seed, k) << ": the writer failed: " << child.exit_code;
    std::map<int, std::string> acked;
    for (const std::string& a : child.acks) acked[std::stoi(a.substr(0, a.find(' ')))] = a.substr(a.find(' ') + 1);
    acked_total += acked.size();

    auto st = Reopen(scratch_->location(), Where(seed, k));
    ASSERT_NE(st, nullptr);
    incidents::IncidentDesk desk(*st, static_cast<const graph::GraphIndex*>(nullptr), clock_, incidents::DeskOptionsFor(ws));
    incidents::IncidentFilter open;
    open.status = incidents::IncidentStatus::kOpen;
    open.limit = 1000;
    auto listed = desk.List(open);
    ASSERT_TRUE(listed.ok()) << listed.status().ToString();
    std::map<std::string, std::string> by_root;  // this kill's roots -> incident
    for (const auto& inc : *listed) {
      ASSERT_EQ(inc.signals.size(), 2u) << Where(seed, k) << ": incident " << inc.id << " holds " << inc.signals.size() << " signals";
      ASSERT_FALSE(inc.transitions.empty()) << Where(seed, k);
      ASSERT_EQ(inc.transitions.front().to, "open") << Where(seed, k);
      ASSERT_EQ(OutboxEvents(*st, inc.id).count("open"), 1u) << Where(seed, k) << ": incident " << inc.id << " without its open notice";
      ASSERT_TRUE(by_root.emplace(inc.root_asset, inc.id).second) << Where(seed, k) << ": two incidents for " << inc.root_asset;
    }
    for (const auto& [r, id] : acked) {
      ASSERT_EQ(by_root.count(Root(k, r)), 1u) << Where(seed, k) << ": incident " << id << " was reported opened and is gone";
      ASSERT_EQ(by_root[Root(k, r)], id) << Where(seed, k);
    }
    // The restarted loop sees the round in flight again: it opens it once, or finds it open.
    const int in_flight = acked.empty() ? 0 : acked.rbegin()->first + 1;
    ASSERT_LE(by_root.size(), acked.size() + 1) << Where(seed, k) << ": more incidents than rounds begun";
    incidents::SignalBatch again;
    again.signals = {CheckSignal(Root(k, in_flight), "not_null(member_id)", now),
                     CheckSignal(Root(k, in_flight), "unique(member_id)", now)};
    auto report = desk.Evaluate(again);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    ASSERT_EQ(report->opened.size(), by_root.count(Root(k, in_flight)) ? 0u : 1u)
        << Where(seed, k) << ": the retried pass of round " << in_flight;
    retried_opened += static_cast<int>(report->opened.size());
    auto after = desk.List(open);
    ASSERT_TRUE(after.ok());
    for (const auto& inc : *after) {
      ASSERT_EQ(inc.signals.size(), 2u) << Where(seed, k) << ": incident " << inc.id << " after the retried pass";
      // Closed so the next kill starts with no open incident (each pass recomputes every open one).
      ASSERT_TRUE(desk.Close(inc.id, "ana@example.com", incidents::CloseReason::kFalsePositive, "crash test").ok());
    }
  }
  EXPECT_GT(killed, kills / 2) << "most runs should die by the kill, not finish";
  std::cout << "[ crash ] incidents: " << kills << " kills (" << killed << " mid-run), " << acked_total
            << " incidents reported opened kept whole, " << retried_opened << " opened once by the retried pass\n";
}

// ---- approvals ----------------------------------------------------------------------------

TEST_P(CrashWritersTest, AcceptedApprovalsAreThereWithTheirNoticeAndNoProposalIsDecidedTwice) {
  const uint64_t seed = Seed();
  KillClock kills_at(seed, 13);
  const int kills = KillCount(10);
  const config::Workspace ws = NotifyingWorkspace();
  std::string key;
  std::vector<std::string> pool;  // sent, not yet decided (as far as the parent knows)
  int next_id = 0;
  {
    auto st = Reopen(scratch_->location(), "setup");
    ASSERT_NE(st, nullptr);
    auto issued = actions::IssuePersonKey(*st, "ana@example.com", clock_, "crash test");
    ASSERT_TRUE(issued.ok()) << issued.status().ToString();
    key = issued->private_key_pem;
  }
  std::set<std::string> acked_all;
  int killed = 0;
  for (int k = 0; k < kills; ++k) {
    {
      auto st = Reopen(scratch_->location(), Where(seed, k));
      ASSERT_NE(st, nullptr);
      while (pool.size() < 150) {  // more than a child decides in its kill window
        const std::string id = "P-" + std::to_string(next_id++);
        actions::ProposalDraft d{id, "INC-crash", "loyalty", "hold", "agent:dw-incidents", {{"step", "pause the sync"}}};
        ASSERT_TRUE(actions::StoreProposal(*st, d, clock_).ok());
        ASSERT_TRUE(actions::SendForApproval(*st, ws, id, clock_, "agent:dw-incidents").ok());
        pool.push_back(id);
      }
    }
    const std::string location = WriterLocation(scratch_->location());
    KilledChild child = ForkAndKill([&](const auto& ack) {
      SimulatedClock c(clock_.Now());
      auto st = store::OpenStateStore(location, c);
      if (!st.ok()) _exit(4);
      for (const std::string& id : pool) {
        actions::DecisionStatement s = actions::NewStatement("ana@example.com", id, 1, actions::Verdict::kApprove, "", c);
        auto sig = actions::SignStatement(s, key);
        if (!sig.ok()) _exit(5);
        auto out = actions::Decide(**st, ws, {s, "cli", *sig}, c);
        if (!out.ok() || !out->accepted) _exit(6);
        ack(id);
      }
    }, 1ms + kills_at.Next(100ms));
    AwaitWriterSessionsGone();
    killed += child.killed ? 1 : 0;
    ASSERT_TRUE(child.killed || child.exit_code == 0) << Where(seed, k) << ": the writer failed: " << child.exit_code;
    const std::set<std::string> acked(child.acks.begin(), child.acks.end());
    acked_all.insert(acked.begin(), acked.end());

    auto st = Reopen(scratch_->location(), Where(seed, k));
    ASSERT_NE(st, nullptr);
    const std::set<std::string> outbox = OutboxEvents(*st, "INC-crash");
    std::vector<std::string> still_pending;
    for (const std::string& id : pool) {
      auto state = actions::GetProposalState(*st, id, 1, clock_);
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
      } else {
        still_pending.push_back(id);
      }
    }
    // After the crash, the same decision again is refused for an approved proposal and accepted
    // for one the kill left pending: no decision is lost or counted twice.
    for (const std::string& id : pool) {
      const bool was_pending = std::find(still_pending.begin(), still_pending.end(), id) != still_pending.end();
      actions::DecisionStatement s = actions::NewStatement("ana@example.com", id, 1, actions::Verdict::kApprove, "", clock_);
      auto sig = actions::SignStatement(s, key);
      ASSERT_TRUE(sig.ok());
      auto out = actions::Decide(*st, ws, {s, "cli", *sig}, clock_);
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      ASSERT_EQ(out->accepted, was_pending) << Where(seed, k) << ": deciding " << id << " again: " << out->reason;
      if (!was_pending) break;  // one refused re-decision is enough per kill
      still_pending.erase(std::find(still_pending.begin(), still_pending.end(), id));
      acked_all.insert(id);
      if (still_pending.size() < pool.size() / 2) break;
    }
    pool = still_pending;
  }
  // Every decision ever accepted is still there, once.
  auto st = Reopen(scratch_->location(), "the end");
  ASSERT_NE(st, nullptr);
  for (const std::string& id : acked_all) {
    auto state = actions::GetProposalState(*st, id, 1, clock_);
    ASSERT_TRUE(state.ok());
    ASSERT_EQ(state->status, actions::ProposalStatus::kApproved) << id;
  }
  EXPECT_GT(killed, kills / 2);
  std::cout << "[ crash ] approvals: " << kills << " kills (" << killed << " mid-run), " << acked_all.size()
            << " accepted decisions kept, each with its notice and one decision event\n";
}

// ---- receipts on resolve --------------------------------------------------------------------

TEST_P(CrashWritersTest, ResolvedIncidentsGetExactlyOneReceiptWithItsNoticeThroughAKill) {
  const uint64_t seed = Seed();
  KillClock kills_at(seed, 14);
  const int kills = KillCount(10);
  const config::Workspace ws = NotifyingWorkspace();
  const TimePoint start = At("2026-11-24T15:15:00Z");
  std::map<std::string, int64_t> acked_all;  // incident -> its receipt's seq
  int killed = 0;
  size_t retried = 0;
  for (int k = 0; k < kills; ++k) {
    // Each kill's incidents open a day after the last kill's resolutions (the sweep of receipts
    // reads every incident resolved in the last 7 days).
    const TimePoint now = start + std::chrono::hours(24) * k;
    std::vector<std::string> opened;
    clock_.Set(now);
    {
      auto st = Reopen(scratch_->location(), Where(seed, k));
      ASSERT_NE(st, nullptr);
      incidents::IncidentDesk desk(*st, static_cast<const graph::GraphIndex*>(nullptr), clock_, incidents::DeskOptionsFor(ws));
      incidents::SignalBatch b;
      for (int i = 0; i < 40; ++i) b.signals.push_back(CheckSignal("table://main/rk" + std::to_string(k) + "_" + std::to_string(i), "not_null(id)", now));
      auto report = desk.Evaluate(b);
      ASSERT_TRUE(report.ok()) << report.status().ToString();
      ASSERT_EQ(report->opened.size(), 40u);
      opened = report->opened;
    }
    const std::string location = WriterLocation(scratch_->location());
    KilledChild child = ForkAndKill([&](const auto& ack) {
      SimulatedClock c(now + 1h);
      auto st = store::OpenStateStore(location, c);
      if (!st.ok()) _exit(4);
      incidents::IncidentDesk desk(**st, static_cast<const graph::GraphIndex*>(nullptr), c, incidents::DeskOptionsFor(ws));
      for (const std::string& id : opened) {
        if (!desk.Resolve(id, "ana@example.com", "fixed at the source").ok()) _exit(5);
        if (!actions::WriteResolutionReceipts(**st, ws, desk, c).ok()) _exit(6);
        auto receipt = actions::ReceiptOfIncident(**st, id);
        if (!receipt.ok() || !receipt->has_value()) _exit(7);
        ack(id + " " + std::to_string((*receipt)->seq));
      }
    }, 1ms + kills_at.Next(150ms));
    clock_.Set(now + 1h);  // the parent carries on at the child's time, as the restarted loop would
    AwaitWriterSessionsGone();
    killed += child.killed ? 1 : 0;
    ASSERT_TRUE(child.killed || child.exit_code == 0) << Where(seed, k) << ": the writer failed: " << child.exit_code;
    std::map<std::string, int64_t> acked;
    for (const std::string& a : child.acks) acked[a.substr(0, a.find(' '))] = std::stoll(a.substr(a.find(' ') + 1));

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
    // The watch loop's retry writes the missing receipt, and only that one.
    auto written = actions::WriteResolutionReceipts(*st, ws, desk, clock_);
    ASSERT_TRUE(written.ok()) << written.status().ToString();
    ASSERT_EQ(written->size(), resolved_without_receipt) << Where(seed, k);
    retried += written->size();
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
  std::cout << "[ crash ] receipts on resolve: " << kills << " kills (" << killed << " mid-run), " << acked_all.size()
            << " resolutions each with one receipt and its notice, " << retried << " receipt(s) written by the retry\n";
}

INSTANTIATE_TEST_SUITE_P(Backends, CrashWritersTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace dw::crash
