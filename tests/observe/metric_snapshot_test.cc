// Judging from the detector snapshot in the store gives the verdicts a full replay gives, for every
// kind of change that invalidates a snapshot (a mark, an incident window, a point written into the
// past, a retention prune, other settings, the history's start moving, a damaged or foreign
// snapshot): each is compared, step by step on the same series, with snapshots off, and each
// says whether it resumed or replayed and why. On both backends (PostgreSQL under
// scripts/with-postgres.sh), and under three snapshot cadences (MetricToJudge::snapshot_every:
// 1, a snapshot after every judgement; 5; and the product's): each equals the full replay bit for
// bit, so the cadences equal each other, through every kind of invalidation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "observe/metrics/metric_batch.h"
#include "observe/metrics/metric_replayer.h"
#include "observe/metrics/metric_service.h"
#include "store/metric_snapshots.h"
#include "store/state_store.h"
#include "tests/store/store_test_support.h"

namespace dw::observe::metrics {
namespace {
namespace metric_snapshot_test {


constexpr int64_t kHour = 3600LL * 1000;
constexpr int64_t kStart = 1767225600000LL;  // 2026-01-01 00:00 UTC
constexpr size_t kWarm = 1400;

double Value(size_t i) {
  double noise = static_cast<double>((i * 104729 + 7919) % 1000) / 1000.0 - 0.5;
  return 100 * (1 + 0.3 * std::sin(2 * M_PI * static_cast<double>(i % 24) / 24)) + 4 * noise;
}

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

class MetricSnapshotTest : public store::test_support::StoreOnEachBackend {
 protected:
  MetricSnapshotTest() : StoreOnEachBackend(FromUnixMillis(kStart)) {}

  // The cadence of the parameter "backend:K".
  int Every() const { return std::atoi(GetParam().substr(GetParam().find(':') + 1).c_str()); }

  void SetUp() override {
    StoreOnEachBackend::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_GE(Every(), 1);
    std::vector<IncomingPoint> warm;
    for (size_t i = 0; i < kWarm; ++i) warm.push_back({kStart + static_cast<int64_t>(i) * kHour, Value(i)});
    ASSERT_TRUE(RecordMetricPoints(*store_, "orders", warm).ok());
    next_ = kWarm;
    clock_.Set(FromUnixMillis(kStart + static_cast<int64_t>(kWarm - 1) * kHour));
  }

  UnlearntWindows Windows() {
    return [this](const std::string&, const std::string&, TimePoint, TimePoint) -> Result<std::vector<UnlearntWindow>> {
      return windows_;
    };
  }

  // Judges the latest point with and without snapshots; expects the same verdict and counts.
  MetricJudgement Judge() {
    MonitorSettings off = settings_;
    off.use_snapshots = false;
    auto with = std::move(JudgeLatestPoints(*store_, {{"orders", settings_, Every()}}, clock_, EachOf(Windows())).front());
    auto without = JudgeLatestPoint(*store_, "orders", off, clock_, Windows());
    EXPECT_TRUE(with.ok()) << with.status().ToString();
    EXPECT_TRUE(without.ok()) << without.status().ToString();
    if (!with.ok() || !without.ok()) return {};
    const Verdict &a = with->latest, &b = without->latest;
    std::string where = "point " + std::to_string(next_) + " (" + with->replay_reason + ")";
    EXPECT_EQ(a.ts_ms, b.ts_ms) << where;
    EXPECT_EQ(a.kind, b.kind) << where;
    EXPECT_TRUE(SameBits(a.expected, b.expected)) << where;
    EXPECT_TRUE(SameBits(a.score, b.score)) << where;
    EXPECT_TRUE(SameBits(a.deviation, b.deviation)) << where;
    EXPECT_TRUE(SameBits(a.band_low, b.band_low)) << where;
    EXPECT_EQ(a.explanation, b.explanation) << where;
    EXPECT_EQ(a.learnt, b.learnt) << where;
    EXPECT_EQ(with->history_points, without->history_points) << where;
    EXPECT_EQ(with->marked_points, without->marked_points) << where;
    EXPECT_EQ(with->incident_points, without->incident_points) << where;
    EXPECT_EQ(with->seasonality, without->seasonality) << where;
    EXPECT_FALSE(without->from_snapshot);
    return *with;
  }

