// Recording and judging many metrics in one call (metric_batch.h) gives, metric by metric, the
// reports and verdicts of the one-metric path (compared bit for bit with a full replay), in a
// batch mixing metrics that resume, have no snapshot yet, have a stale one (a point rewritten in
// their past, a mark over what they learnt), have no point at all or cannot be judged (they fail
// alone, with their error); a save racing a rewrite is refused for that metric alone. And the
// store's batch statements answer each entry exactly as the single-metric statements do, names
// with quotes, commas, braces and backslashes included. On both backends (PostgreSQL under
// scripts/with-postgres.sh).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "observe/metrics/metric_batch.h"
#include "observe/metrics/metric_service.h"
#include "store/metric_batches.h"
#include "store/metric_snapshots.h"
#include "store/state_store.h"
#include "tests/store/store_test_support.h"

namespace dw::observe::metrics {
namespace {
namespace metric_batch_test {

constexpr int64_t kHour = 3600LL * 1000;
constexpr int64_t kStart = 1767225600000LL;  // 2026-01-01 00:00 UTC
constexpr size_t kWarm = 400;

double Value(size_t shape, size_t i) {
  double noise = static_cast<double>((i * 104729 + 7919 * (shape + 1)) % 1000) / 1000.0 - 0.5;
  return (100 + 10 * static_cast<double>(shape)) * (1 + 0.3 * std::sin(2 * M_PI * static_cast<double>(i % 24) / 24)) +
         4 * noise;
}

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

int64_t PointMs(size_t i) { return kStart + static_cast<int64_t>(i) * kHour; }

class MetricBatchTest : public store::test_support::StoreOnEachBackend {
 protected:
  MetricBatchTest() : StoreOnEachBackend(FromUnixMillis(kStart)) {}

