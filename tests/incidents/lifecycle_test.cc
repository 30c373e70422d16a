// The lifecycle: a person's transitions with who and when, verification, never a timeout; unknown
// ids answer with the closest; closing as expected feeds the detector's marks.
#include <gtest/gtest.h>

#include "observe/changes/change_kinds.h"
#include "tests/incidents/incidents_test_support.h"

namespace dw::incidents {
namespace {
namespace lifecycle_test {

using test_support::At;

class Lifecycle : public test_support::DeskTest {
 protected:
  void SetUp() override {
    DeskTest::SetUp();
    if (IsSkipped()) return;
    clock_.Set(At("2026-11-24T15:00:00Z"));
    UseEdges({{"flink://flink/job", "table://main/t"}, {"table://main/t", "sync://hightouch/weekly"}},
             {{"sync://hightouch/weekly", "", "", "0 22 * * 5", true, {}, {}, {}, {}, {}}});
    EvaluationReport r = Evaluate({MetricSignal("rows_t", "table://main/t", "2026-11-24T15:00:00Z", 10, 1000)});
    ASSERT_EQ(r.opened.size(), 1u);
    id_ = r.opened[0];
  }
  std::string id_;
};

TEST_P(Lifecycle, EveryTransitionRecordsWhoAndWhen) {
  clock_.Set(At("2026-11-24T15:10:00Z"));
  ASSERT_TRUE(Desk().Acknowledge(id_, "ana@example.com", "looking").ok());
  clock_.Set(At("2026-11-24T15:40:00Z"));
  ASSERT_TRUE(Desk().Mitigate(id_, "ana@example.com", "sync paused").ok());
  clock_.Set(At("2026-11-24T16:45:00Z"));
  auto done = Desk().Resolve(id_, "ana@example.com", "redeployed and verified");
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  Incident inc = Get(id_);
  ASSERT_EQ(inc.transitions.size(), 4u);
  EXPECT_EQ(inc.transitions[1].to, "acknowledged");
  EXPECT_EQ(inc.transitions[1].actor, "ana@example.com");
  EXPECT_EQ(inc.transitions[1].at, At("2026-11-24T15:10:00Z"));
  EXPECT_EQ(inc.transitions[2].to, "mitigated");
  EXPECT_EQ(inc.transitions[3].to, "resolved");
  EXPECT_EQ(inc.transitions[3].reason, "redeployed and verified");
  EXPECT_EQ(inc.status, IncidentStatus::kResolved);
}

TEST_P(Lifecycle, AResolvedIncidentCannotBeAcknowledged) {
  ASSERT_TRUE(Desk().Resolve(id_, "ana@example.com", "").ok());
  auto ack = Desk().Acknowledge(id_, "ana@example.com", "");
  EXPECT_EQ(ack.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(ack.status().message().find("is resolved"), std::string::npos) << ack.status().message();
}

TEST_P(Lifecycle, OnlyAPersonMovesAnIncident) {
  for (const char* actor : {"dw", "", "agent", "ana example.com"}) {
    auto r = Desk().Acknowledge(id_, actor, "");
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << actor;
  }
  EXPECT_EQ(Get(id_).status, IncidentStatus::kOpen);
}

TEST_P(Lifecycle, NothingResolvesByTimeout) {
  clock_.Set(At("2026-12-30T15:00:00Z"));
  EvaluationReport r = Evaluate({});
  EXPECT_TRUE(r.resolved.empty());
  EXPECT_EQ(Get(id_).status, IncidentStatus::kOpen);
}

TEST_P(Lifecycle, ABadSignalAgainDoesNotResolveIt) {
  clock_.Set(At("2026-11-24T16:00:00Z"));
  EvaluationReport r = Evaluate({MetricSignal("rows_t", "table://main/t", "2026-11-24T16:00:00Z", 12, 1000)});
  EXPECT_TRUE(r.resolved.empty());
  clock_.Set(At("2026-11-24T17:00:00Z"));
  r = Evaluate({MetricSignal("rows_t", "table://main/t", "2026-11-24T17:00:00Z", 990, 1000, false)});
  EXPECT_EQ(r.resolved, std::vector<std::string>{id_});
}

TEST_P(Lifecycle, ClosingAsExpectedMarksTheMetricPointsExpected) {
  clock_.Set(At("2026-11-24T16:00:00Z"));
  auto closed = Desk().Close(id_, "ana@example.com", CloseReason::kExpected, "planned migration");
  ASSERT_TRUE(closed.ok()) << closed.status().ToString();
  EXPECT_EQ(closed->status, IncidentStatus::kClosed);
  EXPECT_EQ(closed->close_reason, CloseReason::kExpected);
  auto marks = store_->MetricMarks("rows_t", At("2026-11-24T00:00:00Z"), At("2026-11-25T00:00:00Z"));
  ASSERT_TRUE(marks.ok());
  ASSERT_EQ(marks->size(), 1u);
  EXPECT_NE((*marks)[0].note.find("ana@example.com"), std::string::npos);
  // And the metric's window is no longer covered by an incident.
  auto windows = Desk().WindowsCovering("rows_t", "");
  ASSERT_TRUE(windows.ok());
  EXPECT_TRUE(windows->empty());
  EXPECT_EQ(Desk().Close(id_, "ana@example.com", CloseReason::kExpected, "").status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(Desk().Close(id_, "ana@example.com", CloseReason::kNone, "").status().code(), StatusCode::kInvalidArgument);
}

TEST_P(Lifecycle, AnOpenIncidentCoversItsMetricsWindow) {
  auto windows = Desk().WindowsCovering("rows_t", "");
  ASSERT_TRUE(windows.ok());
  ASSERT_EQ(windows->size(), 1u);
  EXPECT_EQ((*windows)[0].from, At("2026-11-24T15:00:00Z"));
  EXPECT_FALSE((*windows)[0].to.has_value());
  auto by_asset = Desk().WindowsCovering("", "table://main/t");
  ASSERT_TRUE(by_asset.ok());
  EXPECT_EQ(by_asset->size(), 1u);
}

TEST_P(Lifecycle, AnUnknownIdAnswersWithTheClosestIds) {
  std::string wrong = id_.substr(0, id_.size() - 1) + (id_.back() == 'a' ? "b" : "a");
  auto got = Desk().Get(wrong);
  ASSERT_EQ(got.status().code(), StatusCode::kNotFound);
  EXPECT_NE(got.status().message().find(id_), std::string::npos) << got.status().message();
  EXPECT_EQ(Desk().Diagnose("nope").status().code(), StatusCode::kNotFound);
}

// An id may be abbreviated to a prefix one incident alone has, as git abbreviates commits; a
// prefix two incidents share is refused naming both, and too short a prefix picks nothing.
TEST_P(Lifecycle, AnIdMayBeAbbreviatedToAUniquePrefix) {
  // Two days later, past any grouping window: an incident of its own.
  clock_.Set(At("2026-11-26T15:05:00Z"));
  EvaluationReport other = Evaluate({MetricSignal("rows_u", "table://main/u", "2026-11-26T15:05:00Z", 10, 1000)});
  ASSERT_EQ(other.opened.size(), 1u);
  const std::string other_id = other.opened[0];
  ASSERT_NE(other_id, id_);
  size_t common = 0;
  while (common < id_.size() && common < other_id.size() && id_[common] == other_id[common]) ++common;
  ASSERT_LT(common, id_.size());
  // The shortest prefix of each that the other does not share.
  auto unique = Desk().Get(id_.substr(0, std::max<size_t>(common + 1, 6)));
  ASSERT_TRUE(unique.ok()) << unique.status().ToString();
  EXPECT_EQ(unique->id, id_);
  ASSERT_TRUE(Desk().Acknowledge(other_id.substr(0, std::max<size_t>(common + 1, 6)), "ana@example.com", "mine").ok());
  EXPECT_EQ(Get(other_id).status, IncidentStatus::kAcknowledged);
  EXPECT_EQ(Get(id_).status, IncidentStatus::kOpen);
  if (common >= 6) {
    auto ambiguous = Desk().Get(id_.substr(0, common));
    ASSERT_EQ(ambiguous.status().code(), StatusCode::kInvalidArgument) << ambiguous.status().ToString();
    EXPECT_NE(ambiguous.status().message().find(id_), std::string::npos);
    EXPECT_NE(ambiguous.status().message().find(other_id), std::string::npos);
  }
  EXPECT_EQ(Desk().Get(id_.substr(0, 3)).status().code(), StatusCode::kNotFound);
}

TEST_P(Lifecycle, SeverityRisesAsTheDeadlineNears) {
  // The customer-facing sync runs Fridays at 22:00; on Tuesday it is days away.
  Incident tuesday = Get(id_);
  EXPECT_EQ(tuesday.severity.level, 3);
  clock_.Set(At("2026-11-27T08:00:00Z"));  // Friday morning: 14 h left
  Incident friday = Get(id_);
  EXPECT_EQ(friday.severity.level, 1);
  EXPECT_NE(friday.severity.reason.find("14h"), std::string::npos) << friday.severity.reason;
  EXPECT_NE(friday.severity.reason.find("customer-facing"), std::string::npos);
}

TEST_P(Lifecycle, HistoryFiltersByStatusDomainAndTime) {
  ASSERT_TRUE(Desk().Acknowledge(id_, "ana@example.com", "").ok());
  IncidentFilter f;
  f.status = IncidentStatus::kAcknowledged;
  auto h = Desk().GetHistory(f);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->total, 1u);
  f.status = IncidentStatus::kOpen;
  EXPECT_EQ(Desk().GetHistory(f)->total, 0u);
  f.status.reset();
  f.from = At("2026-11-25T00:00:00Z");
  EXPECT_EQ(Desk().GetHistory(f)->total, 0u);
  f.from.reset();
  f.limit = 0;
  EXPECT_EQ(Desk().GetHistory(f).status().code(), StatusCode::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Store, Lifecycle, ::testing::Values("sqlite", "postgresql"), test_support::BackendName);

class Diagnosis : public test_support::DeskTest {};

TEST_P(Diagnosis, OverAGraphWithCyclesItTerminates) {
  clock_.Set(At("2026-11-24T15:00:00Z"));
  UseEdges({{"table://main/a", "table://main/b"}, {"table://main/b", "table://main/c"}, {"table://main/c", "table://main/a"},
            {"flink://flink/j", "table://main/a"}});
  AddEvent("j-deploy", "flink://flink/j", observe::changes::kDeploy, "2026-11-24T14:00:00Z", 0.4);
  AddEvent("c-deploy", "table://main/c", observe::changes::kDeploy, "2026-11-24T14:30:00Z", 0.4);
  EvaluationReport r = Evaluate({CheckSignal("table://main/b", "volume", "2026-11-24T15:00:00Z")});
  ASSERT_EQ(r.opened.size(), 1u);
  auto d = Desk().Diagnose(r.opened[0]);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->assets_examined.size(), 4u);
  EXPECT_EQ(d->events_examined, 2u);
}

TEST_P(Diagnosis, WithNoCandidateItSaysSoAndListsWhatItLookedAt) {
  clock_.Set(At("2026-11-24T15:00:00Z"));
  UseEdges({{"kafka://prod/x", "table://main/x"}});
  AddEvent("too-old", "kafka://prod/x", observe::changes::kDeploy, "2026-11-22T15:00:00Z", 0.9);
  EvaluationReport r = Evaluate({CheckSignal("table://main/x", "volume", "2026-11-24T15:00:00Z")});
  ASSERT_EQ(r.opened.size(), 1u);
  auto d = Desk().Diagnose(r.opened[0]);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->ranked.empty());
  EXPECT_NE(d->summary.find("no change event"), std::string::npos) << d->summary;
  EXPECT_EQ(d->assets_examined, (std::vector<std::string>{"table://main/x", "kafka://prod/x"}));
}

TEST_P(Diagnosis, ADuplicatedRunExplainsADoublingAndASchemaVersionThatRemovedAFieldANullRateJump) {
  clock_.Set(At("2026-11-24T15:00:00Z"));
  UseEdges({{"kestra://kestra/shop.load", "table://main/orders"}, {"subject://registry/orders-value", "table://main/orders"}},
           {{"kestra://kestra/shop.load", "", "", "0 14 * * *", std::nullopt, {}, {}, {}, {}, {}}});
  AddEvent("run-1", "kestra://kestra/shop.load", observe::changes::kExecution, "2026-11-24T14:00:10Z", 0.1, {{"state", "SUCCESS"}});
  AddEvent("run-2", "kestra://kestra/shop.load", observe::changes::kExecution, "2026-11-24T14:20:00Z", 0.1, {{"state", "SUCCESS"}});
  AddEvent("schema-7", "subject://registry/orders-value", observe::changes::kSchemaVersion, "2026-11-24T14:40:00Z", 0.5,
           {{"removed_fields", {"coupon"}}}, "version 7 removed field coupon");
  EvaluationReport doubled = Evaluate({CheckSignal("table://main/orders", "unique:order_id", "2026-11-24T15:00:00Z", true,
                                                   SignalShape::kDoubling)});
  ASSERT_EQ(doubled.opened.size(), 1u);
  auto d = Desk().Diagnose(doubled.opened[0]);
  ASSERT_TRUE(d.ok());
  ASSERT_FALSE(d->ranked.empty());
  EXPECT_EQ(d->ranked[0].cause_kind, "duplicated_run");
  ASSERT_TRUE(Desk().Resolve(doubled.opened[0], "ana@example.com", "deduplicated").ok());

  clock_.Set(At("2026-11-24T16:00:00Z"));
  EvaluationReport nulls = Evaluate({CheckSignal("table://main/orders", "not_null:coupon", "2026-11-24T15:00:00Z", true,
                                                 SignalShape::kNullRateJump)});
  ASSERT_EQ(nulls.opened.size(), 1u);
  auto n = Desk().Diagnose(nulls.opened[0]);
  ASSERT_TRUE(n.ok());
  ASSERT_FALSE(n->ranked.empty());
  EXPECT_EQ(n->ranked[0].kind, observe::changes::kSchemaVersion);
  EXPECT_DOUBLE_EQ(n->ranked[0].score.shape_fit, 1.0);
}

INSTANTIATE_TEST_SUITE_P(Store, Diagnosis, ::testing::Values("sqlite", "postgresql"), test_support::BackendName);

}  // namespace lifecycle_test
}  // namespace
}  // namespace dw::incidents