  // One hour later, one new point (scaled by `factor`), judged.
  MetricJudgement Step(double factor = 1) {
    int64_t ts = kStart + static_cast<int64_t>(next_) * kHour;
    clock_.Set(FromUnixMillis(ts));
    EXPECT_TRUE(RecordMetricPoints(*store_, "orders", {{ts, Value(next_) * factor}}).ok());
    ++next_;
    return Judge();
  }

  int64_t PointMs(size_t i) const { return kStart + static_cast<int64_t>(i) * kHour; }

  // The next judgement replays (for `reason_part`), the one after resumes from a snapshot.
  // `history` is the least number of points the replay feeds (the whole history).
  void ExpectResumesAfterOneReplay(const std::string& reason_part, size_t history = 500) {
    MetricJudgement replayed = Step();
    EXPECT_FALSE(replayed.from_snapshot) << "expected a replay because of " << reason_part;
    EXPECT_NE(replayed.replay_reason.find(reason_part), std::string::npos) << replayed.replay_reason;
    EXPECT_GT(replayed.points_fed, history);
    MetricJudgement resumed = Step();
    EXPECT_TRUE(resumed.from_snapshot) << resumed.replay_reason;
    EXPECT_EQ(resumed.points_fed, 2u);  // the point after the snapshot, and the new one
  }

