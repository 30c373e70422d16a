// Kill -9 in the write paths that decide and record (docs/RELIABILITY.md), each through the real
// `dw` binary, SIGKILLed at seeded random moments on SQLite and PostgreSQL ($DW_TEST_PG_URL;
// skipped when unset). After every kill the store is reopened (migrations all applied, SQLite
// integrity_check ok, receipt chain verified) and checked for what the writer acknowledged, for
// nothing half-written, and for recovery without a manual step:
//   - `dw incidents verify ID --format json` (a sequence of runs over incidents whose failing
//     check passes now): a verification printed as done is there whole (its `verified` event, the
//     resolution, exactly one receipt with its notice); no `verified` event without the resolution
//     it caused; running it again (and the receipt sweep of `dw watch --once`) finishes the job,
//     and no incident ever has two receipts.
//   - proposal drafting, `dw incidents propose ID --format json` and `dw watch --once` drafting
//     for the incident its pass opens: every proposal printed is stored with its approval request
//     and the incident has exactly one approval notice queued; versions are 1..n, none skipped or
//     doubled; the sends and the notice are all there or none; a rerun drafts no duplicate.
//   - the approval-expiry job (`dw watch --once`'s "approvals"): each request past its deadline is
//     expired and escalated once, with its notice, or not at all; an expiry printed is there; a
//     rerun expires nothing twice; a proposal approved before the run is never expired.
//   - `dw keys issue` (a sequence of runs): a key printed is stored and its private key file signs
//     statements the stored key verifies; the key row and its `key_issued` event are there together
//     or not at all; a key file that exists is whole; the private key appears in no output and no
//     row of the store; the run after the kill issues the key the kill interrupted.
// CI makes a few kills per writer; bench/crash.sh makes 200 (DW_CRASH_KILLS), DW_CRASH_SEED replays.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "actions/actions.h"
#include "actions/identity.h"
#include "base/json.h"
#include "base/rfc3339.h"
#include "incidents/incidents.h"
#include "store/state_store.h"
#include "tests/crash/crash_harness.h"
#include "tests/crash/writer_fixture.h"
#include "tests/store/store_test_support.h"
#include "tests/support/subprocess.h"