  void SetUp() override {
    StoreOnEachBackend::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    for (size_t m = 0; m < names_.size() - 1; ++m) {  // the last one never gets a point
      std::vector<IncomingPoint> warm;
      for (size_t i = 0; i < kWarm; ++i) warm.push_back({PointMs(i), Value(m, i)});
      auto r = RecordMetricPoints(*store_, names_[m], warm);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
    next_ = kWarm;
    clock_.Set(FromUnixMillis(PointMs(kWarm - 1)));
  }

  std::vector<MetricToJudge> Batch(const std::vector<std::string>& names) {
    std::vector<MetricToJudge> out;
    for (const auto& n : names) out.push_back({n, settings_});
    return out;
  }

  // One hour later, a new point for each of `names` (but the last of names_), recorded in one
  // batch.
  void Append(const std::vector<std::string>& names) {
    clock_.Set(FromUnixMillis(PointMs(next_)));
    std::vector<MetricPointsToRecord> batch;
    for (size_t m = 0; m < names.size(); ++m) batch.push_back({names[m], {{PointMs(next_), Value(m, next_)}}});
    for (const auto& r : RecordMetricPointsOfMany(*store_, batch)) EXPECT_TRUE(r.ok()) << r.status().ToString();
    ++next_;
  }

  // Expects `got` to be the verdict of a full replay of `metric` (snapshots off, one at a time).
  void ExpectSameAsReplay(const std::string& metric, const MetricJudgement& got) {
    MonitorSettings off = settings_;
    off.use_snapshots = false;
    auto want = JudgeLatestPoint(*store_, metric, off, clock_, {});
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    const Verdict &a = got.latest, &b = want->latest;
    std::string where = metric + " (" + got.replay_reason + ")";
    EXPECT_EQ(a.ts_ms, b.ts_ms) << where;
    EXPECT_EQ(a.kind, b.kind) << where;
    EXPECT_TRUE(SameBits(a.expected, b.expected)) << where;
    EXPECT_TRUE(SameBits(a.score, b.score)) << where;
    EXPECT_TRUE(SameBits(a.deviation, b.deviation)) << where;
    EXPECT_TRUE(SameBits(a.band_low, b.band_low)) << where;
    EXPECT_TRUE(SameBits(a.band_high, b.band_high)) << where;
    EXPECT_EQ(a.explanation, b.explanation) << where;
    EXPECT_EQ(got.history_points, want->history_points) << where;
    EXPECT_EQ(got.marked_points, want->marked_points) << where;
    EXPECT_EQ(got.seasonality, want->seasonality) << where;
  }

  // names_[0..3] have points; names_[4] has none.
  std::vector<std::string> names_ = {"orders", "quality:table://main/t:row_count", "odd/name-with.dots:and_colons",
                                     "refunds", "never_measured"};
  MonitorSettings settings_;
  size_t next_ = 0;
};

TEST_P(MetricBatchTest, ABatchMixingFreshStaleAndMissingMetricsJudgesEachAsAReplayWould) {
  const std::vector<std::string> measured(names_.begin(), names_.begin() + 4);
  // A first judgement of orders and refunds only: they get snapshots, the others do not.
  for (const auto& j : JudgeLatestPoints(*store_, Batch({"orders", "refunds"}), clock_, {}))
    ASSERT_TRUE(j.ok()) << j.status().ToString();
  Append(measured);
  // refunds' snapshot goes stale: a point rewritten in the past it learnt.
  ASSERT_TRUE(RecordMetricPoints(*store_, "refunds", {{PointMs(next_ - 20), 5.0}}).ok());
  std::vector<MetricToJudge> batch = Batch(names_);
  MonitorSettings broken = settings_;
  broken.timezone = "Nowhere/Atlantis";
  batch.push_back({names_[2], broken});  // the same series under a zone that cannot be loaded
  auto got = JudgeLatestPoints(*store_, batch, clock_, {});
  ASSERT_EQ(got.size(), batch.size());
  ASSERT_TRUE(got[0].ok()) << got[0].status().ToString();
  EXPECT_TRUE(got[0]->from_snapshot) << got[0]->replay_reason;
  EXPECT_EQ(got[0]->points_fed, 2u);
  ASSERT_TRUE(got[1].ok()) << got[1].status().ToString();
  EXPECT_EQ(got[1]->replay_reason, "no snapshot yet");
  ASSERT_TRUE(got[2].ok()) << got[2].status().ToString();
  EXPECT_EQ(got[2]->replay_reason, "no snapshot yet");
  ASSERT_TRUE(got[3].ok()) << got[3].status().ToString();
  EXPECT_FALSE(got[3]->from_snapshot);
  EXPECT_NE(got[3]->replay_reason.find("written or pruned since"), std::string::npos) << got[3]->replay_reason;
  ASSERT_FALSE(got[4].ok());
  EXPECT_EQ(got[4].status().code(), StatusCode::kNotFound);
  EXPECT_NE(got[4].status().message().find("never_measured"), std::string::npos) << got[4].status().ToString();
  ASSERT_FALSE(got[5].ok());
  EXPECT_NE(got[5].status().message().find("Nowhere/Atlantis"), std::string::npos) << got[5].status().ToString();
  for (size_t m = 0; m < 4; ++m) ExpectSameAsReplay(names_[m], *got[m]);

  // A mark over what orders learnt: it alone replays; the others resume from the batch's saves.
  ASSERT_TRUE(store_->AddMetricMark({0, "orders", FromUnixMillis(PointMs(next_ - 30)),
                                     FromUnixMillis(PointMs(next_ - 25)), "load test", {}, "ana@example.com"})
                  .ok());
  Append(measured);
  got = JudgeLatestPoints(*store_, Batch(measured), clock_, {});
  ASSERT_EQ(got.size(), 4u);
  for (size_t m = 0; m < 4; ++m) {
    ASSERT_TRUE(got[m].ok()) << got[m].status().ToString();
    EXPECT_EQ(got[m]->from_snapshot, m != 0) << names_[m] << ": " << got[m]->replay_reason;
    ExpectSameAsReplay(names_[m], *got[m]);
  }
  EXPECT_NE(got[0]->replay_reason.find("a mark"), std::string::npos) << got[0]->replay_reason;
  EXPECT_GT(got[0]->marked_points, 0u);

  // Some hours on, with a drop in one series: every metric resumes and matches a replay.
  bool alarmed = false;
  for (int step = 0; step < 6; ++step) {
    clock_.Set(FromUnixMillis(PointMs(next_)));
    std::vector<MetricPointsToRecord> points;
    for (size_t m = 0; m < 4; ++m)
      points.push_back({names_[m], {{PointMs(next_), Value(m, next_) * (m == 1 && step >= 3 ? 0.1 : 1.0)}}});
    for (const auto& r : RecordMetricPointsOfMany(*store_, points)) ASSERT_TRUE(r.ok()) << r.status().ToString();
    ++next_;
    got = JudgeLatestPoints(*store_, Batch(measured), clock_, {});
    for (size_t m = 0; m < 4; ++m) {
      ASSERT_TRUE(got[m].ok()) << got[m].status().ToString();
      EXPECT_TRUE(got[m]->from_snapshot) << names_[m] << ": " << got[m]->replay_reason;
      ExpectSameAsReplay(names_[m], *got[m]);
    }
    alarmed = alarmed || IsAlarm(got[1]->latest.kind);
  }
  EXPECT_TRUE(alarmed);
}

TEST_P(MetricBatchTest, EachMetricGetsItsOwnIncidentWindowsAndAWindowErrorFailsOnlyItsMetric) {
  const std::vector<std::string> measured(names_.begin(), names_.begin() + 4);
  for (const auto& j : JudgeLatestPoints(*store_, Batch(measured), clock_, {})) ASSERT_TRUE(j.ok());
  Append(measured);
  std::vector<UnlearntWindowsRequest> asked;
  UnlearntWindowsOfMany windows = [&](const std::vector<UnlearntWindowsRequest>& requests) {
    asked = requests;
    std::vector<Result<std::vector<UnlearntWindow>>> out;
    for (const auto& r : requests) {
      std::vector<UnlearntWindow> none;
      if (r.metric == "refunds") out.emplace_back(Unavailable("the incident store is down for refunds"));
      else if (r.metric == "orders")
        out.emplace_back(std::vector<UnlearntWindow>{{"incident I-1", FromUnixMillis(PointMs(next_ - 40)), std::nullopt}});
      else out.emplace_back(std::move(none));
    }
    return out;
  };
  auto got = JudgeLatestPoints(*store_, Batch(measured), clock_, windows);
  ASSERT_EQ(asked.size(), 4u);  // one call for the whole batch
  for (const auto& r : asked) EXPECT_EQ(r.to, FromUnixMillis(ToUnixMillis(clock_.Now()) + 1));
  ASSERT_TRUE(got[0].ok()) << got[0].status().ToString();
  EXPECT_FALSE(got[0]->from_snapshot);  // the window covers points it learnt
  EXPECT_GT(got[0]->incident_points, 0u);
  EXPECT_TRUE(got[1].ok() && got[1]->from_snapshot);
  EXPECT_TRUE(got[2].ok() && got[2]->from_snapshot);
  ASSERT_FALSE(got[3].ok());
  EXPECT_EQ(got[3].status().message(), "the incident store is down for refunds");
}

TEST_P(MetricBatchTest, RecordingManyReportsWhatRecordingEachWouldAndABadEntryFailsAlone) {
  clock_.Set(FromUnixMillis(PointMs(kWarm)));
  std::vector<MetricPointsToRecord> batch = {
      {"orders", {{PointMs(kWarm), 1.0}, {PointMs(kWarm), 2.0}, {PointMs(kWarm + 1), std::nan("")}}},
      {"bad name!", {{PointMs(kWarm), 1.0}}},
      {"refunds", {{PointMs(kWarm - 5), Value(3, kWarm - 5)}, {PointMs(kWarm - 3), 7.0}}},
      {"orders", {{PointMs(kWarm + 2), 1.0}}},
      {"new_metric", {{PointMs(kWarm), 3.0}}},
  };
  auto got = RecordMetricPointsOfMany(*store_, batch);
  ASSERT_EQ(got.size(), batch.size());
  ASSERT_TRUE(got[0].ok()) << got[0].status().ToString();
  EXPECT_EQ(got[0]->stored, 1u);
  EXPECT_EQ(got[0]->duplicates, 1u);
  EXPECT_EQ(got[0]->rejected.size(), 1u);
  ASSERT_FALSE(got[1].ok());
  EXPECT_EQ(got[1].status().code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(got[2].ok()) << got[2].status().ToString();
  EXPECT_EQ(got[2]->stored, 2u);
  EXPECT_EQ(got[2]->replaced, 2u);
  EXPECT_EQ(got[2]->out_of_order, 2u);
  ASSERT_FALSE(got[3].ok());
  EXPECT_NE(got[3].status().message().find("twice"), std::string::npos) << got[3].status().ToString();
  ASSERT_TRUE(got[4].ok()) << got[4].status().ToString();

  auto orders = store_->MetricPoints("orders", FromUnixMillis(PointMs(kWarm)), FromUnixMillis(PointMs(kWarm + 10)));
  ASSERT_TRUE(orders.ok());
  ASSERT_EQ(orders->size(), 1u);  // the duplicate's last value, and nothing of the second entry
  EXPECT_EQ(orders->front().value, 2.0);
  auto refunds = store_->MetricPoints("refunds", FromUnixMillis(PointMs(kWarm - 5)), FromUnixMillis(PointMs(kWarm)));
  ASSERT_TRUE(refunds.ok());
  ASSERT_EQ(refunds->size(), 5u);
  EXPECT_EQ((*refunds)[2].value, 7.0);
  // refunds' rewrite bumped its history revision (only the value at kWarm-3 changed: the one at
  // kWarm-5 was offered with its stored value, so it was not written at all); orders' append did not.
  auto loads = store::MetricBatchesOf(*store_)->LoadMetricSnapshots({"orders", "refunds", "new_metric"});
  ASSERT_TRUE(loads.ok()) << loads.status().ToString();
  EXPECT_EQ((*loads)[0]->revision, 0);
  EXPECT_EQ((*loads)[1]->revision, 1);
  EXPECT_EQ((*loads)[2]->revision, 0);
}

TEST_P(MetricBatchTest, TheStoresBatchStatementsAnswerEachEntryAsTheSingleOnes) {
  store::MetricBatches* batches = store::MetricBatchesOf(*store_);
  ASSERT_NE(batches, nullptr);
  // The store takes any name; this one would break an array literal that did not quote it.
  const std::string odd = "a,b{c}\"d\\e NULL";
  std::vector<store::MetricPoint> odd_points;
  for (size_t i = 0; i < 60; ++i) odd_points.push_back({FromUnixMillis(PointMs(i)), Value(7, i)});
  ASSERT_TRUE(store_->UpsertMetricPoints(odd, odd_points).ok());
  names_[2] = odd;
  ASSERT_TRUE(store_->AddMetricMark({0, names_[2], FromUnixMillis(PointMs(10)), FromUnixMillis(PointMs(20)), "a \"quoted\" note", {}, "ana@example.com"}).ok());
  ASSERT_TRUE(store_->AddMetricMark({0, names_[2], FromUnixMillis(PointMs(5)), FromUnixMillis(PointMs(12)), "", {}, "ana@example.com"}).ok());
  ASSERT_TRUE(store_->AddMetricMark({0, "orders", FromUnixMillis(PointMs(30)), FromUnixMillis(PointMs(31)), "", {}, "ana@example.com"}).ok());
  std::vector<store::MetricRange> ranges;
  for (const auto& n : names_) ranges.push_back({n, FromUnixMillis(PointMs(8)), FromUnixMillis(PointMs(40))});
  ranges.push_back({names_[2], FromUnixMillis(PointMs(21)), FromUnixMillis(PointMs(22))});  // the same metric again
  ranges.push_back({"orders", FromUnixMillis(PointMs(50)), FromUnixMillis(PointMs(50))});   // empty range
  auto points = batches->MetricPointsOfMany(ranges);
  auto marks = batches->MetricMarksOfMany(ranges);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_TRUE(marks.ok()) << marks.status().ToString();
  ASSERT_EQ(points->size(), ranges.size());
  ASSERT_EQ(marks->size(), ranges.size());
  size_t total_marks = 0;
  for (size_t i = 0; i < ranges.size(); ++i) {
    auto one = store_->MetricPoints(ranges[i].metric, ranges[i].from, ranges[i].to);
    auto one_marks = store_->MetricMarks(ranges[i].metric, ranges[i].from, ranges[i].to);
    ASSERT_TRUE(one.ok() && one_marks.ok());
    ASSERT_EQ((*points)[i].size(), one->size()) << i;
    for (size_t k = 0; k < one->size(); ++k) {
      EXPECT_EQ((*points)[i][k].ts, (*one)[k].ts);
      EXPECT_TRUE(SameBits((*points)[i][k].value, (*one)[k].value));
    }
    ASSERT_EQ((*marks)[i].size(), one_marks->size()) << i;
    for (size_t k = 0; k < one_marks->size(); ++k) {
      EXPECT_EQ((*marks)[i][k].id, (*one_marks)[k].id);
      EXPECT_EQ((*marks)[i][k].note, (*one_marks)[k].note);
    }
    total_marks += one_marks->size();
  }
  EXPECT_EQ((*points)[0].size(), 32u);
  EXPECT_EQ((*points)[4].size(), 0u);
  EXPECT_EQ(total_marks, 3u);  // two on names_[2] in the first range (none reaches its second), one on orders

  // A snapshot save racing a rewrite: the rewritten metric's save is refused, the others stored.
  for (const auto& j : JudgeLatestPoints(*store_, Batch({"orders", "refunds", names_[2]}), clock_, {}))
    ASSERT_TRUE(j.ok()) << j.status().ToString();
  auto loads = batches->LoadMetricSnapshots({"orders", "refunds", names_[2], "never_measured"});
  ASSERT_TRUE(loads.ok()) << loads.status().ToString();
  ASSERT_EQ(loads->size(), 4u);
  for (size_t i = 0; i < 3; ++i) ASSERT_TRUE((*loads)[i].ok() && (*loads)[i]->snapshot) << i;
  ASSERT_TRUE((*loads)[3].ok());
  EXPECT_FALSE((*loads)[3]->snapshot.has_value());
  EXPECT_EQ((*loads)[2]->snapshot->metric, names_[2]);
  ASSERT_TRUE(RecordMetricPoints(*store_, "refunds", {{PointMs(kWarm - 10), 1.0}}).ok());  // after the load
  std::vector<store::MetricSnapshotRecord> saves;
  for (size_t i = 0; i < 3; ++i) saves.push_back(*(*loads)[i]->snapshot);
  auto saved = batches->SaveMetricSnapshots(saves);
  ASSERT_TRUE(saved.ok()) << saved.status().ToString();
  EXPECT_EQ(*saved, (std::vector<bool>{true, false, true}));
  auto after = store::MetricSnapshotsOf(*store_)->LoadMetricSnapshot("refunds");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->revision, (*loads)[1]->revision + 1);
  EXPECT_NE(after->snapshot->revision, after->revision);  // the stale one stays stale
  // And the judgement after it replays refunds alone.
  auto got = JudgeLatestPoints(*store_, Batch({"orders", "refunds", names_[2]}), clock_, {});
  ASSERT_TRUE(got[0].ok() && got[1].ok() && got[2].ok());
  EXPECT_TRUE(got[0]->from_snapshot);
  EXPECT_FALSE(got[1]->from_snapshot);
  EXPECT_TRUE(got[2]->from_snapshot);

  // Bad input: an empty metric stores nothing; a metric written twice in one batch is refused.
  EXPECT_EQ(batches->SaveMetricSnapshots({store::MetricSnapshotRecord{}}).status().code(), StatusCode::kInvalidArgument);
  Status twice = batches->UpsertMetricPointsOfMany({{"orders", {{FromUnixMillis(PointMs(kWarm)), 1.0}}},
                                                    {"orders", {{FromUnixMillis(PointMs(kWarm + 1)), 1.0}}}});
  EXPECT_EQ(twice.code(), StatusCode::kInvalidArgument) << twice.ToString();
  auto none = store_->MetricPoints("orders", FromUnixMillis(PointMs(kWarm)), FromUnixMillis(PointMs(kWarm + 5)));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

INSTANTIATE_TEST_SUITE_P(Store, MetricBatchTest, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace metric_batch_test
}  // namespace
}  // namespace dw::observe::metrics
