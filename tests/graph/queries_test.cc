// Lineage and blast radius over small graphs: depth limits, cycles, stale edges, schedules across
// midnight and time zones, customer-facing flags, owners and impact counts.
#include <gtest/gtest.h>

#include "graph/blast_radius.h"
#include "graph/lineage_query.h"
#include "tests/graph/graph_test_support.h"

namespace dw::graph {
namespace {

using test_support::At;
using test_support::Batch;
using test_support::GraphFixture;

class QueriesTest : public GraphFixture {
 protected:
  Json Lineage(const std::string& asset, LineageOptions o) {
    return graph_->Read([&](const GraphIndex& ix) {
      auto r = TraceLineage(ix, asset, o);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      return r.ok() ? *r : Json();
    });
  }
  BlastRadiusReport Blast(std::vector<std::string> assets, const std::string& tz, TimePoint now,
                          bool include_stale = false) {
    BlastRadiusOptions o;
    o.timezone = tz;
    o.walk.include_stale = include_stale;
    return graph_->Read([&](const GraphIndex& ix) {
      auto r = BlastRadius(ix, assets, o, now);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      return r.ok() ? *r : BlastRadiusReport{};
    });
  }
  void Describe(AssetFacts f) {
    SourceBatch b;
    b.origin = Origin::kNotes;
    b.assets.push_back(std::move(f));
    Apply(b);
  }
};

std::vector<std::string> Ids(const Json& nodes) {
  std::vector<std::string> out;
  for (const Json& n : nodes) out.push_back(n["id"]);
  return out;
}

TEST_F(QueriesTest, LineageStopsAtTheDepthLimit) {
  std::vector<EdgeFacts> chain;
  for (int i = 0; i < 10; ++i)
    chain.push_back({"dbt://p/m" + std::to_string(i), "dbt://p/m" + std::to_string(i + 1), "feeds", nullptr});
  Apply(Batch(Origin::kDbt, chain));
  LineageOptions o;
  o.direction = "downstream";
  o.depth = 3;
  Json r = Lineage("dbt://p/m0", o);
  EXPECT_EQ(Ids(r["nodes"]), (std::vector<std::string>{"dbt://p/m0", "dbt://p/m1", "dbt://p/m2", "dbt://p/m3"}));
  EXPECT_EQ(r["edges"].size(), 3u);
  o.direction = "upstream";
  o.depth = 5;
  EXPECT_EQ(Lineage("dbt://p/m9", o)["nodes"].back()["id"], "dbt://p/m4");
  graph_->Read([](const GraphIndex& ix) {
    LineageOptions bad;
    bad.depth = 51;
    EXPECT_EQ(TraceLineage(ix, "dbt://p/m0", bad).status().code(), StatusCode::kInvalidArgument);
    bad.depth = 0;
    EXPECT_FALSE(TraceLineage(ix, "dbt://p/m0", bad).ok());
    bad.depth = 5;
    bad.direction = "sideways";
    EXPECT_FALSE(TraceLineage(ix, "dbt://p/m0", bad).ok());
    return 0;
  });
}

TEST_F(QueriesTest, CyclesAreWalkedOnceAndReported) {
  Apply(Batch(Origin::kKestra, {{"kestra://k/a.x", "kestra://k/a.y", "triggers", nullptr},
                                {"kestra://k/a.y", "kestra://k/a.z", "triggers", nullptr},
                                {"kestra://k/a.z", "kestra://k/a.x", "triggers", nullptr},
                                {"kestra://k/a.z", "table://main/out", "feeds", nullptr}}));
  LineageOptions o;
  o.depth = 50;
  o.direction = "downstream";
  Json r = Lineage("kestra://k/a.x", o);
  ASSERT_EQ(r["cycles"].size(), 1u);
  EXPECT_EQ(r["cycles"][0], Json({"kestra://k/a.x", "kestra://k/a.y", "kestra://k/a.z"}));
  EXPECT_EQ(r["nodes"].size(), 4u);  // x (the root), y, z, out: each once
  int in_cycle = 0;
  for (const Json& e : r["edges"]) in_cycle += e.value("in_cycle", false) ? 1 : 0;
  EXPECT_EQ(in_cycle, 3);
  auto blast = Blast({"kestra://k/a.x"}, "UTC", clock_.Now());
  EXPECT_EQ(blast.body["total"], 3);  // y, z, out: the root is not its own consequence
}

TEST_F(QueriesTest, StaleEdgesAreSkippedByTheBlastRadiusUnlessAsked) {
  Apply(Batch(Origin::kDbt, {{"table://main/a", "dbt://p/b", "feeds", nullptr},
                             {"table://main/a", "dbt://p/gone", "feeds", nullptr}}));
  Apply(Batch(Origin::kDbt, {{"table://main/a", "dbt://p/b", "feeds", nullptr}}));
  auto live = Blast({"table://main/a"}, "UTC", clock_.Now());
  EXPECT_EQ(live.body["total"], 1);
  EXPECT_EQ(live.body["stale_edges_skipped"], 1);
  auto all = Blast({"table://main/a"}, "UTC", clock_.Now(), /*include_stale=*/true);
  EXPECT_EQ(all.body["total"], 2);
  // Lineage lists the stale edge, marked.
  Json r = Lineage("table://main/a", {});
  bool stale_seen = false;
  for (const Json& e : r["edges"])
    if (e["dst"] == "dbt://p/gone") stale_seen = e["stale"].get<bool>();
  EXPECT_TRUE(stale_seen);
}

TEST_F(QueriesTest, ConsumersAreOrderedByNextRunAcrossMidnight) {
  Apply(Batch(Origin::kNotes, {{"table://main/t", "sync://h/late", "feeds", nullptr},
                               {"table://main/t", "sync://h/after-midnight", "feeds", nullptr},
                               {"table://main/t", "dashboard://s/board", "feeds", nullptr}}));
  Describe({.id = "sync://h/late", .owner = "ana@example.com", .schedule = "0 22 * * *", .customer_facing = true});
  Describe({.id = "sync://h/after-midnight", .owner = "bo@example.com", .schedule = "15 0 * * *"});
  Describe({.id = "dashboard://s/board"});
  // 23:30 UTC: the 00:15 run is 45 minutes away (tomorrow); the 22:00 one is 22h30m away.
  auto r = Blast({"table://main/t"}, "UTC", At("2026-11-24T23:30:00Z"));
  const Json& c = r.body["consumers"];
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0]["id"], "sync://h/after-midnight");
  EXPECT_EQ(c[0]["next_run"], "2026-11-25T00:15:00.000Z");
  EXPECT_EQ(c[0]["time_left"], "45m 0s");
  EXPECT_EQ(c[0]["time_left_seconds"], 45 * 60);
  EXPECT_EQ(c[1]["id"], "sync://h/late");
  EXPECT_EQ(c[1]["next_run"], "2026-11-25T22:00:00.000Z");
  EXPECT_TRUE(c[1]["customer_facing"].get<bool>());
  EXPECT_EQ(r.body["customer_facing"], Json({"sync://h/late"}));
  EXPECT_EQ(r.body["by_kind"]["sync"]["count"], 2);
  EXPECT_EQ(r.body["by_kind"]["sync"]["assets"].size(), 2u);
  EXPECT_EQ(r.body["by_kind"]["dashboard"]["count"], 1);
  EXPECT_EQ(r.body["owners"].size(), 2u);
}