namespace dw::crash {
namespace {
namespace crash_decision_writers_test {

using store::test_support::ScratchLocation;
using namespace std::chrono_literals;

class CrashDecisionWritersTest : public WriterFixture {};

int CountEvents(store::StateStore& st, const std::string& subject, const std::string& kind) {
  auto events = st.ActionEvents(subject);
  EXPECT_TRUE(events.ok()) << events.status().ToString();
  int n = 0;
  if (events.ok())
    for (const auto& e : *events) n += e.kind == kind;
  return n;
}

std::chrono::microseconds Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
}

// A SQLite warehouse at `path` of `n` tables v0.., each with a check that passes (no NULL
// member_id): the owner's fix is in. Returns the workspace's warehouses and checks.
std::string PassingChecks(const std::filesystem::path& path, int n) {
  std::string sql, yaml = "warehouses:\n  main: {type: sqlite, path: " + Json(path.string()).dump() + "}\nchecks:\n";
  for (int i = 0; i < n; ++i) {
    const std::string t = "v" + std::to_string(i);
    sql += "CREATE TABLE " + t + " (member_id INTEGER, balance REAL); INSERT INTO " + t + " VALUES (1, 1), (2, 2);";
    yaml += "  - {table: main." + t + ", not_null: [member_id]}\n";
  }
  ExecSqliteWarehouse(path, sql);
  return yaml;
}

// ---- verification: `dw incidents verify` ---------------------------------------------------------

// The receipt seq a `dw incidents verify --format json` printed for a passed verification, or 0.
int64_t PrintedVerifiedReceipt(const std::string& out) {
  const Json j = Json::parse(out, nullptr, false);
  if (j.is_discarded() || !j.value("resolved", false) || !j.contains("receipt") || !j["receipt"].is_object()) return 0;
  return j["receipt"].value("seq", int64_t{0});
}

TEST_P(CrashDecisionWritersTest, DwIncidentsVerifyPrintedIsWholeWithOneReceiptAndTheRerunFinishes) {
  const uint64_t seed = Seed();
  KillClock kills_at(seed, 21);
  const int kills = KillCount(8);
  constexpr int kTables = 8;
  const config::Workspace ws = NotifyingWorkspace();
  const TimePoint start = At("2026-11-24T15:15:00Z");
  dw::testing::TempDir tmp;
  const auto dir = tmp.path() / "ws";
  WriteNotifyingWorkspace(dir, PassingChecks(tmp.path() / "warehouse.db", kTables), WriterLocation(scratch_->location()));
  auto verify = [&](const std::string& id, TimePoint at) {
    return Dw(dir, at, {"incidents", "verify", id, "--as", "ana@example.com", "--format", "json"});
  };
  // Opens one incident per table at `now` from its check's failure (the failure the owner has
  // fixed since), as a pass of `dw watch` would.
  auto open_incidents = [&](int k, int n, TimePoint now) {
    clock_.Set(now);
    auto st = Reopen(scratch_->location(), Where(seed, k));
    EXPECT_NE(st, nullptr);
    incidents::IncidentDesk desk(*st, static_cast<const graph::GraphIndex*>(nullptr), clock_, incidents::DeskOptionsFor(ws));
    incidents::SignalBatch b;
    for (int i = 0; i < n; ++i) b.signals.push_back(CheckSignal("table://main/v" + std::to_string(i), "not_null:member_id", now));
    auto report = desk.Evaluate(b);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->opened.size(), static_cast<size_t>(n));
    return report->opened;
  };
  // How long one clean verification takes (the quickest of three): the kills fall over the first
  // four of a sequence.
  std::chrono::microseconds one_took = std::chrono::hours(1);
  for (const std::string& id : open_incidents(-1, 3, start)) {
    const auto t0 = std::chrono::steady_clock::now();
    BinaryRun run = RunBinary(verify(id, start + 1h), kNever);
    one_took = std::min(one_took, Since(t0));
    ASSERT_EQ(run.child.exit_code, 0) << run.out << "\nstderr: " << run.err;
    ASSERT_GT(PrintedVerifiedReceipt(run.out), 0) << run.out;
  }
  std::set<std::string> acked_all;
  int killed = 0, commands = 0, in_flight_done = 0;
  size_t swept = 0;
  for (int k = 0; k < kills; ++k) {
    const TimePoint now = start + std::chrono::hours(24) * (k + 1);  // after the clean runs (the clock only moves forward)
    const std::vector<std::string> opened = open_incidents(k, kTables, now);
    ASSERT_EQ(opened.size(), static_cast<size_t>(kTables)) << Where(seed, k);
    const std::vector<BinaryRun> runs = RunSequenceUntilKilled(
        [&](int i) { return verify(opened[static_cast<size_t>(i)], now + 1h); }, kTables, 1us + kills_at.Next(one_took * 4));
    clock_.Set(now + 1h);
    AwaitWriterSessionsGone();
    commands += static_cast<int>(runs.size());
    std::map<std::string, int64_t> acked;
    for (size_t i = 0; i < runs.size(); ++i) {
      killed += runs[i].child.killed ? 1 : 0;
      if (!runs[i].child.killed) {
        ASSERT_EQ(runs[i].child.exit_code, 0) << Where(seed, k) << ": dw incidents verify " << opened[i] << ": " << runs[i].out << "\nstderr: " << runs[i].err;
        ASSERT_GT(PrintedVerifiedReceipt(runs[i].out), 0) << Where(seed, k) << ": " << runs[i].out;
      }
      if (PrintedVerifiedReceipt(runs[i].out) > 0) acked[opened[i]] = PrintedVerifiedReceipt(runs[i].out);
    }

    auto st = Reopen(scratch_->location(), Where(seed, k));
    ASSERT_NE(st, nullptr);
    incidents::IncidentDesk desk(*st, static_cast<const graph::GraphIndex*>(nullptr), clock_, incidents::DeskOptionsFor(ws));
    size_t resolved_without_receipt = 0;
    std::vector<std::string> still_open;
    for (const std::string& id : opened) {
      auto inc = desk.Get(id);
      ASSERT_TRUE(inc.ok()) << inc.status().ToString();
      auto receipt = actions::ReceiptOfIncident(*st, id);
      ASSERT_TRUE(receipt.ok()) << receipt.status().ToString();
      const bool resolved = inc->status == incidents::IncidentStatus::kResolved;
      ASSERT_TRUE(resolved || inc->status == incidents::IncidentStatus::kOpen) << Where(seed, k) << ": " << id;
      // The passed verification and the resolution it causes are one write.
      ASSERT_EQ(CountEvents(*st, "incident:" + id, "verified"), resolved ? 1 : 0)
          << Where(seed, k) << ": " << id << (resolved ? " resolved without exactly one verified event" : " has a verified event and is open");
      if (resolved) {
        ASSERT_EQ(inc->transitions.back().actor, "dw") << Where(seed, k) << ": " << id << " resolved, not by verification";
      }
      if (acked.count(id)) {
        ASSERT_TRUE(resolved) << Where(seed, k) << ": " << id << " was printed verified and is " << incidents::IncidentStatusName(inc->status);
        ASSERT_TRUE(receipt->has_value()) << Where(seed, k) << ": " << id << " lost its printed receipt";
        ASSERT_EQ((*receipt)->seq, acked[id]) << Where(seed, k);
      }
      if (receipt->has_value()) {
        ASSERT_TRUE(resolved) << Where(seed, k) << ": a receipt for an incident that is not resolved";
        ASSERT_EQ(OutboxEvents(*st, id).count("resolved"), 1u) << Where(seed, k) << ": " << id << "'s receipt without its notice";
        const Json body = Json::parse((*receipt)->body, nullptr, false);
        ASSERT_FALSE(body.is_discarded()) << Where(seed, k);
        ASSERT_EQ(body["content"]["incident"]["id"], id) << Where(seed, k);
        ASSERT_EQ(body["content"]["incident"]["how"], "verification") << Where(seed, k);
        ASSERT_EQ(body["content"]["checks"]["passed"], true) << Where(seed, k) << ": " << (*receipt)->body;
      } else {
        ASSERT_EQ(OutboxEvents(*st, id).count("resolved"), 0u) << Where(seed, k) << ": " << id << "'s notice without its receipt";
        resolved_without_receipt += resolved ? 1 : 0;
      }
      if (!resolved) still_open.push_back(id);
    }
    ASSERT_LE(resolved_without_receipt, 1u) << Where(seed, k) << ": only the verification in flight may lack its receipt";
    for (const auto& [id, seq] : acked) acked_all.insert(id);

    // The person runs it again for what is still open (the one in flight first), then the watch
    // loop's receipt sweep runs: every incident ends resolved by verification with one receipt.
    for (const std::string& id : still_open) {
      BinaryRun again = RunBinary(verify(id, now + 1h), kNever);
      ASSERT_EQ(again.child.exit_code, 0) << Where(seed, k) << ": verifying " << id << " again: " << again.out << "\nstderr: " << again.err;
      ASSERT_GT(PrintedVerifiedReceipt(again.out), 0) << Where(seed, k) << ": " << again.out;
      in_flight_done += runs.size() > 0 && id == opened[runs.size() - 1];
    }
    BinaryRun sweep = RunBinary(Dw(dir, now + 1h, {"watch", "--once"}), kNever);
    ASSERT_EQ(sweep.child.exit_code, 0) << Where(seed, k) << ": " << sweep.out << "\nstderr: " << sweep.err;
    AwaitWriterSessionsGone();
    for (const std::string& line : WholeLines(sweep.out)) swept += line.find(" for incident ") != std::string::npos;
    for (const std::string& id : opened) {
      auto inc = desk.Get(id);
      ASSERT_TRUE(inc.ok());
      ASSERT_EQ(inc->status, incidents::IncidentStatus::kResolved) << Where(seed, k) << ": " << id;
      ASSERT_EQ(CountEvents(*st, "incident:" + id, "verified"), 1) << Where(seed, k) << ": " << id;
      auto receipt = actions::ReceiptOfIncident(*st, id);
      ASSERT_TRUE(receipt.ok());
      ASSERT_TRUE(receipt->has_value()) << Where(seed, k) << ": " << id << " resolved without a receipt after the rerun and the sweep";
    }
  }
  // No incident has two receipts.
  auto st = Reopen(scratch_->location(), "the end");
  ASSERT_NE(st, nullptr);
  auto receipts = st->Receipts();
  ASSERT_TRUE(receipts.ok());
  std::map<std::string, int> per_incident;
  for (const auto& r : *receipts) ++per_incident[Json::parse(r.body)["content"]["incident"]["id"].get<std::string>()];
  for (const auto& [id, n] : per_incident) ASSERT_EQ(n, 1) << id << " has " << n << " receipts";
  for (const std::string& id : acked_all) ASSERT_EQ(per_incident.count(id), 1u) << id;
  EXPECT_GT(killed, kills / 2);
  std::cout << "[ crash ] dw incidents verify: " << kills << " kills (" << killed << " mid-run) over " << commands
            << " runs, " << acked_all.size() << " printed verifications kept whole with one receipt; " << in_flight_done
            << " in-flight verification(s) finished by the rerun, " << swept << " receipt(s) by the sweep; "
            << per_incident.size() << " receipts, one per incident\n";
}

// ---- proposal drafting: `dw incidents propose` and `dw watch --once` ------------------------------

// A change on `table` half an hour before `now`: the cause the diagnosis ranks first, so that
// proposals are drafted (the workspace has no lineage: each table stands alone).
void AddCauseEvent(store::StateStore& st, const std::string& table, TimePoint now, int k) {
  store::ChangeEvent e;
  e.dedup_key = "crash:" + table + ":" + std::to_string(k);
  e.asset_id = table;
  e.kind = "schema_change";
  e.happened_at = now - 30min;
  e.observed_at = now - 30min;
  e.evidence = {{"note", "the crash test's change"}};
  e.risk = 0.8;
  e.reason = "a column was dropped";
  ASSERT_TRUE(st.AddChangeEvent(e).ok());
}

// The assets of tables PREFIX0.. in the L2 domain, each read by a customer-facing sync that runs
// at 22:00: so that an incident on a table gets a hold of the sync
// and its verification plan (two proposals, stored one by one and then sent together; the run plan
// is not drafted, no process repairs a bare table).
std::string TablesWithConsumers(const std::string& prefix, int n) {
  std::string yaml = "assets:\n";
  for (int i = 0; i < n; ++i) {
    const std::string t = prefix + std::to_string(i);
    yaml += "  - {id: table://main/" + t + ", domain: loyalty, owner: ana@example.com}\n"
            "  - {id: sync://hightouch/" + t + "-to-braze, domain: loyalty, owner: ana@example.com, reads: [table://main/" + t +
            "], schedule: \"0 22 * * *\", customer_facing: true}\n";
  }
  return yaml;
}

// What the store holds of one incident's proposals, checked for what holds whatever the kill:
// versions 1..n of each proposal (none skipped or doubled), a version sent once at most, and the
// sends of a pass and their one approval notice all there or none. Returns how many proposals
// there are (`pending`: how many wait for a decision).
struct StoredProposals {
  size_t proposals = 0, pending = 0;
};
StoredProposals CheckIncidentProposals(store::StateStore& st, const Clock& clock, const std::string& incident,
                                       const std::string& where) {
  StoredProposals out;
  auto records = st.ProposalsOfIncident(incident);
  EXPECT_TRUE(records.ok()) << records.status().ToString();
  if (!records.ok()) return out;
  std::map<std::string, std::vector<int64_t>> versions;
  for (const auto& r : *records) versions[r.id].push_back(r.version);
  for (auto& [id, vs] : versions) {
    std::sort(vs.begin(), vs.end());
    for (size_t i = 0; i < vs.size(); ++i) EXPECT_EQ(vs[i], static_cast<int64_t>(i + 1)) << where << ": " << id << "'s versions";
    auto state = actions::GetProposalState(st, actions::DecisionTrust{}, id, 0, clock);
    EXPECT_TRUE(state.ok()) << state.status().ToString();
    if (!state.ok()) continue;
    const bool pending = state->status == actions::ProposalStatus::kPending;
    EXPECT_TRUE(pending || state->status == actions::ProposalStatus::kDrafted)
        << where << ": " << id << " is " << actions::ProposalStatusName(state->status);
    EXPECT_EQ(CountEvents(st, "proposal:" + id, "sent"), pending ? 1 : 0) << where << ": " << id;
    out.pending += pending;
  }
  out.proposals = versions.size();
  size_t notices = 0;
  for (const std::string& e : OutboxEvents(st, incident)) notices += e.rfind("approval_requested", 0) == 0;
  EXPECT_TRUE(out.pending == 0 || out.pending == out.proposals)
      << where << ": " << out.pending << " of " << incident << "'s " << out.proposals << " proposals were sent";
  EXPECT_EQ(notices, out.pending > 0 ? 1u : 0u) << where << ": " << incident << " has " << notices << " approval notices";
  return out;
}

// The proposals `dw incidents propose --format json` printed as stored (id -> version); empty when
// it printed none (killed before it printed).
std::map<std::string, int64_t> PrintedProposals(const std::string& out) {
  std::map<std::string, int64_t> printed;
  const Json j = Json::parse(out, nullptr, false);
  if (j.is_discarded() || !j.contains("proposals")) return printed;
  for (const Json& p : j["proposals"])
    if (p.value("drafted", false)) printed[p.value("id", "")] = p.value("version", int64_t{0});
  return printed;
}

TEST_P(CrashDecisionWritersTest, DwIncidentsProposePrintedIsStoredAndSentWithOneNoticeAndTheRerunDraftsNoDuplicate) {
  const uint64_t seed = Seed();
  KillClock kills_at(seed, 22);
  const int kills = KillCount(8);
  constexpr int kIncidents = 6;
  const config::Workspace ws = NotifyingWorkspace();
  const TimePoint start = At("2026-11-24T15:15:00Z");
  dw::testing::TempDir tmp;
  const auto dir = tmp.path() / "ws";
  WriteNotifyingWorkspace(dir, TablesWithConsumers("p", kIncidents), WriterLocation(scratch_->location()));
  auto propose = [&](const std::string& id, TimePoint at) { return Dw(dir, at, {"incidents", "propose", id, "--format", "json"}); };
  // Opens `n` incidents at `now`, each on a table of its own with a change half an hour before
  // (the tables' incidents of the round before are closed by then).
  auto open_incidents = [&](int k, int n, TimePoint now) {
    clock_.Set(now);
    auto st = Reopen(scratch_->location(), Where(seed, k));
    EXPECT_NE(st, nullptr);
    incidents::IncidentDesk desk(*st, static_cast<const graph::GraphIndex*>(nullptr), clock_, incidents::DeskOptionsFor(ws));
    incidents::SignalBatch b;
    for (int i = 0; i < n; ++i) {
      const std::string table = "table://main/p" + std::to_string(i);
      AddCauseEvent(*st, table, now, k);
      b.signals.push_back(CheckSignal(table, "not_null:member_id", now));
    }
    auto report = desk.Evaluate(b);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->opened.size(), static_cast<size_t>(n));
    return report->opened;
  };
  std::chrono::microseconds one_took = std::chrono::hours(1);
  size_t per_incident = 0;
  for (const std::string& id : open_incidents(-1, 3, start)) {
    const auto t0 = std::chrono::steady_clock::now();
    BinaryRun run = RunBinary(propose(id, start + 5min), kNever);
    one_took = std::min(one_took, Since(t0));
    ASSERT_EQ(run.child.exit_code, 0) << run.out << "\nstderr: " << run.err;
    per_incident = PrintedProposals(run.out).size();
    ASSERT_GE(per_incident, 2u) << "the hold and the verification plan were not both drafted: " << run.out;
  }
  {
    auto st = Reopen(scratch_->location(), "clean runs");
    ASSERT_NE(st, nullptr);
    incidents::IncidentDesk desk(*st, static_cast<const graph::GraphIndex*>(nullptr), clock_, incidents::DeskOptionsFor(ws));
    incidents::IncidentFilter open;
    open.status = incidents::IncidentStatus::kOpen;
    auto listed = desk.List(open);
    ASSERT_TRUE(listed.ok());
    for (const auto& inc : *listed) ASSERT_TRUE(desk.Close(inc.id, "ana@example.com", incidents::CloseReason::kFalsePositive, "crash test").ok());
  }
  int killed = 0, commands = 0, printed = 0, half_done = 0, rerun_drafted = 0;
  for (int k = 0; k < kills; ++k) {
    const TimePoint now = start + std::chrono::hours(24) * (k + 1);  // after the clean runs (the clock only moves forward)
    const std::vector<std::string> opened = open_incidents(k, kIncidents, now);
    ASSERT_EQ(opened.size(), static_cast<size_t>(kIncidents)) << Where(seed, k);
    const std::vector<BinaryRun> runs = RunSequenceUntilKilled(
        [&](int i) { return propose(opened[static_cast<size_t>(i)], now + 5min); }, kIncidents, 1us + kills_at.Next(one_took * 4));
    clock_.Set(now + 5min);
    AwaitWriterSessionsGone();
    commands += static_cast<int>(runs.size());
    auto st = Reopen(scratch_->location(), Where(seed, k));
    ASSERT_NE(st, nullptr);
    for (size_t i = 0; i < opened.size(); ++i) {
      const StoredProposals stored = CheckIncidentProposals(*st, clock_, opened[i], Where(seed, k));
      ASSERT_FALSE(::testing::Test::HasFailure()) << Where(seed, k);
      const bool ran = i < runs.size();
      if (!ran) {
        ASSERT_EQ(stored.proposals, 0u) << Where(seed, k);
        continue;
      }
      killed += runs[i].child.killed ? 1 : 0;
      const std::map<std::string, int64_t> acked = PrintedProposals(runs[i].out);
      if (!runs[i].child.killed) {
        ASSERT_EQ(runs[i].child.exit_code, 0) << Where(seed, k) << ": " << runs[i].out << "\nstderr: " << runs[i].err;
        ASSERT_FALSE(acked.empty()) << Where(seed, k) << ": " << runs[i].out;
      }
      if (!acked.empty()) {
        ++printed;
        ASSERT_EQ(stored.pending, acked.size()) << Where(seed, k) << ": " << opened[i] << " printed and not all sent";
        for (const auto& [pid, v] : acked) {
          auto state = actions::GetProposalState(*st, actions::DecisionTrust{}, pid, v, clock_);
          ASSERT_TRUE(state.ok()) << Where(seed, k) << ": printed " << pid << " v" << v << ": " << state.status().ToString();
          ASSERT_EQ(state->status, actions::ProposalStatus::kPending) << Where(seed, k) << ": " << pid;
        }
      } else if (stored.proposals > 0 && stored.pending == 0) {
        ++half_done;  // drafted, not yet sent: the rerun sends them
      }
    }
    // The rerun: the one in flight and the ones never started are proposed (again); what was
    // there stays as it was (no new version of a content-equal draft, no second request).
    for (size_t i = 0; i < opened.size(); ++i) {
      if (i < runs.size() && !runs[i].child.killed) continue;
      BinaryRun again = RunBinary(propose(opened[i], now + 5min), kNever);
      ASSERT_EQ(again.child.exit_code, 0) << Where(seed, k) << ": " << again.out << "\nstderr: " << again.err;
      const std::map<std::string, int64_t> acked = PrintedProposals(again.out);
      ASSERT_EQ(acked.size(), per_incident) << Where(seed, k) << ": " << again.out;
      for (const auto& [pid, v] : acked) ASSERT_EQ(v, 1) << Where(seed, k) << ": the rerun stored " << pid << " v" << v;
      ++rerun_drafted;
    }
    incidents::IncidentDesk desk(*st, static_cast<const graph::GraphIndex*>(nullptr), clock_, incidents::DeskOptionsFor(ws));
    for (const std::string& id : opened) {
      const StoredProposals stored = CheckIncidentProposals(*st, clock_, id, Where(seed, k) + ", after the rerun");
      ASSERT_FALSE(::testing::Test::HasFailure()) << Where(seed, k);
      ASSERT_EQ(stored.proposals, per_incident) << Where(seed, k) << ": " << id;
      ASSERT_EQ(stored.pending, per_incident) << Where(seed, k) << ": " << id;
      ASSERT_TRUE(desk.Close(id, "ana@example.com", incidents::CloseReason::kFalsePositive, "crash test").ok());
    }
  }
  EXPECT_GT(killed, kills / 2);
  std::cout << "[ crash ] dw incidents propose: " << kills << " kills (" << killed << " mid-run) over " << commands << " runs, "
            << printed << " printed drafts stored and sent with one notice, " << half_done
            << " left drafted and unsent by the kill, " << rerun_drafted << " reruns, no duplicate version or request; "
            << per_incident << " proposal(s) per incident\n";
}

