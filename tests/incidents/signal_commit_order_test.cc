// The signal pass consumes what was committed since the last pass, by the store's commit sequence,
// never by a time (issue 35, "lost alarms"): a check result stamped before another job's pass and
// committed after it, and an hourly bucket written an hour after its bucket, are judged by the
// next pass, once; a store from before the sequence reads by time once; a cursor past the store's
// own sequence is refused. Then monitors, checks and collections write from several threads (and
// connections: processes, replicas on PostgreSQL) while passes run, and no bad signal is lost.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "observe/changes/change_kinds.h"
#include "tests/incidents/incidents_test_support.h"

namespace dw::incidents {
namespace {

using test_support::At;
using namespace std::chrono_literals;

store::CheckResultRow FailedCheck(const std::string& table, const std::string& check, TimePoint at) {
  store::CheckResultRow row;
  row.run_id = "run-" + check;
  row.table_ref = table;
  row.check_name = check;
  row.status = store::CheckStatus::kFail;
  row.observed = {{"null_count", 40}, {"null_rate", 0.2}, {"rows", 200}};
  row.observed_at = at;
  return row;
}

store::ChangeEvent RestoreWithoutState(const std::string& key, const std::string& job, TimePoint at) {
  store::ChangeEvent e;
  e.dedup_key = key;
  e.asset_id = job;
  e.kind = observe::changes::kRestoreSkippedState;
  e.happened_at = at;
  e.observed_at = at;
  e.evidence = {{"savepoint_path", "s3://savepoints/" + key}};
  e.risk = 0.9;
  e.reason = "restored from a savepoint with --allowNonRestoredState; operator state dropped";
  return e;
}

// Every signal key the store's incidents hold, with the latest point each saw.
std::map<std::string, TimePoint> KeysInIncidents(IncidentDesk& desk) {
  IncidentFilter all;
  all.limit = 1000;
  auto list = desk.List(all);
  EXPECT_TRUE(list.ok()) << list.status().ToString();
  std::map<std::string, TimePoint> out;
  if (!list.ok()) return out;
  EXPECT_LT(list->size(), 1000u) << "more incidents than one listing reads";
  for (const Incident& inc : *list)
    for (const SignalRef& s : inc.signals) {
      auto [it, added] = out.emplace(s.key, s.last_at);
      if (!added) it->second = std::max(it->second, s.last_at);
    }
  return out;
}

class SignalCommitOrder : public test_support::DeskTest {
 protected:
  void SetUp() override {
    DeskTest::SetUp();
    if (IsSkipped()) return;
    UseExample("loyalty-flink");
    clock_.Set(At("2026-11-24T15:00:00Z"));
  }

  // Hourly points of `metric` from `from`, `n` of them, about 100 (a steady series with noise).
  void SeedSeries(store::StateStore& st, const std::string& metric, TimePoint from, int n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0, 3);
    std::vector<store::MetricPoint> points;
    for (int i = 0; i < n; ++i) points.push_back({from + std::chrono::hours(i), 100 + noise(rng)});
    ASSERT_TRUE(st.UpsertMetricPoints(metric, points).ok());
  }
};

TEST_P(SignalCommitOrder, AResultStampedBeforeAnotherPassAndCommittedAfterItIsJudgedOnce) {
  clock_.Set(At("2026-11-24T15:00:05Z"));
  ASSERT_TRUE(RunSignalPass(ws_, Desk(), *store_, clock_).ok());  // another job's pass
  // Stamped at 15:00:01, while the check ran; committed now, after that pass.
  ASSERT_TRUE(store_->RecordCheckResults({FailedCheck("table://main/member_balances", "not_null:balance",
                                                      At("2026-11-24T15:00:01Z"))})
                  .ok());
  clock_.Set(At("2026-11-24T15:00:06Z"));
  auto next = RunSignalPass(ws_, Desk(), *store_, clock_);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  ASSERT_EQ(next->opened.size(), 1u) << "the result committed after the last pass is new, whatever its stamp";
  clock_.Set(At("2026-11-24T15:01:00Z"));
  auto again = RunSignalPass(ws_, Desk(), *store_, clock_);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->opened.empty());
  EXPECT_TRUE(again->updated.empty()) << "read once: nothing new was committed";
  EXPECT_EQ(Get(next->opened[0]).signals[0].count, 1);

