// What shapes a metric's training besides its points, on both state-store backends: ranges a
// person marked expected (stored, surviving a reopen, learnt on every later replay) and incidents
// on the metric (their points judged but not learnt, unless marked expected); and retention.
#include <gtest/gtest.h>

#include "observe/metrics/metric_marks.h"
#include "observe/metrics/metric_service.h"
#include "observe/metrics/retention.h"
#include "tests/store/store_test_support.h"
#include "workspace/incident_windows.h"

namespace dw::observe::metrics {
namespace {
namespace metric_training_test {


constexpr int64_t kHour = 3600LL * 1000;
constexpr int64_t kDay = 24 * kHour;
const int64_t kStart = 1767225600000LL;  // 2026-01-01 00:00 UTC


class MetricTrainingTest : public store::test_support::StoreOnEachBackend {
 protected:
  MetricTrainingTest() : StoreOnEachBackend(FromUnixMillis(kStart + 610 * kHour)) {}
  void SetUp() override {
    StoreOnEachBackend::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    config::MonitorConfig m;
    m.name = "balance";
    m.warehouse = "main";
    m.spec = Json{{"name", "balance"}, {"warehouse", "main"}, {"sql", "SELECT 1"},
                  {"asset", "table://main/loyalty.member_balances"}};
    ws_.monitors.push_back(m);
  }
  // 600 hourly points near 100, then 10 at 200 (points 600..609); now is just after the last one.
  // (The long quiet history keeps the shift under 2% of the residuals, so the detector's tail-based
  // spread does not widen the band around it.)
  void RecordLevelChange() {
    std::vector<IncomingPoint> pts;
    for (int i = 0; i < 610; ++i) pts.push_back({kStart + i * kHour, i < 600 ? 100.0 + (i % 5) : 200.0 + (i % 3)});
    ASSERT_TRUE(RecordMetricPoints(*store_, "balance", pts).ok());
  }
  // Settings whose baseline follows the last 5 normal points, so learning 5 points at the new
  // level moves it there; relearn_after 6 accepts a lasting shift on its own.
  MonitorSettings Settings() {
    auto s = SettingsFromMonitor(ws_.monitors[0]);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    s->detector.seasonality = Seasonality::kNone;
    s->detector.level_window = 5;
    s->detector.min_history = 10;
    return *s;
  }
  MetricJudgement Judge(const MonitorSettings& s) {
    auto j = JudgeLatestPoint(*store_, "balance", s, clock_, workspace::IncidentWindows(*store_));
    EXPECT_TRUE(j.ok()) << j.status().ToString();
    return j.ok() ? *j : MetricJudgement{};
  }