// A SQLite warehouse at `path` of `n` tables w0.., each failing its not_null check; returns the
// workspace's warehouses and checks.
std::string FailingChecks(const std::filesystem::path& path, int n) {
  std::string sql, yaml = "warehouses:\n  main: {type: sqlite, path: " + Json(path.string()).dump() + "}\nchecks:\n";
  for (int i = 0; i < n; ++i) {
    const std::string t = "w" + std::to_string(i);
    sql += "CREATE TABLE " + t + " (member_id INTEGER, balance REAL); INSERT INTO " + t + " VALUES (1, 1), (NULL, 3);";
    yaml += "  - {table: main." + t + ", not_null: [member_id]}\n";
  }
  // The tables belong to the L2 domain (the watch loop drafts only where the incident's domain
  // proposes), each read by a sync (a hold is drafted too).
  yaml += TablesWithConsumers("w", n);
  ExecSqliteWarehouse(path, sql);
  return yaml;
}

// The proposals a `dw watch` run printed as drafted and sent ("... proposal P vN: sent to ...").
std::set<std::string> PrintedWatchProposals(const std::string& out) {
  std::set<std::string> ids;
  for (const std::string& line : WholeLines(out)) {
    const size_t at = line.find(" proposal ");
    if (at == std::string::npos || line.find(": sent to ") == std::string::npos) continue;
    ids.insert(line.substr(at + 10, line.find(' ', at + 10) - at - 10));
  }
  return ids;
}

