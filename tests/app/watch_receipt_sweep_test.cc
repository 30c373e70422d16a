// The receipt sweep is a `dw watch` job of its own ("receipts", every minute and at start), not a
// side effect of the incidents pass after a successful monitor, check or collection run: a
// resolution left without its receipt (`dw incidents resolve` killed between resolving and writing
// it) gets it from the next `dw watch --once` in a workspace with no check at all, and in one where
// every observe job fails; it gets exactly one, with its `resolved` notice, however many passes run.
// On SQLite and PostgreSQL ($DW_TEST_PG_URL; skipped when unset), through the real binary. On
// PostgreSQL, two `dw watch --once` at the same moment write each missing receipt once.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <fstream>
#include <future>
#include <map>
#include <set>

#include "actions/actions.h"
#include "base/clock.h"
#include "base/json.h"
#include "base/rfc3339.h"
#include "incidents/incidents.h"
#include "store/state_store.h"
#include "tests/actions/actions_test_support.h"
#include "tests/store/store_test_support.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw {
namespace {

using testing::RunCommand;
using testing::TempDir;

// The workspace's domain and its notify channel (a Teams webhook on a loopback port that refuses at
// once: each `resolved` notice stays in the outbox, where it is counted).
constexpr const char* kWorkspaceHead =
    "version: 1\nname: sweep\n"
    "domains:\n  loyalty: {autonomy: L2, owners: [ana@example.com], approvers: [ana@example.com], approval_ttl: 2h}\n"
    "notify:\n  teams: {webhook: \"http://127.0.0.1:9/workflows/sweep\"}\n";

config::Workspace DeskWorkspace() {
  return actions::test_support::TeamsNotifiedWorkspace("sweep", "http://127.0.0.1:9/workflows/sweep");
}

incidents::Signal FailedCheck(const std::string& table, TimePoint at) {
  incidents::Signal s;
  s.kind = incidents::SignalKind::kCheck;
  s.key = "check:" + table + ":not_null(id)";
  s.asset_id = table;
  s.at = at;
  s.bad = true;
  s.summary = "not_null(id) on " + table + " failed";
  return s;
}

class WatchReceiptSweepTest : public store::test_support::ScratchOnEachBackend {
 protected:
  WatchReceiptSweepTest() : ScratchOnEachBackend(*ParseRfc3339("2026-11-24T15:15:00Z")) {}

  void WriteWorkspace(const std::string& extra) {
    std::ofstream(tmp_.path() / "dataworkers.yaml")
        << kWorkspaceHead << extra << "state: " << Json(scratch_->location()).dump() << "\n";
  }

  // Opens `n` incidents (one table each) and resolves them as `dw incidents resolve` does up to
  // the moment it would write the receipt: resolved, no receipt, no notice (what a kill between
  // the two leaves). Returns their ids.
  std::vector<std::string> ResolvedWithoutReceipts(int n) {
    auto st = Open();
    if (st == nullptr) return {};
    const config::Workspace ws = DeskWorkspace();
    incidents::IncidentDesk desk(*st, static_cast<const graph::GraphIndex*>(nullptr), clock_, incidents::DeskOptionsFor(ws));
    incidents::SignalBatch b;
    for (int i = 0; i < n; ++i) b.signals.push_back(FailedCheck("table://main/t" + std::to_string(i), clock_.Now()));
    auto report = desk.Evaluate(b);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    if (!report.ok()) return {};
    EXPECT_EQ(report->opened.size(), static_cast<size_t>(n));
    clock_.Advance(std::chrono::minutes(30));
    for (const std::string& id : report->opened) {
      auto resolved = desk.Resolve(id, "ana@example.com", "fixed at the source");
      EXPECT_TRUE(resolved.ok()) << resolved.status().ToString();
      auto receipt = actions::ReceiptOfIncident(*st, id);
      EXPECT_TRUE(receipt.ok() && !receipt->has_value()) << id << " has a receipt before the sweep";
    }
    return report->opened;
  }

  std::string WatchOnce() const {
    return std::string(DW_BINARY) + " --workspace '" + tmp_.path().string() + "' --now " +
           FormatRfc3339(clock_.Now() + std::chrono::minutes(5)) + " watch --once";
  }

  // The ids named by the receipt lines `dw watch` printed ("... receipt SEQ HASH for incident ID").
  static std::multiset<std::string> ReceiptLines(const std::string& out) {
    std::multiset<std::string> ids;
    const std::string marker = " for incident ";
    for (size_t at = out.find(marker); at != std::string::npos; at = out.find(marker, at + 1)) {
      size_t end = out.find('\n', at);
      ids.insert(out.substr(at + marker.size(), end - at - marker.size()));
    }
    return ids;
  }