  config::Workspace ws_;
};

TEST_P(MetricTrainingTest, AMarkedRangeIsStoredAndLearntOnEveryLaterEvaluation) {
  RecordLevelChange();
  MonitorSettings s = Settings();
  s.detector.relearn_after = 0;  // never accept a shift on its own: only the mark can
  EXPECT_EQ(Judge(s).latest.kind, VerdictKind::kLevelShift);

  auto marked = MarkExpected(ws_, *store_, {"balance", kStart + 600 * kHour, kStart + 605 * kHour, "new pricing", "ana@example.com"});
  ASSERT_TRUE(marked.ok()) << marked.status().ToString();
  EXPECT_EQ(marked->points_covered, 6u);
  Reopen();  // the mark survives a restart
  MetricJudgement j = Judge(s);
  EXPECT_EQ(j.latest.kind, VerdictKind::kNormal) << j.latest.explanation;
  EXPECT_EQ(j.marked_points, 6u);
  EXPECT_NEAR(j.latest.expected, 200, 3);
  Json out = JudgementToJson(j);
  EXPECT_EQ(out["marked_expected_points"], 6);
  // The marked points themselves come back as expected, with the person's note.
  auto replay = ReplayMetric(*store_, "balance", s, clock_, workspace::IncidentWindows(*store_));
  ASSERT_TRUE(replay.ok());
  EXPECT_EQ(replay->verdicts[602].kind, VerdictKind::kExpected);
  EXPECT_NE(replay->verdicts[602].explanation.find("new pricing"), std::string::npos);
  EXPECT_EQ(replay->verdicts[606].kind, VerdictKind::kNormal);
}

TEST_P(MetricTrainingTest, AMarkIsValidatedBeforeAnythingIsStored) {
  RecordLevelChange();
  auto unknown = MarkExpected(ws_, *store_, {"balanse", kStart, kStart + kHour, "", "ana@example.com"});
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("did you mean"), std::string::npos) << unknown.status().message();
  auto backwards = MarkExpected(ws_, *store_, {"balance", kStart + kHour, kStart, "", "ana@example.com"});
  EXPECT_EQ(backwards.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(backwards.status().message().find("is after"), std::string::npos);
  auto huge = MarkExpected(ws_, *store_, {"balance", kStart, kStart + 500 * kDay, "", "ana@example.com"});
  EXPECT_EQ(huge.status().code(), StatusCode::kInvalidArgument);
  auto anonymous = MarkExpected(ws_, *store_, {"balance", kStart, kStart + kHour, "", ""});
  EXPECT_EQ(anonymous.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(anonymous.status().message().find("author"), std::string::npos) << anonymous.status().message();
  auto marks = store_->MetricMarks("balance", FromUnixMillis(0), FromUnixMillis(kStart + 1000 * kDay));
  ASSERT_TRUE(marks.ok());
  EXPECT_TRUE(marks->empty());
  // A stored metric that is not a monitor can be marked too.
  ASSERT_TRUE(RecordMetricPoints(*store_, "quality:table://main/x:rows", {{kStart, 5.0}}).ok());
  EXPECT_TRUE(MarkExpected(ws_, *store_, {"quality:table://main/x:rows", kStart, kStart, "", "ana@example.com"}).ok());

  EXPECT_TRUE(ParseRfc3339Millis("2026-01-01T00:00:00Z", "from").ok());
  EXPECT_EQ(*ParseRfc3339Millis("2026-01-01T01:00:00+01:00", "from"), kStart);
  EXPECT_FALSE(ParseRfc3339Millis("2026-01-01", "from").ok());
  EXPECT_FALSE(ParseRfc3339Millis("2026-01-01T00:00:00", "from").ok());  // no zone
  auto bad = ParseRfc3339Millis("yesterday", "--from");
  EXPECT_NE(bad.status().message().find("--from"), std::string::npos);
}

TEST_P(MetricTrainingTest, PointsInsideAnIncidentOnTheMetricAreJudgedButNotLearnt) {
  RecordLevelChange();
  MonitorSettings s = Settings();  // relearn_after 6: without the incident the shift is accepted
  MetricJudgement before = Judge(s);
  EXPECT_EQ(before.latest.kind, VerdictKind::kNormal) << before.latest.explanation;

  store::IncidentRecord inc{"inc-7", "open", "balances dropped", "table://main/loyalty.member_balances",
                            FromUnixMillis(kStart + 600 * kHour), FromUnixMillis(kStart + 600 * kHour),
                            std::nullopt, Json::object()};
  ASSERT_TRUE(store_->PutIncident(inc).ok());
  MetricJudgement during = Judge(s);
  EXPECT_TRUE(IsAlarm(during.latest.kind)) << during.latest.explanation;
  EXPECT_FALSE(during.latest.learnt);
  EXPECT_EQ(during.incident_points, 10u);
  EXPECT_NEAR(during.latest.expected, 102, 3);  // the baseline stayed at the old level
  EXPECT_NE(during.latest.explanation.find("inside incident inc-7, so not learnt"), std::string::npos)
      << during.latest.explanation;

  // An incident elsewhere changes nothing; one that names the metric in its body counts.
  store::IncidentRecord other = inc;
  other.id = "inc-other";
  other.asset_id = "table://main/other";
  EXPECT_FALSE(workspace::IncidentCoversMetric(other, "balance", s.asset_id));
  other.body = Json{{"metrics", {"x", "balance"}}};
  EXPECT_TRUE(workspace::IncidentCoversMetric(other, "balance", s.asset_id));
  EXPECT_TRUE(workspace::IncidentCoversMetric(other, "x", ""));
  EXPECT_FALSE(workspace::IncidentCoversMetric(other, "y", ""));

  // Marked expected wins over the incident: the new level is learnt after all.
  ASSERT_TRUE(MarkExpected(ws_, *store_, {"balance", kStart + 600 * kHour, kStart + 604 * kHour, "", "ana@example.com"}).ok());
  MetricJudgement marked = Judge(s);
  EXPECT_EQ(marked.marked_points, 5u);
  EXPECT_EQ(marked.incident_points, 5u);
  EXPECT_NEAR(marked.latest.expected, 200, 3);
  EXPECT_FALSE(IsAlarm(marked.latest.kind)) << marked.latest.explanation;
}

TEST_P(MetricTrainingTest, AClosedIncidentKeepsOnlyItsWindowOutOfTraining) {
  RecordLevelChange();
  MonitorSettings s = Settings();
  // Closed after point 602: points 600-602 are not learnt; 603 onwards are, so the shift that
  // lasts 6 more points is accepted again.
  store::IncidentRecord inc{"inc-8", "resolved", "t", "table://main/loyalty.member_balances",
                            FromUnixMillis(kStart + 600 * kHour), FromUnixMillis(kStart + 602 * kHour),
                            FromUnixMillis(kStart + 602 * kHour + 1), Json::object()};
  ASSERT_TRUE(store_->PutIncident(inc).ok());
  MetricJudgement j = Judge(s);
  EXPECT_EQ(j.incident_points, 3u);
  EXPECT_EQ(j.latest.kind, VerdictKind::kNormal) << j.latest.explanation;
}

TEST_P(MetricTrainingTest, QualitySeriesAreTiedToTheirTable) {
  EXPECT_EQ(AssetOfQualitySeries("quality:table://main/loyalty.member_balances:rows"),
            "table://main/loyalty.member_balances");
  EXPECT_EQ(AssetOfQualitySeries("quality:table://main/t:null_rate:member_id"), "table://main/t");
  EXPECT_EQ(AssetOfQualitySeries("orders"), "");
  auto s = SettingsForMetric(ws_, "quality:table://main/t:rows");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->asset_id, "table://main/t");
}

TEST_P(MetricTrainingTest, PruneDeletesPointsOlderThanTheirRetention) {
  ws_.metric_retention = std::chrono::milliseconds(30 * kDay);
  ws_.monitors[0].spec["retention"] = "60d";
  clock_.Set(FromUnixMillis(kStart + 100 * kDay));
  std::vector<IncomingPoint> pts;
  for (int d = 0; d <= 100; ++d) pts.push_back({kStart + d * kDay, 1.0 * d});
  ASSERT_TRUE(RecordMetricPoints(*store_, "balance", pts).ok());  // monitor: keeps 60 days
  ASSERT_TRUE(RecordMetricPoints(*store_, "orders", pts).ok());   // workspace: keeps 30 days
  auto report = PruneMetricPoints(ws_, *store_, clock_);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->deleted, 40 + 70);
  ASSERT_EQ(report->metrics.size(), 2u);
  EXPECT_EQ(report->metrics[0].metric, "balance");
  EXPECT_EQ(report->metrics[0].deleted, 40);
  EXPECT_EQ(report->metrics[1].deleted, 70);
  auto left = store_->MetricPoints("orders", FromUnixMillis(0), FromUnixMillis(kStart + 1000 * kDay));
  ASSERT_TRUE(left.ok());
  ASSERT_EQ(left->size(), 31u);
  EXPECT_EQ(ToUnixMillis(left->front().ts), kStart + 70 * kDay);
  report = PruneMetricPoints(ws_, *store_, clock_);  // nothing more to do
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->deleted, 0);

  // A retention shorter than what the baseline learns from is refused before deleting anything.
  ws_.monitors[0].spec.erase("retention");
  ws_.monitors[0].spec["training_window"] = "45d";
  auto refused = PruneMetricPoints(ws_, *store_, clock_);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("training_window"), std::string::npos) << refused.status().message();
  ws_.monitors[0].spec["retention"] = "20d";
  EXPECT_EQ(SettingsFromMonitor(ws_.monitors[0]).status().code(), StatusCode::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Store, MetricTrainingTest, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace metric_training_test
}  // namespace
}  // namespace dw::observe::metrics