TEST_P(CrashDecisionWritersTest, DwWatchOnceDraftingPrintedIsSentWithOneNoticeAndTheNextPassDraftsTheRestOnce) {
  const uint64_t seed = Seed();
  KillClock kills_at(seed, 23);
  const int kills = KillCount(6);
  constexpr int kTables = 4;
  const TimePoint now = At("2026-11-24T14:00:00Z");
  dw::testing::TempDir tmp;
  const std::string checks = FailingChecks(tmp.path() / "warehouse.db", kTables);
  auto watch_once = [&](const std::filesystem::path& dir) { return Dw(dir, now, {"watch", "--once"}); };
  // A fresh store with the changes the diagnoses rank first.
  auto fresh = [&](int k, const std::filesystem::path& dir, bool writer) {
    auto scratch = ScratchLocation::Create(GetParam());
    EXPECT_TRUE(scratch.ok());
    auto st = Reopen((*scratch)->location(), Where(seed, k));
    EXPECT_NE(st, nullptr);
    for (int i = 0; i < kTables; ++i) AddCauseEvent(*st, "table://main/w" + std::to_string(i), now, k);
    WriteNotifyingWorkspace(dir, checks, writer ? WriterLocation((*scratch)->location()) : (*scratch)->location());
    return std::move(scratch).value();
  };
  // Every open incident's proposals, checked; returns incident -> how many are pending.
  auto check_all = [&](store::StateStore& st, const std::string& where) {
    incidents::IncidentDesk desk(st, static_cast<const graph::GraphIndex*>(nullptr), clock_, incidents::DeskOptionsFor(NotifyingWorkspace()));
    incidents::IncidentFilter open;
    open.limit = 1000;
    auto listed = desk.List(open);
    EXPECT_TRUE(listed.ok()) << listed.status().ToString();
    std::map<std::string, size_t> pending;
    if (listed.ok())
      for (const auto& inc : *listed) pending[inc.id] = CheckIncidentProposals(st, clock_, inc.id, where).pending;
    return pending;
  };
  std::chrono::microseconds clean_took = std::chrono::hours(1);
  size_t per_incident = 0;
  for (int c = 0; c < 3; ++c) {
    const auto dir = tmp.path() / ("clean-" + std::to_string(c));
    auto scratch = fresh(-1, dir, false);
    const auto t0 = std::chrono::steady_clock::now();
    BinaryRun run = RunBinary(watch_once(dir), kNever);
    clean_took = std::min(clean_took, Since(t0));
    ASSERT_EQ(run.child.exit_code, 0) << run.out << "\nstderr: " << run.err;
    auto st = Reopen(scratch->location(), "clean run");
    ASSERT_NE(st, nullptr);
    const auto pending = check_all(*st, "clean run");
    ASSERT_EQ(pending.size(), static_cast<size_t>(kTables)) << run.out;
    per_incident = pending.begin()->second;
    ASSERT_GE(per_incident, 2u) << "the hold and the verification plan were not both drafted: " << run.out;
    ASSERT_EQ(PrintedWatchProposals(run.out).size(), per_incident * kTables) << run.out;
  }
  int killed = 0, printed = 0, redrafted = 0, undrafted_after_kill = 0;
  for (int k = 0; k < kills; ++k) {
    const auto dir = tmp.path() / ("kill-" + std::to_string(k));
    auto scratch = fresh(k, dir, true);
    // The kill falls within three quarters of the quickest whole run yet (a loaded host lets runs
    // vary; most must still die by the kill).
    BinaryRun run = RunKilledWithin(watch_once(dir), clean_took, 0.75, kills_at, killed);
    if (!run.child.killed) {
      ASSERT_EQ(run.child.exit_code, 0) << Where(seed, k) << ": " << run.out << "\nstderr: " << run.err;
    }
    const std::set<std::string> acked = PrintedWatchProposals(run.out);
    printed += static_cast<int>(acked.size());
    auto st = Reopen(scratch->location(), Where(seed, k));
    ASSERT_NE(st, nullptr);
    const auto pending = check_all(*st, Where(seed, k));
    ASSERT_FALSE(::testing::Test::HasFailure()) << Where(seed, k);
    for (const auto& [id, n] : pending) undrafted_after_kill += n == 0;
    for (const std::string& pid : acked) {
      auto state = actions::GetProposalState(*st, actions::DecisionTrust{}, pid, 1, clock_);
      ASSERT_TRUE(state.ok()) << Where(seed, k) << ": printed " << pid << ": " << state.status().ToString();
      ASSERT_EQ(state->status, actions::ProposalStatus::kPending) << Where(seed, k) << ": " << pid;
    }
    // The restarted loop's pass: every table's incident has its proposals, each sent once.
    BinaryRun next = RunBinary(watch_once(dir), kNever);
    ASSERT_EQ(next.child.exit_code, 0) << Where(seed, k) << ": " << next.out << "\nstderr: " << next.err;
    const std::set<std::string> again = PrintedWatchProposals(next.out);
    for (const std::string& pid : again) ASSERT_EQ(acked.count(pid), 0u) << Where(seed, k) << ": " << pid << " sent a second time";
    redrafted += static_cast<int>(again.size());
    const auto after = check_all(*st, Where(seed, k) + ", after the next pass");
    ASSERT_FALSE(::testing::Test::HasFailure()) << Where(seed, k);
    ASSERT_EQ(after.size(), static_cast<size_t>(kTables)) << Where(seed, k) << ": " << next.out;
    for (const auto& [id, n] : after)
      ASSERT_EQ(n, per_incident) << Where(seed, k) << ": " << id << " has " << n << " proposals sent after the next pass: " << next.out;
  }
  EXPECT_GT(killed, kills / 2);
  std::cout << "[ crash ] dw watch --once (drafting): " << kills << " kills (" << killed << " mid-run), " << printed
            << " proposals printed sent kept, " << undrafted_after_kill << " incidents left without sent proposals by the kill, "
            << redrafted << " proposals sent once by the next pass; " << per_incident << " proposal(s) per incident\n";
}