  // Every id in `ids` has exactly one receipt, naming it, and its one `resolved` notice; the
  // chain holds `ids.size()` receipts and verifies.
  void ExpectOneReceiptEach(const std::vector<std::string>& ids) {
    auto st = Open();
    ASSERT_NE(st, nullptr);
    for (const std::string& id : ids) {
      auto receipt = actions::ReceiptOfIncident(*st, id);
      ASSERT_TRUE(receipt.ok()) << receipt.status().ToString();
      ASSERT_TRUE(receipt->has_value()) << id << " has no receipt after the sweep";
      Json body = Json::parse((*receipt)->body, nullptr, false);
      ASSERT_FALSE(body.is_discarded());
      EXPECT_EQ(body["content"]["incident"]["id"], id);
      auto outbox = st->OutboxFor(id);
      ASSERT_TRUE(outbox.ok());
      int resolved_notices = 0;
      for (const auto& m : *outbox) resolved_notices += m.event == "resolved";
      EXPECT_EQ(resolved_notices, 1) << id;
    }
    auto all = st->Receipts();
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(all->size(), ids.size()) << "a receipt written twice";
    auto chain = actions::VerifyReceiptChain(*st);
    ASSERT_TRUE(chain.ok()) << chain.status().ToString();
    EXPECT_TRUE(chain->ok) << chain->problem;
  }

  TempDir tmp_;
};

TEST_P(WatchReceiptSweepTest, AWorkspaceWithNoCheckGetsTheMissingReceiptFromTheNextWatchOnce) {
  WriteWorkspace("");  // no warehouse, check, monitor or platform: no observe job at all
  const std::vector<std::string> ids = ResolvedWithoutReceipts(2);
  ASSERT_EQ(ids.size(), 2u);
  auto r = RunCommand(WatchOnce());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(ReceiptLines(r.out), std::multiset<std::string>(ids.begin(), ids.end())) << r.out;
  ExpectOneReceiptEach(ids);
  // The next sweep finds nothing missing: no line, no second receipt.
  auto again = RunCommand(WatchOnce());
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_TRUE(ReceiptLines(again.out).empty()) << again.out;
  ExpectOneReceiptEach(ids);
}

TEST_P(WatchReceiptSweepTest, EveryObserveJobFailingStillGetsTheMissingReceiptWritten) {
  // A check and a monitor on a table the warehouse does not have: both jobs fail, so no incidents
  // pass runs. (No platform: a collection pass that cannot reach one still records the gap as a
  // change event and runs the pass after it.)
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((tmp_.path() / "wh.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE other (id INTEGER);", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  WriteWorkspace(
      "warehouses:\n  main: {type: sqlite, path: wh.db}\n"
      "checks:\n  - {table: main.missing, not_null: [id]}\n"
      "monitors:\n  - {name: rows, warehouse: main, sql: \"SELECT count(*) FROM missing\", every: 1h}\n");
  const std::vector<std::string> ids = ResolvedWithoutReceipts(1);
  ASSERT_EQ(ids.size(), 1u);
  auto r = RunCommand(WatchOnce());
  EXPECT_EQ(r.exit_code, 1) << "the failing jobs are reported: " << r.out << r.err;
  for (const char* job : {"check:table://main/missing failed", "monitor:rows failed"})
    EXPECT_NE(r.err.find(job), std::string::npos) << job << " in: " << r.err;
  EXPECT_EQ(r.err.find("receipts failed"), std::string::npos) << r.err;
  EXPECT_EQ(ReceiptLines(r.out), std::multiset<std::string>(ids.begin(), ids.end())) << r.out;
  ExpectOneReceiptEach(ids);
}

// Two operators' `dw watch --once` at the same moment on one PostgreSQL store (no leases: `--once`
// takes none; the sweep holds the incidents pass's cross-replica lock): each missing receipt is
// written once, by one of them.
TEST_P(WatchReceiptSweepTest, TwoWatchOnceAtOnceOnPostgresqlWriteEachReceiptOnce) {
  if (GetParam() != "postgresql") GTEST_SKIP() << "SQLite keeps one writer";
  WriteWorkspace("");
  const std::vector<std::string> ids = ResolvedWithoutReceipts(6);
  ASSERT_EQ(ids.size(), 6u);
  const std::string cmd = WatchOnce();
  auto a = std::async(std::launch::async, [&] { return RunCommand(cmd); });
  auto b = std::async(std::launch::async, [&] { return RunCommand(cmd); });
  auto ra = a.get(), rb = b.get();
  ASSERT_EQ(ra.exit_code, 0) << ra.out << ra.err;
  ASSERT_EQ(rb.exit_code, 0) << rb.out << rb.err;
  std::multiset<std::string> written = ReceiptLines(ra.out);
  for (const std::string& id : ReceiptLines(rb.out)) written.insert(id);
  EXPECT_EQ(written, std::multiset<std::string>(ids.begin(), ids.end())) << ra.out << "\n--\n" << rb.out;
  ExpectOneReceiptEach(ids);
}

INSTANTIATE_TEST_SUITE_P(Backends, WatchReceiptSweepTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace dw
