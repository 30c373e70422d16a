// Two breaks on one lineage path (issue 35): a loader that damages a raw table, and the flow that
// reads it and writes a mart. They are one incident only when they could share a cause; when the
// mart's own writer explains the mart's damage on its own, the mart is an incident of its own, and
// diagnosis ranks each damaged asset's own writer first and never rules a writer out as
// "downstream of the damaged table". A generator varies the names, the times inside the window,
// the distractors, how each break happened, whether the signals arrive in one pass or two, and
// which breaks happen; each seed asserts the number of incidents and the cause ranked first.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "incidents/grouping.h"
#include "observe/changes/change_kinds.h"
#include "tests/incidents/incidents_test_support.h"

namespace dw::incidents {
namespace {
namespace independent_breaks_test {

using test_support::At;
namespace k = observe::changes;

enum class Breaks { kOnlyRaw, kOnlyMart, kCommonCause, kIndependent };

const char* BreaksName(Breaks b) {
  switch (b) {
    case Breaks::kOnlyRaw: return "only the raw table";
    case Breaks::kOnlyMart: return "only the mart";
    case Breaks::kCommonCause: return "both, one cause";
    case Breaks::kIndependent: return "both, independent";
  }
  return "";
}

// One generated story: the assets, the changes the collectors stored, the signals of each pass and
// what must come out.
struct Story {
  std::string raw, loader, mart, writer, summary;  // summary: a model reading raw, watched by a monitor
  Breaks breaks = Breaks::kOnlyRaw;
  bool raw_by_statement = false;   // the raw break is a warehouse INSERT recorded on the table, not a doubled run
  bool mart_by_statement = false;  // the same for the mart
  bool two_passes = false;         // the mart's signals arrive one pass after the raw table's
  bool risky_source = false;       // a risky change on the loader's source topic in the window
  std::vector<std::pair<std::string, std::string>> edges;
  std::vector<graph::AssetFacts> facts;
  struct Event {
    std::string key, asset, kind;
    TimePoint at;
    double risk;
    Json evidence;
  };
  std::vector<Event> events;
  std::vector<Signal> first_pass, second_pass;
  TimePoint first_at, second_at;
  std::string Describe(uint32_t seed) const {
    return "seed " + std::to_string(seed) + ": " + BreaksName(breaks) + (raw_by_statement ? ", raw by statement" : "") +
           (mart_by_statement ? ", mart by statement" : "") + (two_passes ? ", two passes" : "") + (risky_source ? ", risky source" : "");
  }
};

TimePoint Plus(TimePoint t, int minutes) { return t + std::chrono::minutes(minutes); }

// A failed check of the shape the check gives (signal_shape.h), as the signal gathering makes it.
Signal FailedCheck(const std::string& table, const std::string& check, TimePoint at, SignalShape shape) {
  Signal s;
  s.kind = SignalKind::kCheck;
  s.key = "check:" + table + ":" + check;
  s.asset_id = table;
  s.at = at;
  s.shape = shape;
  s.summary = check + " on " + table + " failed";
  return s;
}

// A monitor's point far below its baseline: a level drop.
Signal MonitorDrop(const std::string& metric, const std::string& asset, TimePoint at) {
  Signal s;
  s.kind = SignalKind::kMetric;
  s.key = "metric:" + metric;
  s.asset_id = asset;
  s.at = at;
  s.value = 40;
  s.expected = 100;
  s.shape = SignalShape::kLevelDrop;
  s.summary = metric + " is anomalous";
  return s;
}

Story Generate(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Story s;
  s.breaks = static_cast<Breaks>(seed % 4);
  s.raw_by_statement = pick(0, 1) == 1;
  s.mart_by_statement = pick(0, 1) == 1;
  const std::string n = std::to_string(seed) + "x" + std::to_string(pick(1, 999));  // one seed's names are its own
  const std::string ns = std::vector<std::string>{"shop", "sales", "ops", "billing"}[pick(0, 3)];
  const std::string wh = std::vector<std::string>{"pg", "main", "dwh"}[pick(0, 2)];
  const std::string topic = "kafka://prod/" + ns + "-orders-" + n;
  s.raw = "table://" + wh + "/raw.orders_" + n;
  s.loader = "kestra://kestra/" + ns + ".orders_load_" + n;
  s.mart = "table://" + wh + "/marts.daily_revenue_" + n;
  s.writer = "kestra://kestra/" + ns + ".daily_revenue_" + n;
  s.summary = "dbt://" + ns + "/orders_summary_" + n;
  s.edges = {{topic, s.loader}, {s.loader, s.raw}, {s.raw, s.writer}, {s.writer, s.mart}, {s.raw, s.summary}};
  for (const std::string& job : {s.loader, s.writer}) {
    graph::AssetFacts f;
    f.id = job;
    f.schedule = "0 * * * *";  // scheduled flows: two runs within an hour are a duplicated run
    s.facts.push_back(f);
  }

  // Each seed two days after the one before, so the clock only moves forward.
  const TimePoint t0 = Plus(At("2026-12-01T00:00:00Z"), static_cast<int>(seed) * 2 * 24 * 60 + pick(0, 12 * 60));
  auto run = [&](const std::string& flow, const std::string& id, TimePoint at) {
    s.events.push_back({"kestra:kestra:" + id + ":SUCCESS", flow, k::kExecution, at, 0.1,
                        Json{{"execution_id", id}, {"flow", flow.substr(16)}, {"state", "SUCCESS"}}});
  };
  auto insert = [&](const std::string& table, const std::string& id, TimePoint at) {
    s.events.push_back({"write:" + id, table, k::kWarehouseWrite, at, 0.3,
                        Json{{"statement_type", "INSERT"}, {"rows_inserted", pick(500, 5000)}, {"query_id", id}}});
  };
  const bool raw_breaks = s.breaks != Breaks::kOnlyMart;
  const bool mart_breaks = s.breaks != Breaks::kOnlyRaw;
  // The loader's runs; when the raw table breaks, it loaded twice (a doubled run, or a statement
  // the warehouse recorded appending the rows again).
  const TimePoint load = Plus(t0, pick(0, 120));
  run(s.loader, "load-" + n + "-a", load);
  if (raw_breaks && !s.raw_by_statement) run(s.loader, "load-" + n + "-b", Plus(load, pick(1, 50)));
  if (raw_breaks && s.raw_by_statement) insert(s.raw, "raw-" + n, Plus(load, pick(1, 50)));
  // The mart's flow; independently broken, it inserted the day twice.
  const TimePoint rev = Plus(t0, pick(60, 180));
  run(s.writer, "rev-" + n + "-a", rev);
  if (s.breaks == Breaks::kOnlyMart || s.breaks == Breaks::kIndependent) {
    if (s.mart_by_statement) insert(s.mart, "mart-" + n, Plus(rev, pick(1, 50)));
    else run(s.writer, "rev-" + n + "-b", Plus(rev, pick(1, 50)));
  }

  // Sometimes a risky change on the loader's source topic: it ties whatever lies below it, but a
  // mart with a cause of its own stays apart, and it ranks below each asset's own writer.
  s.risky_source = pick(0, 2) == 0;
  if (s.risky_source) s.events.push_back({"config-" + n, topic, k::kConfigRisk, Plus(t0, pick(0, 200)), 0.7, Json::object()});

  // Distractors: jobs on their own sources with green runs and risky deploys in the window; jobs
  // that read the raw table or the mart and write tables nobody finds damaged; jobs that share the
  // loader's source topic.
  const int distractors = pick(0, 6);
  for (int i = 0; i < distractors; ++i) {
    const std::string d = std::to_string(i) + "_" + n;
    const std::string job = "flink://flink/job-" + d;
    switch (pick(0, 3)) {
      case 0:
        s.edges.push_back({"kafka://prod/other-" + d, job});
        s.edges.push_back({job, "table://" + wh + "/other_" + d});
        s.events.push_back({"deploy-" + d, job, k::kDeploy, Plus(t0, pick(0, 230)), 0.7, Json::object()});
        break;
      case 1:
        s.edges.push_back({s.raw, job});
        s.edges.push_back({job, "table://" + wh + "/copy_" + d});
        break;
      case 2:
        s.edges.push_back({s.mart, job});
        s.edges.push_back({job, "table://" + wh + "/report_" + d});
        break;
      default:
        s.edges.push_back({topic, job});
        s.edges.push_back({job, "table://" + wh + "/side_" + d});
        break;
    }
    run(job, "job-" + d, Plus(t0, pick(0, 230)));
  }

  // The signals, after every change and within the window of each.
  s.first_at = Plus(t0, pick(240, 330));
  s.two_passes = raw_breaks && mart_breaks && pick(0, 1) == 1;
  s.second_at = s.two_passes ? Plus(s.first_at, pick(5, 30)) : s.first_at;
  if (raw_breaks) {
    s.first_pass.push_back(FailedCheck(s.raw, "not_null:customer_id", s.first_at, SignalShape::kNullRateJump));
    s.first_pass.push_back(FailedCheck(s.raw, "unique:order_id", s.first_at, SignalShape::kDoubling));
    s.first_pass.push_back(MonitorDrop("orders_summary_" + n, s.summary, Plus(s.first_at, -pick(0, 20))));
  }
  if (mart_breaks) {
    std::vector<Signal>& pass = s.two_passes ? s.second_pass : s.first_pass;
    // Carried down from the raw table, the mart shows its duplicates or, from its NULLs, lower totals.
    if (s.breaks == Breaks::kCommonCause && pick(0, 1) == 1)
      pass.push_back(FailedCheck(s.mart, "volume", s.second_at, SignalShape::kLevelDrop));
    else
      pass.push_back(FailedCheck(s.mart, "unique:day", s.second_at, SignalShape::kDoubling));
  }
  return s;
}

class IndependentBreaks : public test_support::DeskTest {
 protected:
  void Load(const Story& s) {
    UseEdges(s.edges, s.facts);
    for (const Story::Event& e : s.events) AddEvent(e.key, e.asset, e.kind, FormatRfc3339(e.at), e.risk, e.evidence);
  }