// ---- approval expiry: the "approvals" job of `dw watch --once` ------------------------------------

constexpr int kExpiring = 12;  // proposals sent per store
constexpr int kDecided = 3;    // of which the first are approved before the run

// The expiries a `dw watch` run printed ("... approvals: proposal E-3 v1: round 1 expired ...").
std::set<std::string> PrintedExpiries(const std::string& out) {
  std::set<std::string> ids;
  for (const std::string& line : WholeLines(out)) {
    const size_t at = line.find(" approvals: proposal ");
    if (at == std::string::npos || line.find(": round 1 expired unanswered") == std::string::npos) continue;
    const size_t from = at + 21;
    ids.insert(line.substr(from, line.find(' ', from) - from));
  }
  return ids;
}

TEST_P(CrashDecisionWritersTest, ApprovalExpiryEachOnceWithItsEscalationNoticeAndNeverForADecidedProposal) {
  const uint64_t seed = Seed();
  KillClock kills_at(seed, 24);
  const int kills = KillCount(8);
  config::Workspace ws = NotifyingWorkspace();
  ws.domains["loyalty"].escalate_to = {"lead@example.com"};
  // Each store's requests are sent a day after the last store's (the test's clock only moves
  // forward), and the run comes 3 h after: past the 2h approval_ttl of every request.
  TimePoint sent_at = At("2026-11-25T12:00:00Z") - 24h, run_at;
  dw::testing::TempDir tmp;
  auto watch_once = [&](const std::filesystem::path& dir) { return Dw(dir, run_at, {"watch", "--once"}); };
  // A fresh store: kExpiring proposals sent for approval at sent_at, the first kDecided approved
  // by ana five minutes later.
  auto fresh = [&](int k, const std::filesystem::path& dir, bool writer) {
    sent_at += 24h;
    run_at = sent_at + 3h;
    auto scratch = ScratchLocation::Create(GetParam());
    EXPECT_TRUE(scratch.ok());
    clock_.Set(sent_at);
    auto st = Reopen((*scratch)->location(), Where(seed, k));
    EXPECT_NE(st, nullptr);
    auto key = actions::IssuePersonKey(*st, "ana@example.com", clock_, "crash test");
    EXPECT_TRUE(key.ok()) << key.status().ToString();
    ws.people.clear();
    ws = WithDeclaredKey(ws, *key);
    for (int i = 0; i < kExpiring; ++i) {
      const std::string id = "E-" + std::to_string(i);
      actions::ProposalDraft d{id, "INC-crash", "loyalty", "hold", "agent:dw-incidents", {{"step", "pause the sync"}}};
      EXPECT_TRUE(actions::StoreProposal(*st, d, clock_).ok());
      EXPECT_TRUE(actions::SendForApproval(*st, ws, id, clock_, "agent:dw-incidents").ok());
    }
    clock_.Set(sent_at + 5min);
    for (int i = 0; i < kDecided; ++i) {
      auto s = actions::NewStatement("ana@example.com", "E-" + std::to_string(i), 1, actions::Verdict::kApprove, "", clock_);
      auto sig = actions::SignStatement(s, key->private_key_pem);
      EXPECT_TRUE(sig.ok());
      auto decided = actions::Decide(*st, ws, {s, "cli", *sig}, clock_);
      EXPECT_TRUE(decided.ok() && decided->accepted) << (decided.ok() ? decided->reason : decided.status().ToString());
    }
    clock_.Set(run_at);
    WriteNotifyingWorkspace(dir, "", writer ? WriterLocation((*scratch)->location()) : (*scratch)->location(),
                            ", escalate_to: [lead@example.com]", DeclaredKeyYaml(*key));
    return std::move(scratch).value();
  };
  // Checks every proposal of `st`: a decided one approved and never expired; an undecided one
  // expired at most once, escalated exactly when expired, with its escalation notice exactly
  // then. Returns the undecided ones expired.
  auto check_all = [&](store::StateStore& st, const std::string& where) {
    std::set<std::string> expired;
    const std::set<std::string> outbox = OutboxEvents(st, "INC-crash");
    for (int i = 0; i < kExpiring; ++i) {
      const std::string id = "E-" + std::to_string(i);
      auto state = actions::GetProposalState(st, actions::TrustOf(ws, ""), id, 1, clock_);
      EXPECT_TRUE(state.ok()) << state.status().ToString();
      const int e = CountEvents(st, "proposal:" + id, "expired");
      const int escalated = CountEvents(st, "proposal:" + id, "escalated");
      if (i < kDecided) {
        EXPECT_TRUE(state.ok() && state->status == actions::ProposalStatus::kApproved) << where << ": " << id;
        EXPECT_EQ(e + escalated, 0) << where << ": " << id << " was approved before the run and has expired";
        EXPECT_EQ(outbox.count("escalated:" + id + ".v1"), 0u) << where << ": " << id;
        continue;
      }
      EXPECT_LE(e, 1) << where << ": " << id << " expired " << e << " times";
      EXPECT_EQ(escalated, e) << where << ": " << id << " has " << e << " expiries and " << escalated << " escalations";
      EXPECT_EQ(outbox.count("escalated:" + id + ".v1"), static_cast<size_t>(e))
          << where << ": " << id << (e ? "'s escalation without its notice" : " has a notice and no escalation");
      if (e) expired.insert(id);
    }
    return expired;
  };
  std::chrono::microseconds clean_took = std::chrono::hours(1);
  for (int c = 0; c < 3; ++c) {
    const auto dir = tmp.path() / ("clean-" + std::to_string(c));
    auto scratch = fresh(-1, dir, false);
    const auto t0 = std::chrono::steady_clock::now();
    BinaryRun run = RunBinary(watch_once(dir), kNever);
    clean_took = std::min(clean_took, Since(t0));
    ASSERT_EQ(run.child.exit_code, 0) << run.out << "\nstderr: " << run.err;
    auto st = Reopen(scratch->location(), "clean run");
    ASSERT_NE(st, nullptr);
    ASSERT_EQ(PrintedExpiries(run.out).size(), static_cast<size_t>(kExpiring - kDecided)) << run.out;
    ASSERT_EQ(check_all(*st, "clean run").size(), static_cast<size_t>(kExpiring - kDecided));
    ASSERT_FALSE(::testing::Test::HasFailure());
  }
  int killed = 0, between = 0, printed = 0, by_rerun = 0;
  for (int k = 0; k < kills; ++k) {
    const auto dir = tmp.path() / ("kill-" + std::to_string(k));
    auto scratch = fresh(k, dir, true);
    // The kill falls within three quarters of the quickest whole run yet (a loaded host lets runs
    // vary; most must still die by the kill).
    BinaryRun run = RunKilledWithin(watch_once(dir), clean_took, 0.75, kills_at, killed);
    if (!run.child.killed) {
      ASSERT_EQ(run.child.exit_code, 0) << Where(seed, k) << ": " << run.out << "\nstderr: " << run.err;
    }
    const std::set<std::string> acked = PrintedExpiries(run.out);
    printed += static_cast<int>(acked.size());
    auto st = Reopen(scratch->location(), Where(seed, k));
    ASSERT_NE(st, nullptr);
    const std::set<std::string> expired = check_all(*st, Where(seed, k));
    ASSERT_FALSE(::testing::Test::HasFailure()) << Where(seed, k);
    for (const std::string& id : acked) ASSERT_EQ(expired.count(id), 1u) << Where(seed, k) << ": " << id << " printed expired and is not";
    between += !expired.empty() && expired.size() < static_cast<size_t>(kExpiring - kDecided);
    // The restarted loop expires the rest, each once; a third run expires nothing.
    BinaryRun next = RunBinary(watch_once(dir), kNever);
    ASSERT_EQ(next.child.exit_code, 0) << Where(seed, k) << ": " << next.out << "\nstderr: " << next.err;
    const std::set<std::string> again = PrintedExpiries(next.out);
    for (const std::string& id : again) ASSERT_EQ(expired.count(id), 0u) << Where(seed, k) << ": " << id << " expired twice";
    by_rerun += static_cast<int>(again.size());
    ASSERT_EQ(check_all(*st, Where(seed, k) + ", after the rerun").size(), static_cast<size_t>(kExpiring - kDecided)) << next.out;
    ASSERT_FALSE(::testing::Test::HasFailure()) << Where(seed, k);
    BinaryRun third = RunBinary(watch_once(dir), kNever);
    ASSERT_EQ(third.child.exit_code, 0) << Where(seed, k) << ": " << third.out << "\nstderr: " << third.err;
    ASSERT_TRUE(PrintedExpiries(third.out).empty()) << Where(seed, k) << ": " << third.out;
  }
  EXPECT_GT(killed, kills / 2);
  std::cout << "[ crash ] approval expiry (dw watch --once): " << kills << " kills (" << killed << " mid-run, " << between
            << " between two expiries), " << printed << " printed expiries kept with their escalation and notice, " << by_rerun
            << " expired once by the rerun; " << kDecided << " approved proposals per store never expired\n";
}

