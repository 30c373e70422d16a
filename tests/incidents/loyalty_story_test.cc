// The Flink loyalty story (seeds/flink-data-workers.txt) on examples/loyalty-flink's graph: the
// 14:02 restore of points-balance v4.2 skipped the aggregate's savepoint state.
#include <gtest/gtest.h>

#include "observe/changes/change_kinds.h"
#include "tests/incidents/incidents_test_support.h"

namespace dw::incidents {
namespace {
namespace loyalty_story_test {

using test_support::At;

constexpr const char* kJob = "flink://flink/points-balance";
constexpr const char* kTable = "table://main/member_balances";
constexpr const char* kSync = "sync://hightouch/tier-changes-to-braze";

class LoyaltyStory : public test_support::DeskTest {
 protected:
  void SetUp() override {
    DeskTest::SetUp();
    if (IsSkipped()) return;
    UseExample("loyalty-flink");
  }

  // What the Flink collector stores when the JobManager log shows the skipped operator state.
  store::ChangeEvent SkippedRestore(const std::string& at = "2026-11-24T14:02:00Z", const std::string& key = "skipped-1") {
    return AddEvent(key, kJob, observe::changes::kRestoreSkippedState, at, 0.95,
                    {{"job_id", "a1b2c3d4e5f60718293a4b5c6d7e8f90"},
                     {"operator_id", "90bea66de1c231edf33913ecd54406c1"},
                     {"log_line", "Skipping savepoint state for operator 90bea66de1c231edf33913ecd54406c1."},
                     {"restore_line", "Starting job a1b2c3d4e5f60718293a4b5c6d7e8f90 from savepoint s3://flink/savepoints/savepoint-3f9a6c-1a2b3c4d5e6f (allowNonRestoredState=true)"},
                     {"savepoint_path", "s3://flink/savepoints/savepoint-3f9a6c-1a2b3c4d5e6f"},
                     {"url", "http://127.0.0.1:18081/jobmanager/logs/jobmanager.log"}},
                    "the restore from s3://flink/savepoints/savepoint-3f9a6c-1a2b3c4d5e6f dropped the savepoint state of "
                    "operator 90bea66de1c231edf33913ecd54406c1: everything computed from that state restarted from empty");
  }
};

TEST_P(LoyaltyStory, ARestoreThatSkippedStateOpensAnIncidentBeforeAnyMetricMoves) {
  store::ChangeEvent restore = SkippedRestore();
  clock_.Set(At("2026-11-24T14:05:00Z"));  // the collection pass after the restore
  EvaluationReport r = Evaluate({ChangeSignal(restore)});
  ASSERT_EQ(r.opened.size(), 1u);
  Incident inc = Get(r.opened[0]);
  EXPECT_EQ(inc.root_asset, kJob);
  // What the job writes, down to the first warehouse table; not the dbt model or the sync.
  EXPECT_EQ(inc.damaged_assets, (std::vector<std::string>{"kafka://prod/member-balances", kTable}));
  EXPECT_EQ(inc.status, IncidentStatus::kOpen);
  EXPECT_EQ(inc.severity.level, 1);
  EXPECT_EQ(inc.severity.consumer, kSync);
  EXPECT_NE(inc.severity.reason.find("22:00"), std::string::npos) << inc.severity.reason;
  EXPECT_NE(inc.severity.reason.find("7h 55m"), std::string::npos) << inc.severity.reason;
  EXPECT_NE(inc.severity.reason.find("customer-facing"), std::string::npos);
  EXPECT_EQ(inc.domain, "loyalty");
  EXPECT_EQ(inc.owner, "ana@example.com");
  ASSERT_EQ(inc.transitions.size(), 1u);
  EXPECT_EQ(inc.transitions[0].actor, "dw");
  EXPECT_EQ(inc.transitions[0].at, At("2026-11-24T14:05:00Z"));
  EXPECT_EQ(inc.cause_kind, observe::changes::kRestoreSkippedState);
}

TEST_P(LoyaltyStory, TheMetricDropJoinsTheReleaseGuardIncident) {
  store::ChangeEvent restore = SkippedRestore();
  clock_.Set(At("2026-11-24T14:05:00Z"));
  EvaluationReport first = Evaluate({ChangeSignal(restore)});
  ASSERT_EQ(first.opened.size(), 1u);
  clock_.Set(At("2026-11-24T15:05:00Z"));
  EvaluationReport second = Evaluate({MetricSignal("avg_active_balance", kTable, "2026-11-24T15:00:00Z", 580, 6400)});
  EXPECT_TRUE(second.opened.empty());
  ASSERT_EQ(second.updated, first.opened);
  Incident inc = Get(first.opened[0]);
  ASSERT_EQ(inc.signals.size(), 2u);
  EXPECT_EQ(inc.signals[1].key, "metric:avg_active_balance");
  EXPECT_EQ(inc.signals[1].shape, SignalShape::kLevelDrop);
  EXPECT_EQ(inc.first_bad_at, At("2026-11-24T14:02:00Z"));
  // The severity as of 15:05: the 22:00 sync acts in 6h 55m.
  EXPECT_NE(inc.severity.reason.find("6h 55m"), std::string::npos) << inc.severity.reason;
}

TEST_P(LoyaltyStory, ARestoreThatSkippedStateIsRankedFirst) {
  // The v4.2 release around it: the deploy itself, the standing config risk, a green sink.
  AddEvent("deploy-v42", kJob, observe::changes::kDeploy, "2026-11-24T14:02:00Z", 0.4,
           {{"job_id", "a1b2c3d4e5f60718293a4b5c6d7e8f90"}});
  AddEvent("config-anrs", kJob, observe::changes::kConfigRisk, "2026-11-24T09:00:00Z", 0.6,
           {{"field", "job.allowNonRestoredState"}});
  AddEvent("sink-running", "connect://connect/bq-sink-balances", observe::changes::kConnectorState,
           "2026-11-24T14:05:00Z", 0.2, {{"state", "RUNNING"}});
  store::ChangeEvent restore = SkippedRestore();
  clock_.Set(At("2026-11-24T15:05:00Z"));
  EvaluationReport r = Evaluate({ChangeSignal(restore),
                                 MetricSignal("avg_active_balance", kTable, "2026-11-24T15:00:00Z", 580, 6400)});
  ASSERT_EQ(r.opened.size(), 1u);
  int64_t counted = 0;
  TimePoint counted_since;
  options_.impact_counter = [&](const std::string& asset, const std::string& sql, TimePoint since) -> Result<int64_t> {
    EXPECT_EQ(asset, kSync);
    EXPECT_NE(sql.find("member_balances"), std::string::npos);
    counted_since = since;
    return ++counted, int64_t{61204};
  };
  desk_.reset();
  auto d = Desk().Diagnose(r.opened[0]);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  // The release's deploy (the same job run, jid a1b2..., at the same minute) is a facet of the
  // restore, not a candidate of its own (issue 37: one change, one candidate); the manifest's
  // config risk (no job id) and the sink are other changes.
  ASSERT_GE(d->ranked.size(), 2u);
  const Candidate& top = d->ranked[0];
  ASSERT_EQ(top.facets.size(), 1u);
  EXPECT_EQ(top.facets[0].dedup_key, "deploy-v42");
  for (const Candidate& c : d->ranked) EXPECT_NE(c.dedup_key, "deploy-v42");
  EXPECT_EQ(top.kind, observe::changes::kRestoreSkippedState);
  EXPECT_EQ(top.asset_id, kJob);
  EXPECT_DOUBLE_EQ(top.score.shape_fit, 1.0);
  EXPECT_GT(top.score.total, d->ranked[1].score.total);
  EXPECT_EQ(top.path.front(), kJob);
  EXPECT_EQ(top.path.back(), "kafka://prod/member-balances");  // the first damaged asset on the way
  bool log_line = false;
  for (const std::string& e : top.evidence) log_line |= e.find("Skipping savepoint state") != std::string::npos;
  EXPECT_TRUE(log_line);
  // The blast radius names the 22:00 customer-facing sync and the members in reach since 14:02.
  EXPECT_EQ(d->severity.level, 1);
  EXPECT_EQ(d->severity.consumer, kSync);
  EXPECT_EQ(counted, 1);
  EXPECT_EQ(counted_since, At("2026-11-24T14:02:00Z"));
  ASSERT_EQ(d->blast_radius["impact"].size(), 1u);
  EXPECT_EQ(d->blast_radius["impact"][0]["count"], 61204);
  // The same inputs give the same ranking.
  auto again = Desk().Diagnose(r.opened[0]);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->ranked.size(), d->ranked.size());
  for (size_t i = 0; i < d->ranked.size(); ++i) EXPECT_EQ(again->ranked[i].dedup_key, d->ranked[i].dedup_key);
}

TEST_P(LoyaltyStory, ARestoreFromACheckpointAfterAFailureIsNotAnIncident) {
  store::ChangeEvent failover = AddEvent(
      "skipped-chk", kJob, observe::changes::kRestoreSkippedState, "2026-11-24T14:02:00Z", 0.95,
      {{"savepoint_path", "s3://flink/checkpoints/3f9a/chk-20160"}},
      "the restore from s3://flink/checkpoints/3f9a/chk-20160 dropped the checkpoint state of operator x");
  AddEvent("restore-clean", kJob, observe::changes::kRestore, "2026-11-24T14:03:00Z", 0.3);
  clock_.Set(At("2026-11-24T14:05:00Z"));
  auto batch = GatherSignals(ws_, *store_, clock_, {At("2026-11-24T14:00:00Z"), false, false, true});
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_TRUE(batch->signals.empty()) << "neither restore is a release-guard signal";
  // The savepoint restore of the story is one, gathered the same way.
  SkippedRestore();
  auto story = GatherSignals(ws_, *store_, clock_, {At("2026-11-24T14:00:00Z"), false, false, true});
  ASSERT_TRUE(story.ok());
  ASSERT_EQ(story->signals.size(), 1u);
  EXPECT_EQ(story->signals[0].key, "change:skipped-1");
  EXPECT_EQ(failover.kind, observe::changes::kRestoreSkippedState);
}

TEST_P(LoyaltyStory, ARestoreOnAJobThatReachesNoCustomerFacingConsumerIsNotAnIncidentByItself) {
  UseEdges({{"flink://flink/audit-copy", "table://main/audit_copy"}});
  store::ChangeEvent e = AddEvent("skipped-audit", "flink://flink/audit-copy", observe::changes::kRestoreSkippedState,
                                  "2026-11-24T14:02:00Z", 0.95);
  clock_.Set(At("2026-11-24T14:05:00Z"));
  EvaluationReport r = Evaluate({ChangeSignal(e)});
  EXPECT_TRUE(r.opened.empty());
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.back().find("no customer-facing consumer"), std::string::npos) << r.notes.back();
}

TEST_P(LoyaltyStory, TheIncidentResolvesWhenTheMetricIsBackToNormalOnALaterEvaluation) {
  store::ChangeEvent restore = SkippedRestore();
  clock_.Set(At("2026-11-24T15:05:00Z"));
  EvaluationReport r = Evaluate({ChangeSignal(restore),
                                 MetricSignal("avg_active_balance", kTable, "2026-11-24T15:00:00Z", 580, 6400)});
  ASSERT_EQ(r.opened.size(), 1u);
  clock_.Set(At("2026-11-24T16:45:00Z"));
  EvaluationReport v = Evaluate({MetricSignal("avg_active_balance", kTable, "2026-11-24T16:45:00Z", 6380, 6400, false)});
  ASSERT_EQ(v.resolved, r.opened);
  Incident inc = Get(r.opened[0]);
  EXPECT_EQ(inc.status, IncidentStatus::kResolved);
  EXPECT_EQ(inc.transitions.back().actor, "dw");
  EXPECT_NE(inc.transitions.back().reason.find("verified"), std::string::npos);
  ASSERT_TRUE(inc.closed_at.has_value());
  EXPECT_EQ(*inc.closed_at, At("2026-11-24T16:45:00Z"));
}

TEST_P(LoyaltyStory, ARecurrenceOfTheSameCauseOnTheSameAssetLinksToTheEarlierIncident) {
  store::ChangeEvent first = SkippedRestore("2026-11-24T14:02:00Z", "skipped-1");
  clock_.Set(At("2026-11-24T14:05:00Z"));
  EvaluationReport a = Evaluate({ChangeSignal(first)});
  ASSERT_EQ(a.opened.size(), 1u);
  ASSERT_TRUE(Desk().Resolve(a.opened[0], "ana@example.com", "redeployed v4.1 from the 14:00 savepoint").ok());
  store::ChangeEvent again = SkippedRestore("2026-12-08T10:00:00Z", "skipped-2");
  clock_.Set(At("2026-12-08T10:05:00Z"));
  EvaluationReport b = Evaluate({ChangeSignal(again)});
  ASSERT_EQ(b.opened.size(), 1u);
  Incident inc = Get(b.opened[0]);
  ASSERT_TRUE(inc.recurrence_of.has_value());
  EXPECT_EQ(*inc.recurrence_of, a.opened[0]);
  auto h = Desk().GetHistory({kJob, "", std::nullopt, std::nullopt, std::nullopt, 100});
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->total, 2u);
  ASSERT_FALSE(h->recurrences.empty());
  EXPECT_EQ(h->recurrences[0].cause_kind, observe::changes::kRestoreSkippedState);
  EXPECT_EQ(h->recurrences[0].asset_id, kJob);
  EXPECT_EQ(h->recurrences[0].incidents, 2);
}

INSTANTIATE_TEST_SUITE_P(Store, LoyaltyStory, ::testing::Values("sqlite", "postgresql"), test_support::BackendName);

}  // namespace loyalty_story_test
}  // namespace
}  // namespace dw::incidents