TEST_F(QueriesTest, SchedulesAreReadInTheWorkspaceTimeZone) {
  Apply(Batch(Origin::kNotes, {{"table://main/t", "sync://h/s", "feeds", nullptr}}));
  Describe({.id = "sync://h/s", .schedule = "0 22 * * *"});
  // 20:30 UTC is 21:30 in Berlin (UTC+1 in November): 22:00 Berlin is 21:00 UTC, 30 minutes away.
  auto berlin = Blast({"table://main/t"}, "Europe/Berlin", At("2026-11-24T20:30:00Z"));
  EXPECT_EQ(berlin.body["consumers"][0]["next_run"], "2026-11-24T21:00:00.000Z");
  EXPECT_EQ(berlin.body["consumers"][0]["time_left"], "30m 0s");
  EXPECT_EQ(berlin.body["consumers"][0]["timezone"], "Europe/Berlin");
  // 02:30 UTC is 21:30 the day before in New York (UTC-5): 22:00 there is 03:00 UTC.
  auto ny = Blast({"table://main/t"}, "America/New_York", At("2026-11-25T02:30:00Z"));
  EXPECT_EQ(ny.body["consumers"][0]["next_run"], "2026-11-25T03:00:00.000Z");
}

TEST_F(QueriesTest, ABadScheduleIsReportedNotFatal) {
  Apply(Batch(Origin::kNotes, {{"table://main/t", "sync://h/s", "feeds", nullptr}}));
  Describe({.id = "sync://h/s", .schedule = "0 0 30 2 *"});
  auto r = Blast({"table://main/t"}, "UTC", clock_.Now());
  ASSERT_EQ(r.body["consumers"].size(), 1u);
  EXPECT_TRUE(r.body["consumers"][0].contains("schedule_error"));
}

