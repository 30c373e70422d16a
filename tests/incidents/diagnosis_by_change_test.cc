// Diagnosis by change, not by event (issue 37), on seeded families: random times, cadences and
// distractors (a deploy elsewhere upstream, an unrelated revision, a routine run at the damage's
// minute). One change is one candidate (a Flink release's deploy, config flag, restore and skipped
// state; a Kestra revision and the runs that ran it), and the next candidate is the next distinct
// change. A run that looks like the last N of its flow is weak evidence; a replay, a manual run or
// a backfill is the change, and the answer says what is usual and how this one differed.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "observe/changes/change_kinds.h"
#include "tests/incidents/incidents_test_support.h"

namespace dw::incidents {
namespace {
namespace diagnosis_by_change_test {

using test_support::At;
namespace k = observe::changes;
using std::chrono::minutes;
using std::chrono::seconds;

constexpr int kSeeds = 9;

std::string Iso(TimePoint t) { return FormatRfc3339(t); }

int Uniform(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

bool Contains(const std::vector<std::string>& lines, const std::string& needle) {
  for (const std::string& l : lines)
    if (l.find(needle) != std::string::npos) return true;
  return false;
}

std::string Dump(const Diagnosis& d) { return DiagnosisToJson(d).dump(1); }

class DiagnosisByChange : public test_support::DeskTest {
 protected:
  // Each seed has its own assets and its own days, so the seeds of one test do not meet.
  static TimePoint DayOf(int seed) { return At("2026-09-01T00:00:00Z") + std::chrono::hours(24 * 12 * seed); }

  Diagnosis OpenAndDiagnose(Signal signal) {
    clock_.Set(signal.at + minutes(5));
    EvaluationReport r = Evaluate({signal});
    EXPECT_EQ(r.opened.size(), 1u) << signal.key;
    if (r.opened.empty()) return {};
    auto d = Desk().Diagnose(r.opened[0]);
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return d.ok() ? *d : Diagnosis{};
  }

  static Json Run(const std::string& id, const std::string& flow, TimePoint start, int revision, Json trigger) {
    return Json{{"execution_id", id}, {"flow", flow}, {"flow_revision", revision}, {"state", "SUCCESS"},
                {"start", Iso(start)}, {"trigger", std::move(trigger)}};
  }
  static Json Scheduled() { return Json{{"type", "io.kestra.plugin.core.trigger.Schedule"}, {"id", "schedule"}}; }

  // A flow's scheduled runs every `cadence` at `phase` past the cadence, from `from` to `to`;
  // returns their (start, dedup key), in order.
  std::vector<std::pair<TimePoint, std::string>> AddSchedule(const std::string& asset, const std::string& flow, seconds cadence,
                                                             seconds phase, TimePoint from, TimePoint to,
                                                             std::mt19937& rng, TimePoint revision_from = TimePoint::max()) {
    std::vector<std::pair<TimePoint, std::string>> out;
    const auto c = std::chrono::duration_cast<std::chrono::milliseconds>(cadence);
    TimePoint t = from - (from.time_since_epoch() % c) + phase;
    for (; t < to; t += cadence) {
      if (t < from) continue;
      const std::string id = flow + "-" + std::to_string(std::chrono::duration_cast<seconds>(t.time_since_epoch()).count());
      const std::string key = "kestra:kestra:" + id + ":SUCCESS";
      Json ev = Run(id, flow, t, t >= revision_from ? 7 : 6, Scheduled());
      ev["scheduled_date"] = Iso(t);
      AddEvent(key, asset, k::kExecution, Iso(t + seconds(Uniform(rng, 40, 200))), 0.1, ev);
      out.emplace_back(t, key);
    }
    return out;
  }
};

// --- Routine versus exceptional -----------------------------------------------------------------

TEST_P(DiagnosisByChange, AnExceptionalRunOutranksTheRoutineRunsOfItsFlowAndSaysWhatIsUsual) {
  const seconds cadences[] = {seconds(900), seconds(3600), seconds(86400)};
  const char* shapes[] = {"replay", "manual", "backfill"};
  for (int seed = 0; seed < kSeeds; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(static_cast<uint32_t>(seed * 7919 + 17));
    const seconds cadence = cadences[seed % 3];
    const std::string shape = shapes[(seed / 3) % 3];
    const std::string s = std::to_string(seed);
    const std::string flow = "sales.load" + s, asset = "kestra://kestra/" + flow;
    const std::string table = "table://main/sales" + s, raw = "table://main/raw" + s;
    const std::string ingest = "flink://flink/ingest" + s, other = "kestra://kestra/ops.other" + s;
    graph::AssetFacts facts;
    facts.id = asset;
    facts.schedule = cadence.count() == 900 ? "*/15 * * * *" : cadence.count() == 3600 ? "0 * * * *" : "0 2 * * *";
    UseEdges({{ingest, raw}, {other, raw}, {raw, asset}, {asset, table}, {table, "dashboard://superset/sales" + s}}, {facts});

    const TimePoint day = DayOf(seed);
    const seconds phase = cadence.count() == 86400 ? seconds(Uniform(rng, 0, 23) * 3600 + Uniform(rng, 0, 59) * 60)
                                                   : seconds(Uniform(rng, 0, static_cast<int>(cadence.count() / 60) - 1) * 60);
    // The exceptional run: off the schedule by more than the scheduler's lag, and nearer to one
    // slot than half a cadence (it ran twice for that slot).
    const int off_minutes = cadence.count() == 900    ? Uniform(rng, 3, 6)
                            : cadence.count() == 3600 ? Uniform(rng, 7, 25)
                                                      : Uniform(rng, 2, 9) * 60;
    const TimePoint slot = day + std::chrono::hours(24) + phase;
    const TimePoint odd = slot + minutes(off_minutes) + std::chrono::hours(cadence.count() == 86400 ? 0 : Uniform(rng, 2, 8));
    // The damage is seen just after the next routine run (a routine run at the damage's minute).
    TimePoint next = slot;
    while (next <= odd) next += cadence;
    const TimePoint first_bad = (cadence.count() == 86400 ? odd + minutes(Uniform(rng, 15, 50)) : next + minutes(4));
    // History to learn the usual from: a week of a daily flow, three days of an hourly one, two of
    // a 15-minute one (about 200 runs; a week of them is 700 stored runs a seed, which the
    // sanitized suite pays for in minutes while the learner needs a few).
    const auto history = std::chrono::hours(cadence.count() == 900 ? 48 : cadence.count() == 3600 ? 72 : 24 * 7);
    auto runs = AddSchedule(asset, flow, cadence, phase, day - history, first_bad, rng);

    std::string key = "kestra:kestra:" + flow + "-odd:SUCCESS";
    Json ev = Run(flow + "-odd", flow, odd, 6, Scheduled());
    std::string kind = k::kExecution;
    if (shape == "replay") {
      kind = k::kExecutionReplay;
      // Replay the run of an earlier slot (the latest before the odd one): its key is
      // "kestra:kestra:<id>:SUCCESS".
      for (const auto& [t, run_key] : runs)
        if (t < odd) ev["original_id"] = run_key.substr(14, run_key.size() - 14 - 8);
      ev["state_history"] = {"CREATED", "RUNNING", "SUCCESS", "RESTARTED", "RUNNING", "SUCCESS"};
      ev["trigger"] = nullptr;
    } else if (shape == "manual") {
      ev["trigger"] = nullptr;
    } else {
      ev["labels"] = Json::array({Json{{"key", "system.backfill"}, {"value", "true"}}});
      ev["scheduled_date"] = Iso(slot - std::chrono::hours(cadence.count() == 86400 ? 48 : 3));
    }
    AddEvent(key, asset, kind, Iso(odd + seconds(90)), kind == k::kExecutionReplay ? 0.6 : 0.1, ev);
    // Distractors upstream: a deploy of the ingest job, an unrelated revision.
    AddEvent("flink:flink:j" + s + ":start", ingest, k::kDeploy, Iso(first_bad - minutes(Uniform(rng, 20, 600))), 0.3,
             {{"job_id", "j" + s}});
    AddEvent("kestra:kestra:" + other + ":revision:3", other, k::kFlowRevision, Iso(first_bad - minutes(Uniform(rng, 10, 300))),
             0.4, {{"flow", "ops.other" + s}, {"to_revision", 3}, {"from_revision", 2}});

    Diagnosis d = OpenAndDiagnose(CheckSignal(table, "row_count_change", Iso(first_bad), true, SignalShape::kDoubling));
    ASSERT_FALSE(d.ranked.empty());
    const Candidate& top = d.ranked.front();
    EXPECT_EQ(top.dedup_key, key) << Dump(d);
    // What is usual, and how this one differed, in the evidence.
    const std::string usual = cadence.count() == 3600 ? "runs hourly" : cadence.count() == 900 ? "runs every 15 min" : "runs daily";
    EXPECT_TRUE(Contains(top.evidence, "exceptional: " + usual)) << Dump(d);
    const std::string how = shape == "replay" ? "was a replay of" : shape == "manual" ? "by hand or by the API" : "was a backfill";
    EXPECT_TRUE(Contains(top.evidence, how)) << Dump(d);
    // The routine runs rank below it, said to be routine.
    for (size_t i = 1; i < d.ranked.size(); ++i)
      if (d.ranked[i].asset_id == asset && d.ranked[i].kind == k::kExecution) {
        EXPECT_TRUE(Contains(d.ranked[i].counter_evidence, "routine: " + usual)) << Dump(d);
      }
  }
}

// --- One change, one candidate ------------------------------------------------------------------

TEST_P(DiagnosisByChange, TheFacetsOfOneFlinkReleaseAreOneCandidateAndTheNextIsAnotherChange) {
  for (int seed = 0; seed < kSeeds; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(static_cast<uint32_t>(seed * 104729 + 3));
    const std::string s = std::to_string(seed);
    const std::string job = "flink://flink/points" + s, table = "table://main/balances" + s;
    const std::string enrich = "flink://flink/enrich" + s, topic = "kafka://prod/points" + s;
    const std::string fixups = "kestra://kestra/points.fixups" + s;
    UseEdges({{enrich, topic}, {topic, job}, {job, table}, {fixups, table}, {table, "sync://hightouch/tiers" + s}});
    const TimePoint t0 = DayOf(seed) + std::chrono::hours(Uniform(rng, 4, 14)) + minutes(Uniform(rng, 0, 59));
    const std::string jid = "a1b2c3d4e5f6" + s, old_jid = "0f0e0d0c0b0a" + s;
    const std::string sp = "s3://flink/savepoints/points" + s + "/savepoint-" + s + "-7f3a";
    std::set<std::string> release;
    auto facet = [&](const std::string& key, const std::string& kind, TimePoint at, double risk, Json ev) {
      ev["job_id"] = jid;
      AddEvent(key, job, kind, Iso(at), risk, ev);
      release.insert(key);
    };
    const int shape = seed % 3;  // 0: all four facets; 1: no config flag; 2: the refused first try too
    facet("flink:flink:" + jid + ":start", k::kDeploy, t0, 0.3, {{"state", "RUNNING"}});
    if (shape != 1)
      facet("flink:flink:" + jid + ":config:ignore-unclaimed-state", k::kConfigRisk, t0, 0.6,
            {{"key", "execution.savepoint.ignore-unclaimed-state"}, {"value", "true"}});
    if (shape == 2)
      facet("flink:flink:" + jid + ":refused", k::kException, t0 - seconds(Uniform(rng, 60, 240)), 0.5,
            {{"log_line", "Cannot map checkpoint/savepoint state for operator 90be"}});
    const TimePoint restored = t0 + seconds(Uniform(rng, 5, 120));
    facet("flink:flink:" + jid + ":restore:7:" + Iso(restored), k::kRestore, restored, 0.5,
          {{"checkpoint_id", 7}, {"is_savepoint", true}, {"external_path", sp}});
    facet("flink:flink:" + jid + ":skipped:90be", k::kRestoreSkippedState, restored + seconds(Uniform(rng, 1, 90)), 0.95,
          {{"operator_id", "90bea66de1c231edf33913ecd54406c1"}, {"savepoint_path", sp},
           {"log_line", "Skipping savepoint state for operator 90bea66de1c231edf33913ecd54406c1."}});
    // Distinct changes: the old run's checkpoint restart hours before, a deploy upstream, and a
    // revision of another writer of the table.
    const std::string old_restore = "flink:flink:" + old_jid + ":restore:3";
    AddEvent(old_restore, job, k::kRestore, Iso(t0 - std::chrono::hours(Uniform(rng, 2, 8))), 0.4,
             {{"job_id", old_jid}, {"checkpoint_id", 3}, {"is_savepoint", false},
              {"external_path", "s3://flink/checkpoints/points" + s + "/chk-3"}});
    AddEvent("flink:flink:e" + s + ":start", enrich, k::kDeploy, Iso(t0 + minutes(Uniform(rng, -300, 20))), 0.3,
             {{"job_id", "e0e1e2e3e4" + s}});
    AddEvent("kestra:kestra:points.fixups" + s + ":revision:4", fixups, k::kFlowRevision,
             Iso(t0 - minutes(Uniform(rng, 10, 400))), 0.4, {{"to_revision", 4}, {"from_revision", 3}});

    const TimePoint first_bad = restored + minutes(Uniform(rng, 10, 90));
    Diagnosis d = OpenAndDiagnose(MetricSignal("avg_balance" + s, table, Iso(first_bad), 3.0, 410.0));
    ASSERT_GE(d.ranked.size(), 2u) << Dump(d);
    const Candidate& top = d.ranked.front();
    EXPECT_EQ(top.kind, k::kRestoreSkippedState) << Dump(d);
    EXPECT_EQ(top.facets.size(), release.size() - 1) << Dump(d);
    for (const Facet& f : top.facets) EXPECT_TRUE(release.count(f.dedup_key)) << f.dedup_key;
    EXPECT_TRUE(Contains(top.evidence, "same change: the restore at")) << Dump(d);
    // Every other candidate is another change.
    bool old_run = false;
    for (size_t i = 1; i < d.ranked.size(); ++i) {
      EXPECT_EQ(release.count(d.ranked[i].dedup_key), 0u) << "rank " << i + 1 << ": " << Dump(d);
      old_run |= d.ranked[i].dedup_key == old_restore;
    }
    EXPECT_TRUE(old_run) << "the checkpoint restart of the old run is a change of its own: " << Dump(d);
  }
}

TEST_P(DiagnosisByChange, AKestraRevisionAndTheRoutineRunsThatRanItAreOneCandidate) {
  for (int seed = 0; seed < kSeeds; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(static_cast<uint32_t>(seed * 31337 + 5));
    const std::string s = std::to_string(seed);
    const std::string flow = "shop.revenue" + s, asset = "kestra://kestra/" + flow;
    const std::string table = "table://main/revenue" + s, raw = "table://main/orders" + s;
    const std::string other = "kestra://kestra/ops.cleanup" + s, ingest = "flink://flink/orders" + s;
    graph::AssetFacts facts;
    facts.id = asset;
    facts.schedule = seed % 2 ? "*/30 * * * *" : "0 * * * *";
    const seconds cadence(seed % 2 ? 1800 : 3600);
    UseEdges({{ingest, raw}, {other, raw}, {raw, asset}, {asset, table}}, {facts});
    const TimePoint saved = DayOf(seed) + std::chrono::hours(Uniform(rng, 3, 12)) + minutes(Uniform(rng, 0, 59));
    const TimePoint first_bad = saved + std::chrono::hours(Uniform(rng, 1, 4)) + minutes(Uniform(rng, 0, 20));
    auto runs = AddSchedule(asset, flow, cadence, seconds(Uniform(rng, 0, 9) * 60), saved - std::chrono::hours(30), first_bad,
                            rng, saved);
    const std::string rev_key = "kestra:kestra:" + flow + ":revision:7";
    AddEvent(rev_key, asset, k::kFlowRevision, Iso(saved), 0.4,
             {{"flow", flow}, {"to_revision", 7}, {"from_revision", 6},
              {"diff", "--- a\n+++ b\n   - id: load\n+  - id: load_again\n+    sql: INSERT INTO revenue SELECT * FROM staging\n"}});
    std::set<std::string> change = {rev_key};
    for (const auto& [t, key] : runs)
      if (t >= saved) change.insert(key);
    AddEvent("kestra:kestra:ops.cleanup" + s + ":revision:2", other, k::kFlowRevision,
             Iso(first_bad - minutes(Uniform(rng, 5, 200))), 0.4, {{"to_revision", 2}, {"from_revision", 1}});
    AddEvent("flink:flink:o" + s + ":start", ingest, k::kDeploy, Iso(first_bad - minutes(Uniform(rng, 5, 200))), 0.3,
             {{"job_id", "o1o2o3o4o5" + s}});

    Diagnosis d = OpenAndDiagnose(CheckSignal(table, "unique:order_id", Iso(first_bad), true, SignalShape::kDoubling));
    ASSERT_FALSE(d.ranked.empty());
    int holding = 0;
    for (const Candidate& c : d.ranked) {
      bool mine = change.count(c.dedup_key) > 0;
      for (const Facet& f : c.facets) mine |= change.count(f.dedup_key) > 0;
      holding += mine;
    }
    EXPECT_EQ(holding, 1) << "the revision and the runs on it must be one candidate: " << Dump(d);
    EXPECT_EQ(d.ranked.front().dedup_key, rev_key) << Dump(d);
  }
}

// --- Writers first ------------------------------------------------------------------------------

// The job that wrote the damaged table in the window is judged before anything further up, even a
// risky change upstream and even when it reads damaged data itself; it is never "downstream of
// the damage".
TEST_P(DiagnosisByChange, TheWriterOfTheDamagedTableIsJudgedBeforeAnythingUpstream) {
  for (int seed = 0; seed < kSeeds; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(static_cast<uint32_t>(seed * 6007 + 11));
    const std::string s = std::to_string(seed);
    const std::string raw = "table://main/raw_orders" + s, mart = "table://main/mart" + s;
    const std::string load = "kestra://kestra/shop.load" + s, writer = "kestra://kestra/shop.mart" + s;
    const std::string upstream = "flink://flink/orders" + s;
    UseEdges({{upstream, "kafka://prod/orders" + s}, {"kafka://prod/orders" + s, load}, {load, raw}, {raw, writer}, {writer, mart}});
    const TimePoint first_bad = DayOf(seed) + std::chrono::hours(Uniform(rng, 6, 18));
    // A risky change upstream, closer to the damage than the writer's.
    AddEvent("flink:flink:u" + s + ":config", upstream, k::kConfigRisk, Iso(first_bad - minutes(Uniform(rng, 5, 30))), 0.6,
             {{"job_id", "u9u8u7u6u5" + s}});
    const int shape = seed % 3;
    std::string key;
    SignalShape mart_shape = SignalShape::kDoubling;
    const TimePoint at = first_bad - minutes(Uniform(rng, 40, 240));
    if (shape == 0) {  // a replay of the mart's flow doubled it
      key = "kestra:kestra:mart-replay" + s + ":SUCCESS";
      AddEvent(key, writer, k::kExecutionReplay, Iso(at), 0.6,
               {{"execution_id", "mart-replay" + s}, {"original_id", "mart-first" + s}, {"state", "SUCCESS"}});
    } else if (shape == 1) {  // a statement deleted rows of the mart
      key = "warehouse_write:main:q" + s + ":public.mart" + s;
      mart_shape = SignalShape::kLevelDrop;
      AddEvent(key, mart, k::kWarehouseWrite, Iso(at), 0.5,
               {{"statement_type", "DELETE"}, {"rows_deleted", 1200 + seed}, {"query_id", "q" + s}});
    } else {  // the mart's flow ended FAILED
      key = "kestra:kestra:mart-failed" + s + ":FAILED";
      mart_shape = SignalShape::kLevelDrop;
      AddEvent(key, writer, k::kExecution, Iso(at), 0.5, {{"execution_id", "mart-failed" + s}, {"state", "FAILED"}});
    }
    // The raw table has damage of its own (new NULLs), which the mart's damage is not.
    clock_.Set(first_bad + minutes(5));
    EvaluationReport r = Evaluate({CheckSignal(raw, "not_null:customer_id", Iso(first_bad), true, SignalShape::kNullRateJump),
                                   CheckSignal(mart, "shape", Iso(first_bad), true, mart_shape)});
    ASSERT_FALSE(r.opened.empty());
    bool found = false;
    for (const std::string& id : r.opened) {
      auto d = Desk().Diagnose(id);
      ASSERT_TRUE(d.ok()) << d.status().ToString();
      for (const std::string& out : d->ruled_out) EXPECT_EQ(out.find(key), std::string::npos) << out;
      for (const std::string& out : d->ruled_out)
        EXPECT_TRUE(out.find(writer) == std::string::npos && out.find("on " + mart) == std::string::npos) << out;
      for (size_t i = 0; i < d->ranked.size(); ++i)
        if (d->ranked[i].dedup_key == key) {
          EXPECT_EQ(i, 0u) << "the mart's writer must rank first: " << Dump(*d);
          found = true;
        }
    }
    EXPECT_TRUE(found) << "the mart's writer is not among the candidates";
  }
}

INSTANTIATE_TEST_SUITE_P(Store, DiagnosisByChange, ::testing::Values("sqlite", "postgresql"), test_support::BackendName);

}  // namespace diagnosis_by_change_test
}  // namespace
}  // namespace dw::incidents