  // A person closes it; the passes after open nothing from the same result.
  ASSERT_TRUE(Desk().Close(next->opened[0], "ana@example.com", CloseReason::kFalsePositive, "known gap").ok());
  clock_.Set(At("2026-11-24T15:02:00Z"));
  auto after_close = RunSignalPass(ws_, Desk(), *store_, clock_);
  ASSERT_TRUE(after_close.ok());
  EXPECT_TRUE(after_close->opened.empty());
}

TEST_P(SignalCommitOrder, AnHourlyBucketWrittenAfterItsHourIsJudged) {
  const std::string metric = "quality:table://main/member_balances:row_count";
  // 60 hours of history, the last bucket 13:00-14:00, then a pass at 15:00 (other jobs ran).
  SeedSeries(*store_, metric, At("2026-11-22T02:00:00Z"), 60, 7);
  ASSERT_TRUE(RunSignalPass(ws_, Desk(), *store_, clock_).ok());
  // The 14:00 bucket, collected at 15:00:30: the table lost nearly every row. Its time is before
  // the last pass; it was committed after it.
  clock_.Set(At("2026-11-24T15:00:30Z"));
  ASSERT_TRUE(store_->UpsertMetricPoints(metric, {{At("2026-11-24T14:00:00Z"), 2}}).ok());
  clock_.Set(At("2026-11-24T15:01:00Z"));
  auto pass = RunSignalPass(ws_, Desk(), *store_, clock_);
  ASSERT_TRUE(pass.ok()) << pass.status().ToString();
  auto keys = KeysInIncidents(Desk());
  ASSERT_TRUE(keys.count("metric:" + metric)) << "the late bucket's anomaly was not judged";
  EXPECT_EQ(keys["metric:" + metric], At("2026-11-24T14:00:00Z"));

  // The monitor reads its last buckets again each run: an unchanged value is not new.
  clock_.Set(At("2026-11-24T16:00:30Z"));
  ASSERT_TRUE(store_->UpsertMetricPoints(metric, {{At("2026-11-24T14:00:00Z"), 2}}).ok());
  clock_.Set(At("2026-11-24T16:01:00Z"));
  auto reread = RunSignalPass(ws_, Desk(), *store_, clock_);
  ASSERT_TRUE(reread.ok());
  EXPECT_TRUE(reread->opened.empty());
  EXPECT_TRUE(reread->updated.empty()) << "a bucket rewritten with the same value is not a new point";
}

TEST_P(SignalCommitOrder, AStoreFromBeforeTheSequenceReadsByTimeOnceThenBySequence) {
  // What a store written before the sequence holds: the time of its last pass, no sequence cursor.
  ASSERT_TRUE(store_->SetCursor(kLastPassCursor, std::to_string(ToUnixMillis(At("2026-11-24T14:59:00Z")))).ok());
  ASSERT_TRUE(store_->RecordCheckResults({FailedCheck("table://main/member_balances", "not_null:balance",
                                                      At("2026-11-24T14:58:00Z"))})
                  .ok());  // judged by the pass at 14:59
  ASSERT_TRUE(store_->RecordCheckResults({FailedCheck("table://main/member_balances", "not_null:member_id",
                                                      At("2026-11-24T14:59:30Z"))})
                  .ok());
  auto first = RunSignalPass(ws_, Desk(), *store_, clock_);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->opened.size(), 1u);
  const Incident inc = Get(first->opened[0]);
  ASSERT_EQ(inc.signals.size(), 1u) << "only what was stamped after the last pass's time";
  EXPECT_EQ(inc.signals[0].key, "check:table://main/member_balances:not_null:member_id");
  auto cursor = store_->GetCursor(kLastSeqCursor);
  ASSERT_TRUE(cursor.ok() && cursor->has_value());
  auto committed = store_->CommittedSeq();
  ASSERT_TRUE(committed.ok());
  EXPECT_EQ(**cursor, std::to_string(*committed));
}