TEST_F(QueriesTest, ImpactCountsRunForSinceWithTheAssetsSql) {
  Apply(Batch(Origin::kNotes, {{"table://main/t", "sync://h/s", "feeds", nullptr}}));
  Describe({.id = "sync://h/s", .impact_sql = "SELECT count(*) FROM t WHERE updated_at >= :since"});
  auto r = Blast({"table://main/t"}, "UTC", clock_.Now());
  ASSERT_EQ(r.impact_queries.size(), 1u);
  std::string seen_sql;
  TimePoint seen_since;
  FillImpactCounts(&r, At("2026-11-24T14:02:00Z"), [&](const std::string& asset, const std::string& sql, TimePoint s) {
    EXPECT_EQ(asset, "sync://h/s");
    seen_sql = sql;
    seen_since = s;
    return Result<int64_t>(int64_t{61000});
  });
  EXPECT_EQ(seen_sql, "SELECT count(*) FROM t WHERE updated_at >= :since");
  EXPECT_EQ(seen_since, At("2026-11-24T14:02:00Z"));
  EXPECT_EQ(r.body["impact"][0]["count"], 61000);
  EXPECT_EQ(r.body["impact"][0]["since"], "2026-11-24T14:02:00.000Z");
  // Without since nothing runs; a failing count is reported, not thrown.
  FillImpactCounts(&r, std::nullopt, [](auto&&...) -> Result<int64_t> { ADD_FAILURE(); return int64_t{0}; });
  EXPECT_TRUE(r.body["impact"][0].contains("note"));
  FillImpactCounts(&r, clock_.Now(), [](auto&&...) -> Result<int64_t> { return Unavailable("warehouse down"); });
  EXPECT_EQ(r.body["impact"][0]["error"], "warehouse down");
}

TEST_F(QueriesTest, ProvenanceSaysWhichSourcesTheWalkUsed) {
  Apply(Batch(Origin::kNotes, {{"table://main/t", "dbt://p/m", "feeds", nullptr}}));
  Apply(Batch(Origin::kOpenLineage, {{"dbt://p/m", "dashboard://s/d", "feeds", nullptr}}, ""));
  auto r = Blast({"table://main/t"}, "UTC", clock_.Now());
  EXPECT_EQ(r.body["provenance"]["notes"]["kind"], "declared");
  EXPECT_EQ(r.body["provenance"]["openlineage"]["kind"], "observed");
  EXPECT_EQ(r.body["provenance"]["openlineage"]["edges"], 1);
  EXPECT_EQ(r.body["placeholders"].size(), 2u);
}

TEST_F(QueriesTest, LargeGroupsAreCountedInFullAndListedUpToTheLimit) {
  std::vector<EdgeFacts> fan;
  for (int i = 0; i < 150; ++i) fan.push_back({"table://main/t", "dbt://p/m" + std::to_string(i), "feeds", nullptr});
  Apply(Batch(Origin::kDbt, fan));
  auto r = Blast({"table://main/t"}, "UTC", clock_.Now());
  EXPECT_EQ(r.body["total"], 150);
  EXPECT_EQ(r.body["by_kind"]["dbt"]["count"], 150);
  EXPECT_EQ(r.body["by_kind"]["dbt"]["assets"].size(), 100u);
  EXPECT_FALSE(r.body["by_kind"]["dbt"]["listed_all"].get<bool>());
}

TEST_F(QueriesTest, TheWalkerStopsAtItsLimitAndSaysSo) {
  std::vector<EdgeFacts> fan;
  for (int i = 0; i < 20; ++i) fan.push_back({"table://main/t", "dbt://p/m" + std::to_string(i), "feeds", nullptr});
  Apply(Batch(Origin::kDbt, fan));
  graph_->Read([](const GraphIndex& ix) {
    DownstreamWalker w(ix);
    WalkResult r;
    WalkOptions o;
    o.limit = 5;
    w.Walk({ix.Find("table://main/t")}, o, &r);
    EXPECT_EQ(r.reached.size(), 5u);
    EXPECT_TRUE(r.truncated);
    o.limit = 100;
    w.Walk({ix.Find("table://main/t")}, o, &r);  // the same walker again: marks are reset
    EXPECT_EQ(r.reached.size(), 20u);
    EXPECT_FALSE(r.truncated);
    return 0;
  });
}

}  // namespace
}  // namespace dw::graph