  MonitorSettings settings_;
  std::vector<UnlearntWindow> windows_;
  size_t next_ = 0;
};

TEST_P(MetricSnapshotTest, AppendsResumeFromTheSnapshotWithTheReplaysVerdicts) {
  MetricJudgement first = Judge();
  EXPECT_FALSE(first.from_snapshot);
  EXPECT_EQ(first.replay_reason, "no snapshot yet");
  for (int i = 0; i < 30; ++i) {
    MetricJudgement j = Step(i == 10 || i == 11 ? 0.2 : 1.0);  // a drop on the way
    EXPECT_TRUE(j.from_snapshot) << i << ": " << j.replay_reason;
  }
  // Judging again with no new point re-judges the same latest point from the snapshot (with a
  // cadence, after the points since the snapshot, fewer than the cadence).
  MetricJudgement again = Judge();
  EXPECT_TRUE(again.from_snapshot);
  EXPECT_GE(again.points_fed, 1u);
  EXPECT_LE(again.points_fed, static_cast<size_t>(Every()));
  if (Every() == 1) {
    EXPECT_EQ(again.points_fed, 1u);
  }
}

TEST_P(MetricSnapshotTest, AResumedJudgementSavesOnceEverySnapshotEveryPointsAndFeedsNoMore) {
  settings_.training_window_ms = 400 * 24 * kHour;  // no new training period within the 64 steps
  Judge();  // replays and saves
  auto through = [&]() -> int64_t {
    auto load = store::MetricSnapshotsOf(*store_)->LoadMetricSnapshot("orders");
    EXPECT_TRUE(load.ok() && load->snapshot) << load.status().ToString();
    return load.ok() && load->snapshot ? ToUnixMillis(load->snapshot->through) : -1;
  };
  const size_t every = static_cast<size_t>(Every());
  const size_t steps = 4 * every;
  int64_t last = through();
  size_t saves = 0;
  for (size_t i = 0; i < steps; ++i) {
    MetricJudgement j = Step();
    EXPECT_TRUE(j.from_snapshot) << i << ": " << j.replay_reason;
    // The points after the snapshot and the new one: never more than the cadence and one.
    EXPECT_LE(j.points_fed, every + 1) << i;
    int64_t now = through();
    if (now != last) {
      ++saves;
      EXPECT_EQ(now, PointMs(next_ - 2)) << i;  // a save is through the point before the latest
    }
    last = now;
  }
  // One point a judgement: any `every` consecutive judgements hold exactly one turn.
  EXPECT_EQ(saves, steps / every);
}

TEST_P(MetricSnapshotTest, AMarkOverLearntPointsReplaysOnceAndAFutureMarkDoesNot) {
  Judge();
  Step();
  ASSERT_TRUE(store_->AddMetricMark({0, "orders", FromUnixMillis(PointMs(next_ - 10)),
                                     FromUnixMillis(PointMs(next_ - 5)), "migration", {}, "ana@example.com"}).ok());
  ExpectResumesAfterOneReplay("mark");
  // A mark that only covers points not yet learnt changes nothing learnt.
  ASSERT_TRUE(store_->AddMetricMark({0, "orders", FromUnixMillis(PointMs(next_ + 1)),
                                     FromUnixMillis(PointMs(next_ + 4)), "holiday", {}, "ana@example.com"}).ok());
  for (int i = 0; i < 6; ++i) {
    MetricJudgement j = Step(0.3);
    EXPECT_TRUE(j.from_snapshot) << i << ": " << j.replay_reason;
  }
  EXPECT_GT(Step().marked_points, 6u);
}

TEST_P(MetricSnapshotTest, AnIncidentWindowOverLearntPointsReplaysAndItsClosingLaterDoesNot) {
  Judge();
  Step();
  windows_.push_back({"incident inc-1", FromUnixMillis(PointMs(next_ - 3)), std::nullopt});
  ExpectResumesAfterOneReplay("incident window");
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(Step(2.0).from_snapshot);
  // Closing it now, after the points the snapshot learnt, changes nothing they were judged under.
  windows_[0].to = FromUnixMillis(PointMs(next_));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(Step().from_snapshot);
  // Closing it earlier than it was (an edit of the past), one point after it began: inside what
  // every snapshot since the replay learnt, whatever the cadence, so it replays.
  windows_[0].to = FromUnixMillis(PointMs(next_ - 10));
  ExpectResumesAfterOneReplay("incident window");
}

TEST_P(MetricSnapshotTest, APointInsertedOrRewrittenBeforeTheSnapshotReplays) {
  Judge();
  Step();
  Step();
  ASSERT_TRUE(RecordMetricPoints(*store_, "orders", {{PointMs(next_ - 20) + kHour / 2, 55.0}}).ok());
  ExpectResumesAfterOneReplay("written or pruned");
  ASSERT_TRUE(RecordMetricPoints(*store_, "orders", {{PointMs(next_ - 4), 12.0}}).ok());  // a new value
  ExpectResumesAfterOneReplay("written or pruned");
  // Writing back a point exactly as stored (a series_sql backfill) is not a rewrite.
  ASSERT_TRUE(RecordMetricPoints(*store_, "orders", {{PointMs(next_ - 30), Value(next_ - 30)}}).ok());
  EXPECT_TRUE(Step().from_snapshot);
}

TEST_P(MetricSnapshotTest, APruneIntoTheHistoryReplaysAndOneBeforeItDoesNot) {
  Judge();
  Step();
  int64_t start = HistoryStartMs("orders", settings_.training_window_ms, PointMs(next_));
  auto none = store_->DeleteMetricPointsBefore("orders", FromUnixMillis(start));
  ASSERT_TRUE(none.ok());
  EXPECT_GT(*none, 0);  // the warm-up reaches further back than the history
  EXPECT_TRUE(Step().from_snapshot);
  auto some = store_->DeleteMetricPointsBefore("orders", FromUnixMillis(start + 50 * kHour));
  ASSERT_TRUE(some.ok());
  EXPECT_EQ(*some, 50);
  ExpectResumesAfterOneReplay("written or pruned");
}

TEST_P(MetricSnapshotTest, OtherSettingsReplay) {
  Judge();
  Step();
  settings_.detector.sensitivity = 3.5;
  ExpectResumesAfterOneReplay("other detector settings");
  settings_.timezone = "Europe/Berlin";
  ExpectResumesAfterOneReplay("other detector settings");
}

TEST_P(MetricSnapshotTest, ANewTrainingPeriodReplaysOnce) {
  settings_.training_window_ms = 7 * 24 * kHour;  // a period within 168 steps
  Judge();
  Step();
  int64_t start = HistoryStartMs("orders", settings_.training_window_ms, PointMs(next_ - 1));
  size_t steps = 0;
  while (HistoryStartMs("orders", settings_.training_window_ms, PointMs(next_)) == start) {
    EXPECT_TRUE(Step().from_snapshot);
    ASSERT_LT(++steps, 200u);
  }
  ExpectResumesAfterOneReplay("history now starts", 7 * 24);
}

TEST_P(MetricSnapshotTest, ADamagedOrForeignSnapshotIsDiscardedAndReplayed) {
  Judge();
  Step();
  auto load = store::MetricSnapshotsOf(*store_)->LoadMetricSnapshot("orders");
  ASSERT_TRUE(load.ok()) << load.status().ToString();
  ASSERT_TRUE(load->snapshot.has_value());
  store::MetricSnapshotRecord bad = *load->snapshot;
  bad.state[bad.state.size() / 2] ^= 0x20;
  ASSERT_TRUE(store::MetricSnapshotsOf(*store_)->SaveMetricSnapshot(bad).ok());
  ExpectResumesAfterOneReplay("checksum");
  bad.state = "not a snapshot at all";
  ASSERT_TRUE(store::MetricSnapshotsOf(*store_)->SaveMetricSnapshot(bad).ok());
  ExpectResumesAfterOneReplay("not a snapshot");
}

TEST_P(MetricSnapshotTest, ASaveUnderARewrittenHistoryIsRefused) {
  Judge();
  Step();
  auto load = store::MetricSnapshotsOf(*store_)->LoadMetricSnapshot("orders");
  ASSERT_TRUE(load.ok());
  ASSERT_TRUE(load->snapshot.has_value());
  ASSERT_TRUE(RecordMetricPoints(*store_, "orders", {{PointMs(next_ - 3), 1.0}}).ok());
  auto saved = store::MetricSnapshotsOf(*store_)->SaveMetricSnapshot(*load->snapshot);  // learnt before the rewrite
  ASSERT_TRUE(saved.ok());
  EXPECT_FALSE(*saved);
  auto after = store::MetricSnapshotsOf(*store_)->LoadMetricSnapshot("orders");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->revision, load->revision + 1);
}

TEST_P(MetricSnapshotTest, TheStateIsStoredAsItsBytesNotAsText) {
  Judge();
  auto load = store::MetricSnapshotsOf(*store_)->LoadMetricSnapshot("orders");
  ASSERT_TRUE(load.ok()) << load.status().ToString();
  ASSERT_TRUE(load->snapshot.has_value());
  auto conn = scratch_->Connect();
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  const bool pg = Backend() == "postgresql";
  auto rows = (*conn)->Query(pg ? "SELECT octet_length(state), pg_typeof(state)::text FROM metric_snapshots"
                                : "SELECT length(state), typeof(state) FROM metric_snapshots");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(std::get<int64_t>((*rows)[0][0]), static_cast<int64_t>(load->snapshot->state.size()));
  EXPECT_EQ(std::get<std::string>((*rows)[0][1]), pg ? "bytea" : "blob");
  // Under the 16 kB of the scale issue for a series of this length (1,400 hourly points).
  EXPECT_LE(load->snapshot->state.size(), 16u * 1024);
  if (pg) {
    // Migration 9: kept out of line, never compressed ('e', EXTERNAL; the default is 'x').
    auto storage = (*conn)->Query(
        "SELECT attstorage::text FROM pg_attribute WHERE attrelid = 'metric_snapshots'::regclass AND attname = 'state'");
    ASSERT_TRUE(storage.ok()) << storage.status().ToString();
    ASSERT_EQ(storage->size(), 1u);
    EXPECT_EQ(std::get<std::string>((*storage)[0][0]), "e");
  }
}

INSTANTIATE_TEST_SUITE_P(Store, MetricSnapshotTest,
                         ::testing::Values("sqlite:1", "sqlite:5", "sqlite:" + std::to_string(kSnapshotEveryPoints),
                                           "postgresql:1", "postgresql:5",
                                           "postgresql:" + std::to_string(kSnapshotEveryPoints)),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           return name.replace(name.find(':'), 1, "_every_");
                         });

}  // namespace metric_snapshot_test
}  // namespace
}  // namespace dw::observe::metrics