TEST_P(SignalCommitOrder, ACursorThatIsNoSequenceOrIsPastTheStoresIsRefusedAndNothingIsRead) {
  ASSERT_TRUE(store_->RecordCheckResults({FailedCheck("table://main/member_balances", "not_null:balance",
                                                      At("2026-11-24T14:59:00Z"))})
                  .ok());
  for (const std::string bad : {"1000000", "12abc", "-4"}) {
    ASSERT_TRUE(store_->SetCursor(kLastSeqCursor, bad).ok());
    auto pass = RunSignalPass(ws_, Desk(), *store_, clock_);
    ASSERT_FALSE(pass.ok()) << bad;
    EXPECT_EQ(pass.status().code(), StatusCode::kDataLoss);
    EXPECT_NE(pass.status().message().find(kLastSeqCursor), std::string::npos) << pass.status().message();
    auto cursor = store_->GetCursor(kLastSeqCursor);
    ASSERT_TRUE(cursor.ok() && cursor->has_value());
    EXPECT_EQ(**cursor, bad) << "a refused pass leaves the cursor where it was";
  }
}

// Writers (each a monitor, a check runner and a collector, on a connection of its own) stamp their
// observations with the clock, take a random moment to commit them, and write; passes (two
// replicas on PostgreSQL, serialised as `dw watch` serialises them) advance the clock and run
// meanwhile. Every failed check, every restore without state and the last (bad) bucket of every
// series must end in an incident. DW_COMMIT_ORDER_WRITES scales the run (bench/ runs more).
TEST_P(SignalCommitOrder, ConcurrentMonitorsChecksAndCollectionsLoseNoSignal) {
  const char* scale = std::getenv("DW_COMMIT_ORDER_WRITES");
  const int writes_per_writer = scale != nullptr && std::atoi(scale) > 0 ? std::atoi(scale) : 400;
  constexpr int kWriters = 3;
  constexpr int kTables = 6;
  const uint64_t seed = 20261206;
  for (int t = 0; t < kTables; ++t) {
    config::CheckConfig c;
    c.table = "main.t" + std::to_string(t);
    c.warehouse = "main";
    c.asset_id = "table://main/t" + std::to_string(t);
    ws_.checks.push_back(c);
  }
  // The monitors' series: steady history that ends early enough for every bucket the writers add
  // (one an hour) to be in the past.
  std::vector<std::string> metrics;
  const TimePoint series_start = clock_.Now() - std::chrono::hours(60 + writes_per_writer + 2);
  for (int w = 0; w < kWriters; ++w) {
    metrics.push_back("quality:table://main/t" + std::to_string(w) + ":row_count");
    SeedSeries(*store_, metrics.back(), series_start, 60, seed + w);
  }
  const TimePoint series_end = series_start + 59h;

  std::atomic<bool> writing{true};
  std::mutex keys_mu;
  std::set<std::string> bad_keys;
  std::map<std::string, TimePoint> last_bucket;
  std::atomic<int> failures{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      auto st = Open();
      if (!st) return void(++failures);
      std::mt19937_64 rng(seed * 31 + w);
      int bucket = 0;
      for (int i = 0; i < writes_per_writer; ++i) {
        const TimePoint stamped = clock_.Now();
        // The time a job takes from stamping what it saw to committing it.
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 1500));
        const int what = i == writes_per_writer - 1 ? 2 : static_cast<int>(rng() % 3);
        const std::string id = std::to_string(w) + "-" + std::to_string(i);
        Status s;
        std::string key;
        if (what == 0) {
          const std::string table = "table://main/t" + std::to_string(rng() % kTables);
          s = st->RecordCheckResults({FailedCheck(table, "custom_sql:c" + id, stamped)});
          key = "check:" + table + ":custom_sql:c" + id;
        } else if (what == 1) {
          // The example's job, whose writes reach customers: each restore opens or joins its incident.
          s = st->AddChangeEvent(RestoreWithoutState("restore-" + id, "flink://flink/points-balance", stamped)).status();
          key = "change:restore-" + id;
        } else {
          // The next hourly bucket of this writer's series, written long after its hour; the last
          // one (below) is the drop to nearly nothing.
          const bool last = i == writes_per_writer - 1;
          const TimePoint ts = series_end + std::chrono::hours(++bucket);
          s = st->UpsertMetricPoints(metrics[w], {{ts, last ? 2.0 : 100.0 + static_cast<double>(rng() % 5)}});
          if (last) {
            std::lock_guard<std::mutex> lock(keys_mu);
            last_bucket[metrics[w]] = ts;
          }
        }
        if (!s.ok()) {
          ADD_FAILURE() << "writer " << w << ": " << s.ToString();
          ++failures;
          return;
        }
        if (!key.empty()) {
          std::lock_guard<std::mutex> lock(keys_mu);
          bad_keys.insert(key);
        }
      }
    });
  }
  std::mutex pass_mu;  // one pass at a time, as `dw watch` and its replicas run them
  std::atomic<int> passes{0};
  auto pass_loop = [&] {
    auto st = Open();
    if (!st) return void(++failures);
    IncidentDesk desk(*st, graph_.get(), clock_, options_);  // the graph is only read
    while (writing.load()) {
      std::lock_guard<std::mutex> lock(pass_mu);
      clock_.Advance(1s);
      auto r = RunSignalPass(ws_, desk, *st, clock_);
      if (!r.ok()) {
        ADD_FAILURE() << "pass: " << r.status().ToString();
        ++failures;
        return;
      }
      ++passes;
    }
  };
  std::vector<std::thread> replicas;
  for (int r = 0; r < (Backend() == "postgresql" ? 2 : 1); ++r) replicas.emplace_back(pass_loop);
  for (auto& t : writers) t.join();
  writing = false;
  for (auto& t : replicas) t.join();
  ASSERT_EQ(failures.load(), 0);
  // Some passes ran while the writers wrote (a handful under the sanitizers, hundreds without).
  EXPECT_GE(passes.load(), 3) << "the passes must have run while the writers wrote";
  clock_.Advance(1s);
  ASSERT_TRUE(RunSignalPass(ws_, Desk(), *store_, clock_).ok());

  const auto consumed = KeysInIncidents(Desk());
  std::vector<std::string> lost;
  for (const std::string& key : bad_keys)
    if (!consumed.count(key)) lost.push_back(key);
  std::map<std::string, int> lost_by_kind;
  for (const std::string& key : lost) ++lost_by_kind[key.substr(0, key.find(':'))];
  EXPECT_TRUE(lost.empty()) << lost.size() << " of " << bad_keys.size() << " bad signals were never judged ("
                            << lost_by_kind["check"] << " checks, " << lost_by_kind["change"] << " changes), e.g. "
                            << lost.front();
  for (const auto& [metric, ts] : last_bucket) {
    auto it = consumed.find("metric:" + metric);
    ASSERT_NE(it, consumed.end()) << metric << ": no anomaly judged";
    EXPECT_EQ(it->second, ts) << metric << ": the last bucket written was not judged";
  }
}

INSTANTIATE_TEST_SUITE_P(Store, SignalCommitOrder, ::testing::Values("sqlite", "postgresql"), test_support::BackendName);

}  // namespace
}  // namespace dw::incidents
