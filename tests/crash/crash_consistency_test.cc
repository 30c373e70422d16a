// Kill -9 in the write paths (docs/RELIABILITY.md): each writer is SIGKILLed at seeded random
// moments, on SQLite and on PostgreSQL ($DW_TEST_PG_URL; skipped when unset), and after every kill
// the store is reopened and checked: every write acknowledged before the kill is there, no write
// is there in part, the migrations are all applied, and the receipt chain verifies. The writers:
// metric points and receipts (the store's own writers, in a forked child), `dw check` recording
// its results (a printed report that says "recorded": true is the acknowledgement) and
// OpenLineage intake on `dw serve` (a 201 is the acknowledgement). CI makes a few kills per test;
// bench/crash.sh makes 200 (DW_CRASH_KILLS) and DW_CRASH_SEED replays a failure.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sqlite3.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "actions/actions.h"
#include "base/clock.h"
#include "base/json.h"
#include "store/migrations.h"
#include "store/state_store.h"
#include "tests/crash/crash_harness.h"
#include "tests/crash/reopen_check.h"
#include "tests/store/store_test_support.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw::crash {
namespace {
namespace crash_consistency_test {

using namespace std::chrono_literals;

std::string Where(uint64_t seed, int kill) {
  return "DW_CRASH_SEED=" + std::to_string(seed) + ", kill " + std::to_string(kill);
}

class CrashTest : public store::test_support::ScratchOnEachBackend {
 protected:
  CrashTest() : ScratchOnEachBackend(TimePoint(std::chrono::seconds(1764547200))) {}

