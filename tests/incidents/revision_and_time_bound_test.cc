// Two things the day-one story of issue 35 needs from diagnosis.
//
// A saved flow revision whose diff adds an append (a second INSERT INTO the table the flow already
// writes) explains a doubling of that table on its own: the mart flow's revision saved the day
// before onboarding is the mart's own cause, an incident apart from the raw table's damage above it.
//
// A change whose platform keeps no time is dated when a pass saw it, with `time_bound: at_or_before`:
// diagnosis treats that time as an upper bound. Seen after the damage began, it may still be the
// cause (weighed below a change dated before the damage); a change its platform dates after the
// damage cannot be. A family of seeds varies the times, the risks and the kinds.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "incidents/cause_shape.h"
#include "incidents/grouping.h"
#include "incidents/routine_runs.h"
#include "incidents/own_cause.h"
#include "observe/changes/change_kinds.h"
#include "tests/incidents/incidents_test_support.h"

namespace dw::incidents {
namespace {
namespace revision_and_time_bound_test {

using test_support::At;
namespace k = observe::changes;

const char* kDiffAddsInsert =
    "--- shop/daily_revenue.yml\n+++ shop/daily_revenue.yml\n@@ -9,6 +9,9 @@\n"
    "     commands:\n       - dbt build --select stg_orders fct_daily_revenue\n"
    "+  - id: late_orders\n+    type: io.kestra.plugin.jdbc.sqlite.Query\n"
    "+    sql: INSERT INTO daily_revenue SELECT day, count(*), sum(amount) FROM raw_orders GROUP BY 1\n"
    " triggers:\n";

const char* kDiffMovesInsert =
    "--- shop/daily_revenue.yml\n+++ shop/daily_revenue.yml\n@@ -9,3 +9,3 @@\n"
    "-    sql: INSERT INTO daily_revenue SELECT day, count(*), sum(amount) FROM raw_orders GROUP BY 1\n"
    "+    sql: insert into daily_revenue SELECT day, count(*), sum(amount) FROM stg_orders GROUP BY 1\n";

store::ChangeEvent Revision(const char* diff) {
  store::ChangeEvent e;
  e.dedup_key = "kestra:kestra:shop.daily_revenue:revision:6";
  e.asset_id = "kestra://kestra/shop.daily_revenue";
  e.kind = k::kFlowRevision;
  e.happened_at = At("2026-12-01T17:40:00Z");
  e.risk = 0.4;
  e.evidence = {{"flow", "shop.daily_revenue"}, {"from_revision", 5}, {"to_revision", 6}, {"time_source", "platform"}};
  e.evidence["diff"] = diff ? Json(diff) : Json(nullptr);
  return e;
}

TEST(RevisionDiffFit, ARevisionThatAddsAnInsertExplainsADoublingOnItsOwn) {
  const std::vector<store::ChangeEvent> none;
  ShapeFit f = FitShape(Revision(kDiffAddsInsert), {SignalShape::kDoubling}, none, nullptr);
  EXPECT_GE(f.fit, kOwnCauseFit);
  EXPECT_NE(f.explanation.find("INSERT INTO daily_revenue"), std::string::npos) << f.explanation;
  EXPECT_TRUE(ExplainsOnItsOwn(Revision(kDiffAddsInsert), {SignalShape::kDoubling}, none, nullptr));
  EXPECT_GE(FitShape(Revision(kDiffAddsInsert), {SignalShape::kLevelRise}, none, nullptr).fit, kOwnCauseFit);
  // An added insert says nothing of nulls or a drop.
  EXPECT_LT(FitShape(Revision(kDiffAddsInsert), {SignalShape::kNullRateJump}, none, nullptr).fit, kOwnCauseFit);
  EXPECT_LT(FitShape(Revision(kDiffAddsInsert), {SignalShape::kLevelDrop}, none, nullptr).fit, kOwnCauseFit);
  // An insert rewritten in place (one removed, one added), no diff, or no diff Kestra could serve:
  // a revision changed the logic, nothing says it writes twice.
  EXPECT_LT(FitShape(Revision(kDiffMovesInsert), {SignalShape::kDoubling}, none, nullptr).fit, kOwnCauseFit);
  EXPECT_LT(FitShape(Revision(nullptr), {SignalShape::kDoubling}, none, nullptr).fit, kOwnCauseFit);
  store::ChangeEvent no_diff = Revision(nullptr);
  no_diff.evidence.erase("diff");
  EXPECT_LT(FitShape(no_diff, {SignalShape::kDoubling}, none, nullptr).fit, kOwnCauseFit);
}

// The loader's 09:00 run ended in WARNING (a page of the orders API timed out): not a green run.
TEST(ExecutionStateFit, AWarningRunIsNotCalledGreen) {
  const std::vector<store::ChangeEvent> none;
  store::ChangeEvent e;
  e.dedup_key = "kestra:kestra:load09:WARNING";
  e.asset_id = "kestra://kestra/shop.load_orders";
  e.kind = k::kExecution;
  e.happened_at = At("2026-12-02T09:02:10Z");
  e.evidence = {{"execution_id", "load09"}, {"state", "WARNING"}};
  ShapeFit warning = FitShape(e, {SignalShape::kNullRateJump, SignalShape::kLevelDrop}, none, nullptr);
  EXPECT_NE(warning.explanation.find("WARNING"), std::string::npos) << warning.explanation;
  for (const std::string& c : warning.counter_evidence) EXPECT_EQ(c.find("succeeded"), std::string::npos) << c;
  e.evidence["state"] = "SUCCESS";
  ShapeFit green = FitShape(e, {SignalShape::kNullRateJump, SignalShape::kLevelDrop}, none, nullptr);
  EXPECT_GT(warning.fit, green.fit);
  EXPECT_LT(warning.fit, kOwnCauseFit);
}

// A backfill wrote an earlier slot again: in place of that slot's rows when the flow reloads, on
// top of them when it appends. Whether labelled or told by its trigger's slot, it explains a drop
// and a doubling, and says why; a run on time, or a replay, is not one.
TEST(ExecutionStateFit, ARunForAPastSlotExplainsADropOrADoubling) {
  const std::vector<store::ChangeEvent> none;
  auto run = [](const std::string& start, const std::string& slot, bool label) {
    store::ChangeEvent e;
    e.dedup_key = "kestra:kestra:bf:" + start;
    e.asset_id = "kestra://kestra/shop.load_orders";
    e.kind = k::kExecution;
    e.happened_at = At(start);
    e.evidence = {{"execution_id", "bf-" + start}, {"state", "SUCCESS"}, {"start", start}};
    if (!slot.empty()) e.evidence["scheduled_date"] = slot;
    if (label) e.evidence["labels"] = Json::array({{{"key", "backfill"}, {"value", "true"}}});
    return e;
  };
  for (const store::ChangeEvent& e : {run("2026-12-02T10:13:40Z", "2026-12-02T07:13:00Z", false),
                                      run("2026-12-02T10:13:40Z", "2026-11-30T23:00:00Z", false),
                                      run("2026-12-02T10:13:40Z", "", true)}) {
    EXPECT_TRUE(RerunsPastSlot(e)) << e.evidence.dump();
    ShapeFit drop = FitShape(e, {SignalShape::kLevelDrop}, none, nullptr);
    EXPECT_EQ(drop.cause_kind, "rerun_of_past_slot");
    EXPECT_GE(drop.fit, kOwnCauseFit) << drop.explanation;
    EXPECT_NE(drop.explanation.find("in place of"), std::string::npos) << drop.explanation;
    ShapeFit doubling = FitShape(e, {SignalShape::kDoubling}, none, nullptr);
    EXPECT_GE(doubling.fit, kOwnCauseFit);
    EXPECT_NE(doubling.explanation.find("doubling"), std::string::npos) << doubling.explanation;
  }
  // On time (its slot within 10 minutes), and a replay of an execution: not a rerun of a slot.
  EXPECT_FALSE(RerunsPastSlot(run("2026-12-02T10:13:40Z", "2026-12-02T10:13:00Z", false)));
  store::ChangeEvent replay = run("2026-12-02T10:13:40Z", "2026-12-02T07:13:00Z", false);
  replay.kind = k::kExecutionReplay;
  EXPECT_FALSE(RerunsPastSlot(replay));
  replay.kind = k::kExecution;
  replay.evidence["original_id"] = "load07";
  EXPECT_FALSE(RerunsPastSlot(replay));
}

class RevisionAndTimeBound : public test_support::DeskTest {};

// The day-one story: the loader's run put NULLs and duplicates into raw_orders; the mart flow's
// revision 6, saved 16 hours before (the day before onboarding), inserts the day twice. Two
// incidents, each with its own writer first, the revision's diff line in the mart's explanation.
TEST_P(RevisionAndTimeBound, TheMartFlowsRevisionSavedTheDayBeforeIsTheMartsOwnCause) {
  const std::string load = "kestra://kestra/shop.load_orders", raw = "table://main/raw_orders",
                    rev = "kestra://kestra/shop.daily_revenue", mart = "table://main/daily_revenue",
                    model = "dbt://shop/fct_daily_revenue";
  std::vector<graph::AssetFacts> facts(2);
  facts[0].id = load;
  facts[0].schedule = "0 * * * *";
  facts[1].id = rev;
  facts[1].schedule = "30 9 * * *";
  UseEdges({{"api://shop/orders", load}, {load, raw}, {raw, rev}, {rev, mart}, {raw, model}, {model, mart}}, facts);
  store::ChangeEvent r = Revision(kDiffAddsInsert);
  AddEvent(r.dedup_key, r.asset_id, r.kind, "2026-12-01T17:40:00Z", 0.4, r.evidence);
  AddEvent("kestra:kestra:load09:WARNING", load, k::kExecution, "2026-12-02T09:02:10Z", 0.4,
           Json{{"execution_id", "load09"}, {"state", "WARNING"}});
  AddEvent("kestra:kestra:rev0930:SUCCESS", rev, k::kExecution, "2026-12-02T09:31:40Z", 0.1,
           Json{{"execution_id", "rev0930"}, {"state", "SUCCESS"}, {"flow_revision", 6}});
  clock_.Set(At("2026-12-02T10:05:00Z"));
  EvaluationReport report =
      Evaluate({CheckSignal(raw, "not_null:customer_id", "2026-12-02T10:00:00Z", true, SignalShape::kNullRateJump),
                CheckSignal(raw, "unique:order_id", "2026-12-02T10:00:00Z", true, SignalShape::kDoubling),
                MetricSignal("hourly_orders", raw, "2026-12-02T09:03:00Z", 45, 120),
                CheckSignal(mart, "unique:day", "2026-12-02T10:05:00Z", true, SignalShape::kDoubling)});
  ASSERT_EQ(report.opened.size(), 2u);
  for (const std::string& id : report.opened) {
    Incident inc = Get(id);
    const bool raw_incident = inc.damaged_assets == std::vector<std::string>{raw};
    if (!raw_incident) {
      EXPECT_EQ(inc.damaged_assets, std::vector<std::string>{mart});
    }
    auto d = Desk().Diagnose(id);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    ASSERT_FALSE(d->ranked.empty());
    EXPECT_EQ(d->ranked.front().asset_id, raw_incident ? load : rev) << d->summary;
    if (!raw_incident) {
      EXPECT_EQ(d->ranked.front().kind, k::kFlowRevision) << d->summary;
      EXPECT_NE(d->ranked.front().explanation.find("INSERT INTO daily_revenue"), std::string::npos);
    }
  }
}

// One generated story: a table whose rows fell at `first_bad`, three writers with a change each of
// the same kind and risk: one dated by its platform before the damage, one seen after it with an
// upper-bound time, one dated by its platform after the damage.
struct TimedStory {
  std::string table, before, seen_after, dated_after, kind;
  TimePoint first_bad, before_at, seen_at, dated_at;
  double risk = 0.5;
};

TimedStory GenerateTimed(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  TimedStory s;
  const std::string n = std::to_string(seed);
  s.table = "table://main/orders_" + n;
  s.before = "connect://connect/sink-a-" + n;
  s.seen_after = "connect://connect/sink-b-" + n;
  s.dated_after = "connect://connect/sink-c-" + n;
  s.kind = std::vector<std::string>{k::kConnectorState, k::kTriggerToggled, k::kConfigRisk}[pick(0, 2)];
  s.risk = pick(3, 9) / 10.0;
  // Each seed a day after the one before, so the clock only moves forward.
  s.first_bad = At("2027-01-01T00:00:00Z") + std::chrono::hours(24 * seed) + std::chrono::minutes(pick(0, 600));
  s.before_at = s.first_bad - std::chrono::minutes(pick(1, 180));     // within 3 h before: proximity > 0.7
  s.seen_at = s.first_bad + std::chrono::minutes(pick(1, 23 * 60));    // within the window after
  s.dated_at = s.first_bad + std::chrono::minutes(pick(1, 23 * 60));
  return s;
}

TEST_P(RevisionAndTimeBound, AChangeSeenAfterTheDamageWithAnUpperBoundTimeMayBeItsCausePlatformDatedOnesCannot) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    TimedStory s = GenerateTimed(seed);
    SCOPED_TRACE("seed " + std::to_string(seed) + ": " + s.kind + ", first bad " + FormatRfc3339(s.first_bad) +
                 ", seen at " + FormatRfc3339(s.seen_at) + ", dated at " + FormatRfc3339(s.dated_at));
    UseEdges({{s.before, s.table}, {s.seen_after, s.table}, {s.dated_after, s.table}});
    const Json platform = {{"time_source", "platform"}};
    const Json observed = {{"time_source", "observed"}, {"time_bound", "at_or_before"}};
    AddEvent("before-" + std::to_string(seed), s.before, s.kind, FormatRfc3339(s.before_at), s.risk, platform);
    AddEvent("seen-" + std::to_string(seed), s.seen_after, s.kind, FormatRfc3339(s.seen_at), s.risk, observed);
    AddEvent("dated-" + std::to_string(seed), s.dated_after, s.kind, FormatRfc3339(s.dated_at), s.risk, platform);
    clock_.Set(std::max(s.seen_at, s.dated_at) + std::chrono::minutes(1));
    EvaluationReport r = Evaluate({MetricSignal("rows_" + std::to_string(seed), s.table, FormatRfc3339(s.first_bad), 30, 100)});
    ASSERT_EQ(r.opened.size(), 1u);
    auto d = Desk().Diagnose(r.opened[0]);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_EQ(d->first_bad_at, s.first_bad);
    auto find = [&d](const std::string& asset) {
      return std::find_if(d->ranked.begin(), d->ranked.end(), [&asset](const Candidate& c) { return c.asset_id == asset; });
    };
    // The platform-dated change after the damage is no candidate.
    EXPECT_EQ(find(s.dated_after), d->ranked.end()) << d->summary;
    // The one seen after, at or before: a candidate that says why, below the one dated before.
    auto seen = find(s.seen_after), before = find(s.before);
    ASSERT_NE(seen, d->ranked.end()) << d->summary;
    ASSERT_NE(before, d->ranked.end()) << d->summary;
    EXPECT_LT(before - d->ranked.begin(), seen - d->ranked.begin());
    EXPECT_GT(before->score.total, seen->score.total);
    EXPECT_GT(seen->score.time_proximity, 0.0);
    EXPECT_LE(seen->score.time_proximity, 0.5);
    EXPECT_TRUE(std::any_of(seen->counter_evidence.begin(), seen->counter_evidence.end(),
                            [](const std::string& c) { return c.find("at or before") != std::string::npos; }));
    // The later it was seen, the less its time says.
    EXPECT_EQ(d->ranked.size(), 2u);
  }
}

// Grouping judges a change's time as diagnosis does (MayPrecede): one seen after the damage with
// an upper-bound time, within the group window, ties the damage below it together and is the
// incident's first cause; the same change dated after the damage by its platform ties nothing.
// A family of seeds varies the kind, the risk and how long after the damage the change was seen.
TEST_P(RevisionAndTimeBound, AChangeSeenAfterTheDamageWithAnUpperBoundTimeTiesItsDamageAsDiagnosisJudgesIt) {
  for (uint32_t seed = 1; seed <= 16; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const std::string n = std::to_string(seed);
    const std::string sink = "connect://connect/sink-" + n, a = "table://main/orders_" + n,
                      b = "table://main/payments_" + n;
    const std::string kind = std::vector<std::string>{k::kConnectorState, k::kTriggerToggled, k::kConfigRisk}[pick(0, 2)];
    const bool upper_bound = seed % 2 == 1;
    const TimePoint bad = At("2027-03-01T00:00:00Z") + std::chrono::hours(24 * seed) + std::chrono::minutes(pick(0, 600));
    const TimePoint seen = bad + std::chrono::minutes(pick(1, 5 * 60));  // within the 6 h group window
    SCOPED_TRACE("seed " + n + ": " + kind + (upper_bound ? ", at or before " : ", dated by its platform at ") +
                 FormatRfc3339(seen) + ", damage at " + FormatRfc3339(bad));
    UseEdges({{sink, a}, {sink, b}});
    Json evidence = {{"time_source", upper_bound ? "observed" : "platform"}};
    if (upper_bound) evidence["time_bound"] = "at_or_before";
    AddEvent("sink-" + n, sink, kind, FormatRfc3339(seen), pick(5, 9) / 10.0, evidence);
    clock_.Set(seen + std::chrono::minutes(pick(1, 30)));
    EvaluationReport r = Evaluate({MetricSignal("orders_" + n, a, FormatRfc3339(bad), 10, 100),
                                   MetricSignal("payments_" + n, b, FormatRfc3339(bad + std::chrono::minutes(2)), 10, 100)});
    if (!upper_bound) {
      EXPECT_EQ(r.opened.size(), 2u) << "a change its platform dates after the damage tied it";
      continue;
    }
    ASSERT_EQ(r.opened.size(), 1u);
    Incident inc = Get(r.opened[0]);
    std::vector<std::string> damaged = inc.damaged_assets, both = {a, b};
    std::sort(damaged.begin(), damaged.end());
    std::sort(both.begin(), both.end());
    EXPECT_EQ(damaged, both);
    EXPECT_EQ(inc.cause_asset, sink);
    EXPECT_EQ(inc.cause_kind, kind);
  }
}

// GroupSignals' own contract for an upper-bound time, an own cause's included: a writer's change
// seen after its table's damage (within the window) is that table's own cause in grouping, as in
// diagnosis; dated after it by its platform, or seen more than a window after, it is not.
TEST(GroupSignalsTimeBound, AnOwnCauseSeenAfterTheDamageWithAnUpperBoundTimeJoinsItsTable) {
  graph::GraphIndex ix;
  const uint8_t table = static_cast<uint8_t>(graph::KindIndex("table"));
  const uint8_t kestra = static_cast<uint8_t>(graph::KindIndex("kestra"));
  auto edge = [&](const std::string& s, const std::string& d, uint8_t sk, uint8_t dk) {
    graph::EdgeEntry e;
    e.src = ix.Intern(s, sk);
    e.dst = ix.Intern(d, dk);
    e.origins = 1;
    ix.AddEdge(e);
  };
  const std::string load = "kestra://kestra/load", raw = "table://pg/raw", rev = "kestra://kestra/rev",
                    mart = "table://pg/mart";
  edge(load, raw, kestra, table);
  edge(raw, rev, table, kestra);
  edge(rev, mart, kestra, table);
  const TimePoint t = At("2026-12-01T07:00:00Z");
  for (int minutes : {1, 45, 200, 359, 361, 600}) {
    for (bool upper : {false, true}) {
      SCOPED_TRACE(std::to_string(minutes) + " min after, upper bound " + std::to_string(upper));
      GroupingInput in;
      in.window = std::chrono::hours(6);
      in.damage = {{raw, t}, {mart, t}};
      in.changes = {{rev, "change:rev", t + std::chrono::minutes(minutes), "connector_state", upper}};
      in.own_cause[mart] = {rev};
      std::vector<SignalGroup> groups = GroupSignals(&ix, in);
      ASSERT_EQ(groups.size(), 2u);
      const bool joins = upper && minutes <= 360;
      EXPECT_EQ(groups[1].assets, (std::vector<std::string>{mart}));
      EXPECT_EQ(groups[1].changes.size(), joins ? 1u : 0u);
      // Without an own cause, the same change below the raw table ties nothing above it.
      in.own_cause.clear();
      groups = GroupSignals(&ix, in);
      ASSERT_EQ(groups.size(), 1u);
      EXPECT_EQ(groups[0].changes.size(), joins ? 1u : 0u);
    }
  }
}

TEST(MayPrecedeTest, AnUpperBoundTimeMayComeAfterTheDamageAPlatformTimeMayNot) {
  const TimePoint bad = At("2026-12-02T10:00:00Z");
  const auto window = std::chrono::hours(24);
  store::ChangeEvent e;
  e.happened_at = At("2026-12-02T10:30:00Z");
  e.evidence = {{"time_source", "platform"}};
  EXPECT_FALSE(MayPrecede(e, bad, window));
  e.evidence = {{"time_source", "observed"}};
  EXPECT_FALSE(MayPrecede(e, bad, window)) << "observed alone says when it was seen, not that it came before";
  e.evidence = {{"time_source", "observed"}, {"time_bound", "at_or_before"}};
  EXPECT_TRUE(MayPrecede(e, bad, window));
  e.happened_at = bad + std::chrono::hours(25);
  EXPECT_FALSE(MayPrecede(e, bad, window)) << "seen more than a window after";
  e.happened_at = bad - std::chrono::hours(2);
  e.evidence = Json::object();
  EXPECT_TRUE(MayPrecede(e, bad, window));
  e.happened_at = bad - std::chrono::hours(25);
  EXPECT_FALSE(MayPrecede(e, bad, window));
}

INSTANTIATE_TEST_SUITE_P(Store, RevisionAndTimeBound, ::testing::Values("sqlite", "postgresql"), test_support::BackendName);

}  // namespace revision_and_time_bound_test
}  // namespace
}  // namespace dw::incidents
