// What the crash writers that run the real `dw` binary share (tests/crash/crash_writers_test.cc,
// tests/crash/crash_decision_writers_test.cc): the fixture, one scratch store per backend with the
// reopen check and the wait for a killed writer's PostgreSQL session; the workspace file they run
// with (one L2 domain whose approver is ana, a Teams channel on a loopback port that refuses at
// once, so every notice stays in the outbox); and the small readers of what a run printed.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/json.h"
#include "base/rfc3339.h"
#include "incidents/incidents.h"
#include "store/sql_connection.h"
#include "store/state_store.h"
#include "tests/actions/actions_test_support.h"
#include "tests/crash/crash_harness.h"
#include "tests/crash/reopen_check.h"
#include "tests/store/store_test_support.h"
#include "tests/support/build_paths.h"

namespace dw::crash {

// Names the seed and the kill of a failure, so `DW_CRASH_SEED=S DW_CRASH_KILLS=N` replays it.
inline std::string Where(uint64_t seed, int kill) {
  return "DW_CRASH_SEED=" + std::to_string(seed) + ", kill " + std::to_string(kill);
}

inline TimePoint At(const std::string& rfc3339) { return *ParseRfc3339(rfc3339); }

// The workspace the judgement and action writers run with, as the test process holds it: one
// domain whose approver is ana, and a Teams channel (never delivered to here) so every notice is
// queued in the outbox. WriteNotifyingWorkspace writes the same as YAML for the binary.
inline config::Workspace NotifyingWorkspace() {
  return actions::test_support::TeamsNotifiedWorkspace("crash", "https://example.invalid/workflows/crash");
}

// The workspace file of the writers that run the binary: NotifyingWorkspace() as YAML (the Teams
// channel a loopback port that refuses at once, so that the delivery job of `dw watch --once`
// spends no time on name lookups), its domain with `domain_extra` added (e.g. ", escalate_to:
// [...]"), then `extra` (warehouses, checks), then the state store at `location`, then `people`
// (DeclaredKeyYaml).
inline void WriteNotifyingWorkspace(const std::filesystem::path& dir, const std::string& extra,
                                    const std::string& location, const std::string& domain_extra = "",
                                    const std::string& people = "") {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "dataworkers.yaml")
      << "version: 1\nname: crash\n"
         "domains:\n  loyalty: {autonomy: L2, owners: [ana@example.com], approvers: [ana@example.com], approval_ttl: 2h"
      << domain_extra << "}\n"
      << "notify:\n  teams: {webhook: \"http://127.0.0.1:9/workflows/crash\"}\n"
      << extra << "state: " << Json(location).dump() << "\n" << people;
}

// people: declaring `key` for its person, as the workspace file of a team that issued it would.
inline std::string DeclaredKeyYaml(const actions::IssuedKey& key) {
  return "people:\n  " + key.email + ": {keys: [\"" + actions::KeyFingerprint(key.public_key_pem) + "\"]}\n";
}

// `ws` with `key` declared for its person.
inline config::Workspace WithDeclaredKey(config::Workspace ws, const actions::IssuedKey& key) {
  ws.people[key.email].keys.push_back(actions::KeyFingerprint(key.public_key_pem));
  return ws;
}

// The argv of `dw --workspace DIR --now NOW ARGS...`.
inline std::vector<std::string> Dw(const std::filesystem::path& dir, TimePoint now, std::vector<std::string> args) {
  std::vector<std::string> argv = {DW_BINARY, "--workspace", dir.string(), "--now", FormatRfc3339(now)};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

inline constexpr auto kNever = std::chrono::steady_clock::time_point::max();

// The lines a run printed whole (a line the kill cut short acknowledges nothing).
inline std::vector<std::string> WholeLines(const std::string& out) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t nl; (nl = out.find('\n', start)) != std::string::npos; start = nl + 1) lines.push_back(out.substr(start, nl - start));
  return lines;
}

// A bad check signal as the signal pass builds one from a stored check result.
inline incidents::Signal CheckSignal(const std::string& table, const std::string& check, TimePoint at) {
  incidents::Signal s;
  s.kind = incidents::SignalKind::kCheck;
  s.key = "check:" + table + ":" + check;
  s.asset_id = table;
  s.at = at;
  s.bad = true;
  s.summary = check + " on " + table + " failed";
  return s;
}

// The outbox events ("open", "resolved", "approved:P.v1", ...) queued for `incident_id`.
inline std::set<std::string> OutboxEvents(store::StateStore& st, const std::string& incident_id) {
  std::set<std::string> out;
  auto all = st.OutboxFor(incident_id);
  EXPECT_TRUE(all.ok()) << all.status().ToString();
  if (all.ok())
    for (const auto& m : *all) out.insert(m.event);
  return out;
}

// A scratch store on each backend (the parameter), reopened after every kill as a new process
// would, and where the killed writer connected.
// Runs `sql` (the writers' warehouse tables and rows) in the SQLite file at `path`, creating it.
inline void ExecSqliteWarehouse(const std::filesystem::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

class WriterFixture : public store::test_support::ScratchOnEachBackend {
 protected:
  WriterFixture() : ScratchOnEachBackend(At("2026-11-24T15:15:00Z")) {}

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
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    FAIL() << "a killed writer's PostgreSQL session is still there after 10 s";
  }

  // One run of `args` killed at a seeded moment up to `fraction` of `quickest` (the quickest
  // clean run) after its start, unless it ends first; returns once a killed writer's server
  // session is gone, and `killed` counts the kills. A run that ends before its kill lowers
  // `quickest` to its own time: a host whose load has eased since the clean runs makes runs
  // quicker, and a window kept from the slower ones lets most runs finish unkilled (the check
  // that most runs die by the kill then fails, 4 of 8, as it once did on a loaded host).
  BinaryRun RunKilledWithin(const std::vector<std::string>& args, std::chrono::microseconds& quickest, double fraction,
                            KillClock& kills_at, int& killed) {
    const auto window = std::chrono::microseconds(static_cast<int64_t>(static_cast<double>(quickest.count()) * fraction));
    const auto start = std::chrono::steady_clock::now();
    BinaryRun run = RunBinary(args, start + std::chrono::microseconds(1) + kills_at.Next(window));
    const auto took = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
    AwaitWriterSessionsGone();
    if (run.child.killed)
      ++killed;
    else
      quickest = std::min(quickest, took);
    return run;
  }

  void TearDown() override {
    if (GetParam() == "postgresql")
      std::cout << "[ crash ] waited for " << sessions_awaited_ << " killed writer session(s) to end\n";
  }

  int sessions_awaited_ = 0;
};

}  // namespace dw::crash