  // Replays the story's passes; the incidents opened, by id.
  std::vector<std::string> Replay(const Story& s) {
    clock_.Set(s.first_at);
    std::vector<std::string> opened = Evaluate(s.first_pass).opened;
    if (!s.second_pass.empty()) {
      clock_.Set(s.second_at);
      for (const std::string& id : Evaluate(s.second_pass).opened) opened.push_back(id);
    }
    return opened;
  }
};

TEST_P(IndependentBreaks, EachSeedGivesTheIncidentsItsBreaksCallForWithTheirOwnWriterFirst) {
  const uint32_t seeds = 48;
  for (uint32_t seed = 1; seed <= seeds; ++seed) {
    // One store for every seed: each seed's names and days are its own, and each seed's notes
    // replace the graph of the one before.
    Story s = Generate(seed);
    SCOPED_TRACE(s.Describe(seed));
    Load(s);
    std::vector<std::string> opened = Replay(s);
    const size_t want = s.breaks == Breaks::kIndependent ? 2 : 1;
    EXPECT_EQ(opened.size(), want);
    for (const std::string& id : opened) {
      Incident inc = Get(id);
      const auto& dam = inc.damaged_assets;
      const bool holds_raw = std::find(dam.begin(), dam.end(), s.raw) != dam.end();
      const bool holds_mart = std::find(dam.begin(), dam.end(), s.mart) != dam.end();
      // The monitor's drop below the raw table joins the raw table's incident.
      EXPECT_EQ(std::find(dam.begin(), dam.end(), s.summary) != dam.end(), holds_raw);
      if (s.breaks == Breaks::kIndependent) {
        EXPECT_NE(holds_raw, holds_mart) << "two breaks with no common cause were joined";
      }
      auto d = Desk().Diagnose(id);
      ASSERT_TRUE(d.ok()) << d.status().ToString();
      EXPECT_FALSE(d->ranked.empty()) << d->summary;
      if (d->ranked.empty()) continue;
      const std::string& top = d->ranked.front().asset_id;
      if (holds_raw) {
        EXPECT_EQ(top, s.raw_by_statement ? s.raw : s.loader) << d->summary;
      } else {
        EXPECT_TRUE(holds_mart);
        EXPECT_EQ(top, s.mart_by_statement ? s.mart : s.writer) << d->summary;
        for (const std::string& r : d->ruled_out) EXPECT_EQ(r.find(s.writer), std::string::npos) << r;
      }
    }
  }
}

// The story of issue 35 as its reporter told it: NULLs and duplicates in raw.orders, a double
// insert into marts.daily_revenue by the flow that reads it, a monitor's drop below raw.orders.
TEST_P(IndependentBreaks, NullsAndDuplicatesInTheRawTableAndADoubleInsertInTheMartAreTwoIncidents) {
  const std::string topic = "kafka://prod/orders", load = "kestra://kestra/shop.orders_load",
                    raw = "table://pg/raw.orders", rev = "kestra://kestra/shop.daily_revenue",
                    mart = "table://pg/marts.daily_revenue", summary = "dbt://shop/orders_summary";
  std::vector<graph::AssetFacts> facts(2);
  facts[0].id = load;
  facts[0].schedule = "0 5 * * *";
  facts[1].id = rev;
  facts[1].schedule = "0 6 * * *";
  UseEdges({{topic, load}, {load, raw}, {raw, rev}, {rev, mart}, {raw, summary}}, facts);
  auto run = [](const std::string& id, const std::string& flow) {
    return Json{{"execution_id", id}, {"flow", flow}, {"state", "SUCCESS"}};
  };
  AddEvent("kestra:kestra:load1:SUCCESS", load, k::kExecution, "2026-12-01T05:00:00Z", 0.1, run("load1", "shop.orders_load"));
  AddEvent("kestra:kestra:load2:SUCCESS", load, k::kExecution, "2026-12-01T05:20:00Z", 0.1, run("load2", "shop.orders_load"));
  AddEvent("kestra:kestra:rev1:SUCCESS", rev, k::kExecution, "2026-12-01T06:00:00Z", 0.1, run("rev1", "shop.daily_revenue"));
  AddEvent("kestra:kestra:rev2:SUCCESS", rev, k::kExecution, "2026-12-01T06:04:00Z", 0.1, run("rev2", "shop.daily_revenue"));
  clock_.Set(At("2026-12-01T07:00:00Z"));
  EvaluationReport r = Evaluate({CheckSignal(raw, "not_null:customer_id", "2026-12-01T07:00:00Z", true, SignalShape::kNullRateJump),
                                 CheckSignal(raw, "unique:order_id", "2026-12-01T07:00:00Z", true, SignalShape::kDoubling),
                                 CheckSignal(mart, "unique:day", "2026-12-01T07:00:00Z", true, SignalShape::kDoubling),
                                 MetricSignal("orders_summary_rows", summary, "2026-12-01T06:50:00Z", 30, 100)});
  ASSERT_EQ(r.opened.size(), 2u);
  for (const std::string& id : r.opened) {
    Incident inc = Get(id);
    const bool raw_incident = std::find(inc.damaged_assets.begin(), inc.damaged_assets.end(), raw) != inc.damaged_assets.end();
    EXPECT_EQ(inc.damaged_assets, raw_incident ? (std::vector<std::string>{summary, raw}) : (std::vector<std::string>{mart}));
    auto d = Desk().Diagnose(id);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    ASSERT_FALSE(d->ranked.empty());
    EXPECT_EQ(d->ranked.front().asset_id, raw_incident ? load : rev) << d->summary;
    EXPECT_EQ(d->ranked.front().cause_kind, "duplicated_run");
    for (const std::string& s : d->ruled_out) EXPECT_EQ(s.find("shop.daily_revenue"), std::string::npos) << s;
  }
}

// Grouped before the collector saw the mart's double insert (it read Kestra late), the two breaks
// share an incident; diagnosis still judges the mart's writer against the mart's damage, ranks it,
// and does not rule it out as downstream of raw.orders, whose duplicates could have carried down.
TEST_P(IndependentBreaks, AWriterWhoseChangeExplainsItsTableIsNeverRuledOutAsDownstreamOfTheDamage) {
  const std::string load = "kestra://kestra/shop.orders_load", raw = "table://pg/raw.orders",
                    rev = "kestra://kestra/shop.daily_revenue", mart = "table://pg/marts.daily_revenue";
  std::vector<graph::AssetFacts> facts(1);
  facts[0].id = rev;
  facts[0].schedule = "0 6 * * *";
  UseEdges({{load, raw}, {raw, rev}, {rev, mart}}, facts);
  AddEvent("kestra:kestra:rev1:SUCCESS", rev, k::kExecution, "2026-12-01T06:00:00Z", 0.1,
           Json{{"execution_id", "rev1"}, {"state", "SUCCESS"}});
  clock_.Set(At("2026-12-01T07:00:00Z"));
  EvaluationReport r = Evaluate({CheckSignal(raw, "not_null:customer_id", "2026-12-01T07:00:00Z", true, SignalShape::kNullRateJump),
                                 CheckSignal(raw, "unique:order_id", "2026-12-01T07:00:00Z", true, SignalShape::kDoubling),
                                 CheckSignal(mart, "unique:day", "2026-12-01T07:00:00Z", true, SignalShape::kDoubling)});
  ASSERT_EQ(r.opened.size(), 1u) << "one green run of the mart's flow explains nothing of its own";
  // The second run, read late.
  AddEvent("kestra:kestra:rev2:SUCCESS", rev, k::kExecution, "2026-12-01T06:04:00Z", 0.1,
           Json{{"execution_id", "rev2"}, {"state", "SUCCESS"}});
  auto d = Desk().Diagnose(r.opened[0]);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  for (const std::string& s : d->ruled_out) EXPECT_EQ(s.find("shop.daily_revenue"), std::string::npos) << s;
  ASSERT_FALSE(d->ranked.empty());
  EXPECT_EQ(d->ranked.front().asset_id, rev) << d->summary;
  EXPECT_EQ(d->ranked.front().cause_kind, "duplicated_run");
}

// GroupSignals' own contract: an asset with a cause of its own joins no damage, open incident or
// change upstream of it but its own writers' changes; whatever lies below it still joins it.
TEST(GroupSignalsOwnCause, AnAssetWithACauseOfItsOwnJoinsOnlyItsOwnWritersAndWhatLiesBelowIt) {
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
                    mart = "table://pg/mart", report = "table://pg/report";
  edge(load, raw, kestra, table);
  edge(raw, rev, table, kestra);
  edge(rev, mart, kestra, table);
  edge(mart, report, table, table);
  const TimePoint t = At("2026-12-01T07:00:00Z");
  GroupingInput in;
  in.damage = {{raw, t}, {mart, t}, {report, t}};
  in.changes = {{load, "change:load", At("2026-12-01T05:00:00Z"), "flow_revision"},
                {rev, "change:rev", At("2026-12-01T06:00:00Z"), "flow_revision"}};
  // Without a cause of its own, the mart is below the raw table: one group.
  EXPECT_EQ(GroupSignals(&ix, in).size(), 1u);
  in.own_cause[mart] = {rev};
  std::vector<SignalGroup> groups = GroupSignals(&ix, in);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].assets, (std::vector<std::string>{raw}));
  EXPECT_EQ(groups[1].assets, (std::vector<std::string>{mart, report}));
  EXPECT_EQ(groups[1].most_upstream, mart);
  ASSERT_EQ(groups[1].changes.size(), 1u);
  EXPECT_EQ(in.changes[groups[1].changes[0]].asset, rev);
  // An open incident on the raw table is not joined either.
  in.damage = {{mart, t}};
  in.open = {{"inc-raw", {raw}, At("2026-12-01T06:30:00Z")}};
  groups = GroupSignals(&ix, in);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_TRUE(groups[0].incident_id.empty());
  in.own_cause.clear();
  EXPECT_EQ(GroupSignals(&ix, in)[0].incident_id, "inc-raw");
}

INSTANTIATE_TEST_SUITE_P(Store, IndependentBreaks, ::testing::Values("sqlite", "postgresql"), test_support::BackendName);

}  // namespace independent_breaks_test
}  // namespace
}  // namespace dw::incidents