// ---- keys: `dw keys issue` --------------------------------------------------------------------

// The body of a PEM block (its base64 lines joined), "" when there is none.
std::string PemBody(const std::string& pem) {
  std::string body;
  for (const std::string& line : WholeLines(pem))
    if (line.rfind("-----", 0) != 0) body += line;
  return body;
}

std::string ReadFileBytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST_P(CrashDecisionWritersTest, DwKeysIssuePrintedIsStoredAndUsableNothingHalfWrittenAndTheSecretStaysInItsFile) {
  const uint64_t seed = Seed();
  KillClock kills_at(seed, 25);
  const int kills = KillCount(8);
  constexpr int kPeople = 8;
  dw::testing::TempDir tmp;
  const auto dir = tmp.path() / "ws";
  WriteNotifyingWorkspace(dir, "", WriterLocation(scratch_->location()));
  auto email_of = [](int k, int i) { return "p" + std::to_string(k + 1) + "-" + std::to_string(i) + "@example.com"; };
  auto key_file = [&](const std::string& email) { return (tmp.path() / "keys" / (email + ".pem")).string(); };
  std::filesystem::create_directories(tmp.path() / "keys");
  auto issue = [&](const std::string& email) {
    return Dw(dir, clock_.Now(), {"keys", "issue", email, "--out", key_file(email)});
  };
  std::vector<std::string> all_output;  // everything every run wrote, stdout and stderr
  std::set<std::string> secrets;        // the body of every private key file written
  // Checks the key of `email`: the row and its key_issued event together; a key file, when there
  // is one, whole and the private half of the stored key. Returns whether the key is usable.
  auto check_key = [&](store::StateStore& st, const std::string& email, const std::string& where) {
    auto stored = st.GetPersonKey(email);
    EXPECT_TRUE(stored.ok()) << stored.status().ToString();
    auto events = st.ActionEvents("person:" + email);
    EXPECT_TRUE(events.ok());
    std::string issued_sha;
    int issued = 0;
    for (const auto& e : *events)
      if (e.kind == "key_issued") ++issued, issued_sha = e.body.value("public_key_sha256", "");
    EXPECT_EQ(stored->has_value(), issued > 0) << where << ": " << email << ": a key row without its key_issued event, or the reverse";
    if (stored->has_value()) {
      EXPECT_EQ(issued_sha, actions::Sha256Hex((*stored)->public_key_pem)) << where << ": " << email;
    }
    if (!std::filesystem::exists(key_file(email))) return false;
    auto pem = actions::ReadPrivateKeyFile(key_file(email));
    EXPECT_TRUE(pem.ok()) << where << ": " << email << "'s key file is there and not whole (" << std::filesystem::file_size(key_file(email))
                          << " bytes): " << pem.status().ToString();
    if (!pem.ok()) return false;
    secrets.insert(PemBody(*pem));
    EXPECT_TRUE(stored->has_value()) << where << ": " << email << " has a key file and no stored key";
    if (!stored->has_value()) return false;
    auto s = actions::NewStatement(email, "P-crash", 1, actions::Verdict::kApprove, "", clock_);
    auto sig = actions::SignStatement(s, *pem);
    EXPECT_TRUE(sig.ok());
    const bool usable = sig.ok() && actions::SignatureVerifies(actions::StatementBytes(s), *sig, (*stored)->public_key_pem);
    EXPECT_TRUE(usable) << where << ": " << email << "'s key file does not sign for the stored key";
    return usable;
  };
  std::chrono::microseconds one_took = std::chrono::hours(1);
  for (int i = 0; i < 3; ++i) {
    const std::string email = email_of(-1, i);
    const auto t0 = std::chrono::steady_clock::now();
    BinaryRun run = RunBinary(issue(email), kNever, true);
    one_took = std::min(one_took, Since(t0));
    ASSERT_EQ(run.child.exit_code, 0) << run.out << "\nstderr: " << run.err;
    all_output.push_back(run.out);
  }
  int killed = 0, commands = 0, acked_total = 0, stored_no_file = 0, reissued = 0, partial_left = 0;
  for (int k = 0; k < kills; ++k) {
    const std::vector<BinaryRun> runs = RunSequenceUntilKilled(
        [&](int i) { return issue(email_of(k, i)); }, kPeople, 1us + kills_at.Next(one_took * 4), true);
    AwaitWriterSessionsGone();
    commands += static_cast<int>(runs.size());
    auto st = Reopen(scratch_->location(), Where(seed, k));
    ASSERT_NE(st, nullptr);
    std::string in_flight;
    for (size_t i = 0; i < runs.size(); ++i) {
      const std::string email = email_of(k, static_cast<int>(i));
      all_output.push_back(runs[i].out);
      if (runs[i].child.killed) {
        ++killed;
        in_flight = email;
      } else {
        ASSERT_EQ(runs[i].child.exit_code, 0) << Where(seed, k) << ": " << runs[i].out << "\nstderr: " << runs[i].err;
      }
      bool acked = false;
      for (const std::string& line : WholeLines(runs[i].out)) acked |= line.rfind("issued an Ed25519 key for " + email + ";", 0) == 0;
      acked_total += acked;
      const bool usable = check_key(*st, email, Where(seed, k));
      ASSERT_FALSE(::testing::Test::HasFailure()) << Where(seed, k);
      if (acked) {
        ASSERT_TRUE(usable) << Where(seed, k) << ": " << email << "'s key was printed issued and is not usable";
        auto stored = st->GetPersonKey(email);
        ASSERT_NE(runs[i].out.find("public key " + actions::KeyFingerprint((*stored)->public_key_pem)), std::string::npos)
            << Where(seed, k) << ": " << runs[i].out;
      }
    }
    for (size_t i = runs.size(); i < static_cast<size_t>(kPeople); ++i) {
      auto stored = st->GetPersonKey(email_of(k, static_cast<int>(i)));
      ASSERT_TRUE(stored.ok() && !stored->has_value()) << Where(seed, k);
    }
    // The person runs it again for the key the kill interrupted: issued when its file is not
    // there (a stored key whose file was never written is replaced), refused when it is.
    if (!in_flight.empty()) {
      const bool had_file = std::filesystem::exists(key_file(in_flight));
      auto before = st->GetPersonKey(in_flight);
      stored_no_file += !had_file && before.ok() && before->has_value();
      BinaryRun again = RunBinary(issue(in_flight), kNever, true);
      all_output.push_back(again.out);
      if (had_file) {
        ASSERT_EQ(again.child.exit_code, 2) << Where(seed, k) << ": " << again.out << "\nstderr: " << again.err;
        ASSERT_NE(again.out.find("already exists"), std::string::npos) << again.out;
      } else {
        partial_left += std::filesystem::exists(key_file(in_flight) + ".partial");
        ASSERT_EQ(again.child.exit_code, 0) << Where(seed, k) << ": " << again.out << "\nstderr: " << again.err;
        ASSERT_FALSE(std::filesystem::exists(key_file(in_flight) + ".partial")) << Where(seed, k) << ": the rerun left the killed write's .partial";
        ++reissued;
      }
      ASSERT_TRUE(check_key(*st, in_flight, Where(seed, k) + ", after the rerun")) << Where(seed, k) << ": " << in_flight;
    }
  }
  // The private keys are in their files only: in no output of any run and in no row of the store.
  ASSERT_FALSE(secrets.empty());
  for (const std::string& out : all_output) {
    ASSERT_EQ(out.find("PRIVATE KEY"), std::string::npos) << out;
    for (const std::string& secret : secrets) ASSERT_EQ(out.find(secret.substr(0, 40)), std::string::npos) << out;
  }
  std::string stored_text;
  if (GetParam() == "sqlite") {
    for (const char* suffix : {"", "-wal"}) stored_text += ReadFileBytes(scratch_->location() + suffix);
  } else {
    auto st = Reopen(scratch_->location(), "the end");
    ASSERT_NE(st, nullptr);
    auto events = st->ActionEvents("");
    ASSERT_TRUE(events.ok());
    for (const auto& e : *events) stored_text += e.body.dump() + "\n";
  }
  ASSERT_FALSE(stored_text.empty());
  for (const std::string& secret : secrets) ASSERT_EQ(stored_text.find(secret.substr(0, 40)), std::string::npos);
  EXPECT_GT(killed, kills / 2);
  std::cout << "[ crash ] dw keys issue: " << kills << " kills (" << killed << " mid-run) over " << commands << " runs, "
            << acked_total << " printed keys stored and usable; " << stored_no_file << " stored key(s) left without a file by the kill, "
            << reissued << " reissued by the rerun (" << partial_left << " over a killed write's .partial); " << secrets.size() << " private keys found in no output and no stored row\n";
}

INSTANTIATE_TEST_SUITE_P(Backends, CrashDecisionWritersTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace crash_decision_writers_test
}  // namespace
}  // namespace dw::crash
