// Which events are facets of one change (change_facets.h), and what is usual for a flow's runs
// (routine_runs.h), on events as the collectors write them.
#include <gtest/gtest.h>

#include <cstdio>

#include "incidents/change_facets.h"
#include "incidents/routine_runs.h"
#include "observe/changes/change_kinds.h"
#include "tests/incidents/incidents_test_support.h"

namespace dw::incidents {
namespace {
namespace change_facets_test {

using test_support::At;
namespace k = observe::changes;

store::ChangeEvent Ev(const std::string& key, const std::string& asset, const std::string& kind, const std::string& at,
                      Json evidence) {
  store::ChangeEvent e;
  e.dedup_key = key;
  e.asset_id = asset;
  e.kind = kind;
  e.happened_at = At(at);
  e.evidence = std::move(evidence);
  return e;
}

std::vector<size_t> Group(const std::vector<store::ChangeEvent>& events, std::vector<bool> exceptional = {}) {
  std::vector<const store::ChangeEvent*> ptrs;
  for (const auto& e : events) ptrs.push_back(&e);
  exceptional.resize(events.size(), false);
  return GroupFacets(ptrs, exceptional);
}

TEST(ChangeFacets, ARestartOfTheSameJobRunHoursLaterIsAnotherChange) {
  const std::string job = "flink://flink/points";
  auto g = Group({Ev("d", job, k::kDeploy, "2026-11-24T14:00:00Z", {{"job_id", "j1"}}),
                  Ev("c", job, k::kConfigRisk, "2026-11-24T14:00:00Z", {{"job_id", "j1"}}),
                  Ev("s", job, k::kRestoreSkippedState, "2026-11-24T14:00:40Z", {{"job_id", "j1"}, {"savepoint_path", "s3://sp/1"}}),
                  Ev("r", job, k::kRestore, "2026-11-24T19:10:00Z", {{"job_id", "j1"}, {"external_path", "s3://chk/chk-9"}}),
                  Ev("o", "flink://flink/other", k::kDeploy, "2026-11-24T14:00:00Z", {{"job_id", "j1"}})});
  EXPECT_EQ(g[0], g[1]);
  EXPECT_EQ(g[0], g[2]);
  EXPECT_NE(g[0], g[3]) << "a checkpoint restart five hours later";
  EXPECT_NE(g[0], g[4]) << "another job";
}

TEST(ChangeFacets, ARestoreAndASkippedStateNamingOneSavepointAreOneChange) {
  const std::string job = "flink://flink/points";
  auto g = Group({Ev("r", job, k::kRestore, "2026-11-24T14:00:00Z", {{"external_path", "s3://sp/savepoint-1"}}),
                  Ev("s", job, k::kRestoreSkippedState, "2026-11-24T16:00:00Z", {{"savepoint_path", "s3://sp/savepoint-1"}})});
  EXPECT_EQ(g[0], g[1]);
}

TEST(ChangeFacets, AnExceptionalRunNeverJoinsTheRevisionItRan) {
  const std::string flow = "kestra://kestra/shop.revenue";
  std::vector<store::ChangeEvent> events = {
      Ev("rev", flow, k::kFlowRevision, "2026-11-24T10:00:00Z", {{"to_revision", 7}}),
      Ev("run1", flow, k::kExecution, "2026-11-24T11:00:00Z", {{"execution_id", "exec-0000001"}, {"flow_revision", 7}}),
      Ev("run0", flow, k::kExecution, "2026-11-24T09:00:00Z", {{"execution_id", "exec-0000000"}, {"flow_revision", 6}}),
      Ev("manual", flow, k::kExecution, "2026-11-24T11:20:00Z", {{"execution_id", "exec-0000002"}, {"flow_revision", 7}})};
  auto g = Group(events, {false, false, false, true});
  EXPECT_EQ(g[0], g[1]);
  EXPECT_NE(g[0], g[2]) << "a run of the revision before";
  EXPECT_NE(g[0], g[3]) << "a manual run is a change of its own";
}

TEST(ChangeFacets, ADbtRunsModelsAndTheStatementsItSentAreOneChange) {
  const std::string inv = "4f1c2a9e-0b7d-4c1e-9a55-1d2e3f4a5b6c";
  const std::string comment = "/* {\"app\": \"dbt\", \"dbt_version\": \"1.8.0\", \"invocation_id\": \"" + inv + "\"} */";
  auto g = Group({Ev("m1", "dbt://shop/fct_orders", k::kModelChange, "2026-11-24T06:00:00Z", {{"invocation_id", inv}}),
                  Ev("m2", "dbt://shop/dim_customers", k::kModelChange, "2026-11-24T06:00:00Z", {{"invocation_id", inv}}),
                  Ev("w", "table://main/fct_orders", k::kWarehouseWrite, "2026-11-24T06:03:00Z",
                     {{"query_text", comment + "\ncreate or replace table fct_orders as select 1"}}),
                  Ev("w2", "table://main/fct_orders", k::kWarehouseWrite, "2026-11-24T06:03:00Z",
                     {{"query_text", "delete from fct_orders where day < current_date - 90"}})});
  EXPECT_EQ(g[0], g[1]);
  EXPECT_EQ(g[0], g[2]);
  EXPECT_NE(g[0], g[3]);
  EXPECT_EQ(DbtInvocationId(comment), inv);
  EXPECT_EQ(DbtInvocationId("{\"invocation_id\": 3}"), "");
}

TEST(ChangeFacets, AStatementTaggedWithAnExecutionIdIsThatExecutionsWrite) {
  auto g = Group({Ev("e", "kestra://kestra/sales.load", k::kExecutionReplay, "2026-11-24T06:41:00Z",
                     {{"execution_id", "2xTr8ReplayAt0641"}}),
                  Ev("w", "table://main/daily_sales", k::kWarehouseWrite, "2026-11-24T06:41:30Z",
                     {{"query_tag", "kestra:2xTr8ReplayAt0641"}}),
                  Ev("w2", "table://main/daily_sales", k::kWarehouseWrite, "2026-11-24T06:00:30Z",
                     {{"query_tag", "kestra:2xTr8RoutineAt0600"}})});
  EXPECT_EQ(g[0], g[1]);
  EXPECT_NE(g[0], g[2]);
}

Json Scheduled(const std::string& start) {
  return {{"state", "SUCCESS"}, {"start", start}, {"trigger", {{"type", "io.kestra.plugin.core.trigger.Schedule"}, {"id", "s"}}}};
}

TEST(RoutineRuns, AnHourlyFlowIsLearntAndARunOffItsMinuteIsExceptional) {
  std::vector<store::ChangeEvent> runs;
  for (int h = 0; h < 10; ++h) {
    std::string start = "2026-11-24T" + std::string(h < 10 ? "0" : "") + std::to_string(h) + ":05:00Z";
    Json ev = Scheduled(start);
    ev["execution_id"] = "run-" + std::to_string(h);
    runs.push_back(Ev("r" + std::to_string(h), "kestra://kestra/f", k::kExecution, start, ev));
  }
  RunProfile p = LearnRuns(runs);
  EXPECT_EQ(p.Describe(), "runs hourly at :05");
  EXPECT_EQ(p.usual_trigger, "schedule");
  RunJudgement routine = JudgeRun(runs[4], p, runs);
  EXPECT_TRUE(routine.known);
  EXPECT_FALSE(routine.exceptional) << routine.sentence;

  Json manual = Scheduled("2026-11-24T06:41:00Z");
  manual["trigger"] = nullptr;
  RunJudgement m = JudgeRun(Ev("m", "kestra://kestra/f", k::kExecution, "2026-11-24T06:41:00Z", manual), p, runs);
  EXPECT_TRUE(m.exceptional);
  EXPECT_NE(m.sentence.find("runs hourly at :05; this one was started by hand"), std::string::npos) << m.sentence;
  EXPECT_NE(m.sentence.find("started at 06:41, off its usual :05"), std::string::npos) << m.sentence;

  Json replay = Scheduled("2026-11-24T06:41:00Z");
  replay["original_id"] = "run-2";
  replay["execution_id"] = "replay-1";
  RunJudgement r = JudgeRun(Ev("p", "kestra://kestra/f", k::kExecutionReplay, "2026-11-24T06:41:00Z", replay), p, runs);
  EXPECT_NE(r.sentence.find("this one was a replay of 02:05's run (run-2) started at 06:41"), std::string::npos) << r.sentence;

  Json failed = Scheduled("2026-11-24T07:05:00Z");
  failed["state"] = "FAILED";
  failed["retried_tasks"] = {"load"};
  RunJudgement f = JudgeRun(Ev("f", "kestra://kestra/f", k::kExecution, "2026-11-24T07:06:00Z", failed), p, runs);
  EXPECT_TRUE(f.exceptional);
  EXPECT_NE(f.sentence.find("retried task load and ended FAILED"), std::string::npos) << f.sentence;
}

TEST(RoutineRuns, TooFewRunsSayNothingUsualAndADailyFlowIsLearntFromItsDays) {
  std::vector<store::ChangeEvent> two = {Ev("a", "kestra://kestra/f", k::kExecution, "2026-11-24T02:00:00Z", Scheduled("2026-11-24T02:00:00Z")),
                                         Ev("b", "kestra://kestra/f", k::kExecution, "2026-11-25T02:00:00Z", Scheduled("2026-11-25T02:00:00Z"))};
  RunProfile few = LearnRuns(two);
  EXPECT_EQ(few.Describe(), "");
  EXPECT_FALSE(JudgeRun(two[1], few, two).known);

  std::vector<store::ChangeEvent> days;
  for (int d = 10; d < 17; ++d) {
    std::string start = "2026-11-" + std::to_string(d) + "T02:30:00Z";
    days.push_back(Ev("d" + std::to_string(d), "kestra://kestra/f", k::kExecution, start, Scheduled(start)));
  }
  RunProfile daily = LearnRuns(days);
  EXPECT_EQ(daily.Describe(), "runs daily at 02:30");
  Json backfill = Scheduled("2026-11-17T09:12:00Z");
  backfill["scheduled_date"] = "2026-11-15T02:30:00Z";
  RunJudgement b = JudgeRun(Ev("b", "kestra://kestra/f", k::kExecution, "2026-11-17T09:15:00Z", backfill), daily, days);
  EXPECT_TRUE(b.exceptional);
  EXPECT_NE(b.sentence.find("ran for the 02:30 slot at 09:12"), std::string::npos) << b.sentence;
}

// A run's times are told in the workspace's zone, as every other time of the answer: a daily run
// at 05:30 UTC is "06:30" in Berlin in winter and "07:30" in summer, an hourly run at :00 UTC is
// ":30" in Kolkata, and the sentence of an exceptional run reads its minutes there too.
TEST(RoutineRuns, TimesAreToldInTheWorkspacesZone) {
  struct Case {
    const char* zone;
    const char* month;  // "2026-01" (winter) or "2026-07" (summer)
    int cadence_h;      // 24: daily at 05:30 UTC; 1: hourly at :00 UTC
    const char* usual;  // Describe()
    const char* odd;    // the exceptional run at <month>-20T09:12Z, as told
  };
  const Case cases[] = {
      {"Europe/Berlin", "2026-01", 24, "runs daily at 06:30", "started at 10:12, off its usual 06:30"},
      {"Europe/Berlin", "2026-07", 24, "runs daily at 07:30", "started at 11:12, off its usual 07:30"},
      {"America/New_York", "2026-01", 24, "runs daily at 00:30", "started at 04:12, off its usual 00:30"},
      {"Asia/Kolkata", "2026-01", 1, "runs hourly at :30", "started at 14:42, off its usual :30"},
      {"UTC", "2026-07", 24, "runs daily at 05:30", "started at 09:12, off its usual 05:30"},
  };
  for (const Case& c : cases) {
    auto zone = config::TimeZone::Load(c.zone);
    ASSERT_TRUE(zone.ok()) << c.zone << ": " << zone.status().ToString();
    std::vector<store::ChangeEvent> runs;
    for (int i = 0; i < 8; ++i) {
      char start[32];
      if (c.cadence_h == 24) std::snprintf(start, sizeof start, "%s-%02dT05:30:00Z", c.month, 10 + i);
      else std::snprintf(start, sizeof start, "%s-20T%02d:00:00Z", c.month, i);
      Json ev = Scheduled(start);
      ev["execution_id"] = "run-" + std::to_string(i);
      runs.push_back(Ev("r" + std::to_string(i), "kestra://kestra/f", k::kExecution, start, ev));
    }
    RunProfile p = LearnRuns(runs, &*zone);
    EXPECT_EQ(p.Describe(), c.usual) << c.zone << " " << c.month;
    const std::string at = std::string(c.month) + "-20T09:12:00Z";
    RunJudgement odd = JudgeRun(Ev("o", "kestra://kestra/f", k::kExecution, at, Scheduled(at)), p, runs);
    EXPECT_NE(odd.sentence.find(c.odd), std::string::npos) << c.zone << " " << c.month << ": " << odd.sentence;
  }
}

}  // namespace change_facets_test
}  // namespace
}  // namespace dw::incidents