  // Reopens the store as a new process would after the crash (tests/crash/reopen_check.h).
  std::unique_ptr<store::StateStore> Reopen(const std::string& where) {
    return ReopenAndCheck(scratch_->location(), GetParam(), clock_, where);
  }

};

// Metric points: batches of 8 points written with UpsertMetricPoints (one transaction each).
TEST_P(CrashTest, MetricPointsAcknowledgedBeforeAKillAreAllThere) {
  const uint64_t seed = Seed();
  KillClock clock(seed, 1);
  const int kills = KillCount(10);
  constexpr int kBatch = 8;
  std::set<std::pair<int, int>> acked;  // (kill, batch)
  int killed = 0;
  for (int k = 0; k < kills; ++k) {
    const std::string location = scratch_->location();
    KilledChild child = ForkAndKill([&](const auto& ack) {
      SimulatedClock c(TimePoint(std::chrono::seconds(1764547200)));
      auto st = store::OpenStateStore(location, c);
      if (!st.ok()) _exit(4);
      for (int b = 0; b < 100000; ++b) {
        std::vector<store::MetricPoint> points;
        for (int j = 0; j < kBatch; ++j) {
          const int64_t n = (int64_t{k} * 100000 + b) * kBatch + j;
          points.push_back({TimePoint(std::chrono::seconds(1700000000 + n)), static_cast<double>(n)});
        }
        if (!(*st)->UpsertMetricPoints("crash.points", points).ok()) _exit(5);
        ack(std::to_string(b));
      }
    }, clock.Next(60ms));
    killed += child.killed ? 1 : 0;
    ASSERT_TRUE(child.killed || child.exit_code == 0) << Where(seed, k) << ": the writer failed: " << child.exit_code;
    for (const std::string& a : child.acks) acked.insert({k, std::stoi(a)});

    auto st = Reopen(Where(seed, k));
    ASSERT_NE(st, nullptr);
    auto points = st->MetricPoints("crash.points", TimePoint(std::chrono::seconds(0)),
                                   TimePoint(std::chrono::seconds(4000000000)));
    ASSERT_TRUE(points.ok()) << points.status().ToString();
    std::map<int64_t, int> per_batch;  // batch number -> points present
    for (const auto& p : *points) {
      const int64_t n = std::chrono::duration_cast<std::chrono::seconds>(p.ts.time_since_epoch()).count() - 1700000000;
      ASSERT_EQ(p.value, static_cast<double>(n)) << Where(seed, k) << ": a point holds another point's value";
      ++per_batch[n / kBatch];
    }
    for (const auto& [batch, count] : per_batch)
      ASSERT_EQ(count, kBatch) << Where(seed, k) << ": batch " << batch << " is there in part";
    for (const auto& [kill, b] : acked)
      ASSERT_EQ(per_batch.count(int64_t{kill} * 100000 + b), 1u)
          << Where(seed, k) << ": batch " << b << " of kill " << kill << " was acknowledged and is gone";
  }
  EXPECT_GT(killed, kills / 2) << "most runs should die by the kill, not finish";
  std::cout << "[ crash ] metric points: " << kills << " kills (" << killed << " mid-run), " << acked.size()
            << " acknowledged batches kept\n";
}

// Receipts: WriteReceipt appends to the hash chain (read head, append with prev hash, retry).
TEST_P(CrashTest, ReceiptsAcknowledgedBeforeAKillAreAllThereAndTheChainVerifies) {
  const uint64_t seed = Seed();
  KillClock clock(seed, 2);
  const int kills = KillCount(10);
  std::set<std::string> acked;
  int killed = 0;
  for (int k = 0; k < kills; ++k) {
    const std::string location = scratch_->location();
    KilledChild child = ForkAndKill([&](const auto& ack) {
      SimulatedClock c(TimePoint(std::chrono::seconds(1764547200)));
      auto st = store::OpenStateStore(location, c);
      if (!st.ok()) _exit(4);
      for (int n = 0; n < 100000; ++n) {
        const std::string tag = std::to_string(k) + "." + std::to_string(n);
        if (!actions::WriteReceipt(**st, Json{{"crash", tag}}, c).ok()) _exit(5);
        ack(tag);
      }
    }, clock.Next(60ms));
    killed += child.killed ? 1 : 0;
    ASSERT_TRUE(child.killed || child.exit_code == 0) << Where(seed, k) << ": the writer failed: " << child.exit_code;
    acked.insert(child.acks.begin(), child.acks.end());

    auto st = Reopen(Where(seed, k));  // checks the chain
    ASSERT_NE(st, nullptr);
    auto receipts = st->Receipts();
    ASSERT_TRUE(receipts.ok()) << receipts.status().ToString();
    std::set<std::string> present;
    for (const auto& r : *receipts) {
      Json body = Json::parse(r.body, nullptr, false);
      ASSERT_FALSE(body.is_discarded()) << Where(seed, k) << ": receipt " << r.seq << " is not JSON";
      ASSERT_TRUE(present.insert(body["content"]["crash"].get<std::string>()).second)
          << Where(seed, k) << ": a receipt written twice";
    }
    for (const std::string& tag : acked)
      ASSERT_EQ(present.count(tag), 1u) << Where(seed, k) << ": receipt " << tag << " was acknowledged and is gone";
  }
  EXPECT_GT(killed, kills / 2);
  std::cout << "[ crash ] receipts: " << kills << " kills (" << killed << " mid-run), " << acked.size()
            << " acknowledged receipts kept\n";
}

// A scratch copy of examples/loyalty-flink (warehouse built) whose state store is `location`.
std::filesystem::path LoyaltyWorkspace(const dw::testing::TempDir& tmp, const std::string& location) {
  namespace fs = std::filesystem;
  fs::path dst = tmp.path() / "loyalty";
  fs::copy(fs::path(DW_SOURCE_DIR) / "examples" / "loyalty-flink", dst, fs::copy_options::recursive);
  sqlite3* db = nullptr;
  sqlite3_open((dst / "warehouse.db").c_str(), &db);
  std::string sql = dw::testing::ReadWholeFile(dst / "warehouse.sql");
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  std::ofstream(dst / "dataworkers.yaml", std::ios::app) << "\nstate: " << Json(location).dump() << "\n";
  return dst;
}

// `dw check`: a run whose report was printed with "recorded": true has every result stored; no
// run is stored in part (the loyalty example runs 9 checks on one table).
TEST_P(CrashTest, DwCheckResultsOfAPrintedRunAreAllThereAndNoRunIsPartial) {
  const uint64_t seed = Seed();
  KillClock clock(seed, 3);
  const int kills = KillCount(10);
  dw::testing::TempDir tmp;
  const auto ws = LoyaltyWorkspace(tmp, scratch_->location());
  std::map<std::string, size_t> printed;  // run id -> outcomes printed
  int killed = 0;
  for (int k = 0; k < kills; ++k) {
    int fd = -1;
    pid_t pid = Spawn({DW_BINARY, "--workspace", ws.string(), "--now", "2026-11-24T14:00:00Z", "check",
                       "--format", "json"}, &fd);
    ASSERT_GT(pid, 0);
    KilledChild child;
    std::string out;
    std::thread reader([&] {
      char buf[4096];
      for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
    });
    KillAt(pid, std::chrono::steady_clock::now() + clock.Next(80ms), &child);
    reader.join();
    close(fd);
    killed += child.killed ? 1 : 0;
    Json report = Json::parse(out, nullptr, false);
    if (!child.killed) {
      ASSERT_EQ(child.exit_code, 0) << Where(seed, k) << ": " << out;
    }
    if (!report.is_discarded() && report.value("recorded", false)) {
      size_t outcomes = 0;
      for (const Json& t : report["tables"]) outcomes += t["checks"].size();
      printed[report["run_id"].get<std::string>()] = outcomes;
    }

    auto st = Reopen(Where(seed, k));
    ASSERT_NE(st, nullptr);
    for (const auto& [run, outcomes] : printed) {
      auto rows = st->CheckResultsOfRun(run);
      ASSERT_TRUE(rows.ok()) << rows.status().ToString();
      ASSERT_EQ(rows->size(), outcomes) << Where(seed, k) << ": run " << run << " was printed as recorded";
    }
    auto all = st->CheckResultsFor("table://main/member_balances", 100000);
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    std::map<std::string, int> per_run;
    for (const auto& r : *all) ++per_run[r.run_id];
    for (const auto& [run, count] : per_run) ASSERT_EQ(count, 9) << Where(seed, k) << ": run " << run << " is there in part";
  }
  std::cout << "[ crash ] dw check: " << kills << " kills (" << killed << " mid-run), " << printed.size()
            << " printed runs kept\n";
}

Json LineageEvent(int n) {
  return {{"eventType", "COMPLETE"},
          {"eventTime", "2026-11-24T15:00:00Z"},
          {"run", {{"runId", "0190c0de-0000-7000-8000-" + std::to_string(100000000000 + n)}}},
          {"job", {{"namespace", "flink-jobs"}, {"name", "crash-job-" + std::to_string(n)},
                   {"facets", {{"jobType", {{"integration", "FLINK"}}}}}}},
          {"inputs", {{{"namespace", "kafka://broker:9092"}, {"name", "crash-in-" + std::to_string(n)}}}},
          {"outputs", {{{"namespace", "kafka://broker:9092"}, {"name", "crash-out-" + std::to_string(n)}}}}};
}

// OpenLineage intake on `dw serve`: four keep-alive clients post events; every event answered 201
// before the kill has both of its edges stored, and no event has one edge without the other.
TEST_P(CrashTest, OpenLineageEventsAnswered201BeforeAKillAreAllThere) {
  const uint64_t seed = Seed();
  KillClock clock(seed, 4);
  const int kills = KillCount(5);
  dw::testing::TempDir tmp;
  tmp.Write("dataworkers.yaml", "version: 1\nname: crash\nlineage:\n  openlineage: true\nstate: " +
                                    Json(scratch_->location()).dump() + "\n");
  std::set<int> acked;
  std::atomic<int> next{0};
  int killed = 0;
  for (int k = 0; k < kills; ++k) {
    int fd = -1;
    pid_t pid = Spawn({DW_BINARY, "--workspace", tmp.path().string(), "serve", "--listen", "127.0.0.1:0"}, &fd);
    ASSERT_GT(pid, 0);
    std::string line;
    for (char c; read(fd, &c, 1) == 1 && c != '\n';) line.push_back(c);
    const size_t colon = line.rfind(':'), slash = line.rfind("/mcp");
    ASSERT_TRUE(colon != std::string::npos && slash != std::string::npos && slash > colon) << line;
    const int port = std::stoi(line.substr(colon + 1, slash - colon - 1));
    std::mutex mu;
    std::atomic<bool> stop{false};
    std::vector<std::thread> clients;
    for (int c = 0; c < 4; ++c)
      clients.emplace_back([&] {
        httplib::Client client("127.0.0.1", port);
        client.set_keep_alive(true);
        client.set_read_timeout(5, 0);
        while (!stop) {
          const int n = next++;
          auto res = client.Post("/api/v1/lineage", LineageEvent(n).dump(), "application/json");
          if (!res) break;  // the server is gone
          if (res->status == 201) {
            std::lock_guard<std::mutex> lock(mu);
            acked.insert(n);
          }
        }
      });
    // The kill falls while the intake answers: after its first 201 of this run (or 5 s, a server
    // that never answers), at a seeded moment. Counted from the port line alone, a loaded host's
    // first PostgreSQL write could outlast every kill and leave nothing acknowledged to check.
    const size_t acked_before = [&] {
      std::lock_guard<std::mutex> lock(mu);
      return acked.size();
    }();
    for (auto until = std::chrono::steady_clock::now() + 5s; std::chrono::steady_clock::now() < until;) {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (acked.size() > acked_before) break;
      }
      std::this_thread::sleep_for(2ms);
    }
    KilledChild child;
    KillAt(pid, std::chrono::steady_clock::now() + 20ms + clock.Next(300ms), &child);
    stop = true;
    for (auto& t : clients) t.join();
    close(fd);
    killed += child.killed ? 1 : 0;

    auto st = Reopen(Where(seed, k));
    ASSERT_NE(st, nullptr);
    auto edges = st->Edges();
    ASSERT_TRUE(edges.ok()) << edges.status().ToString();
    std::map<int, int> halves;  // event -> bit 1: its input edge, bit 2: its output edge
    for (const auto& e : *edges) {
      const size_t in = e.src.rfind("/crash-in-"), out = e.dst.rfind("/crash-out-");
      if (in != std::string::npos) halves[std::stoi(e.src.substr(in + 10))] |= 1;
      if (out != std::string::npos) halves[std::stoi(e.dst.substr(out + 11))] |= 2;
    }
    for (const auto& [n, bits] : halves) ASSERT_EQ(bits, 3) << Where(seed, k) << ": event " << n << " is there in part";
    for (int n : acked) ASSERT_EQ(halves.count(n), 1u) << Where(seed, k) << ": event " << n << " was answered 201 and is gone";
  }
  EXPECT_GT(acked.size(), 0u);
  std::cout << "[ crash ] OpenLineage intake: " << kills << " kills (" << killed << " of a running server), "
            << acked.size() << " events answered 201 and kept\n";
}

INSTANTIATE_TEST_SUITE_P(Backends, CrashTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace crash_consistency_test
}  // namespace
}  // namespace dw::crash
