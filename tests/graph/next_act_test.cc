// What acts next, per scheduler the product reads: a disabled schedule never acts next (the answer
// says disabled), and a schedule in its own time zone acts at that zone's wall-clock time, across
// daylight-saving changes. Kestra's flows are read from YAML as written; every source of schedules
// (the team's notes, Kestra) goes through the same answer.
#include "graph/next_act.h"

#include <gtest/gtest.h>

#include "graph/blast_radius.h"
#include "graph/kestra_flows.h"
#include "tests/graph/graph_test_support.h"

namespace dw::graph {
namespace {

using test_support::At;
using test_support::GraphFixture;
using test_support::TestData;

class NextActTest : public GraphFixture {
 protected:
  // The consumers of the blast radius of `root` at `now`, in the workspace zone `zone`.
  Json Consumers(const std::string& root, const std::string& now, const std::string& zone = "UTC") {
    return graph_->Read([&](const GraphIndex& ix) {
      BlastRadiusOptions o;
      o.timezone = zone;
      auto r = BlastRadius(ix, {root}, o, At(now.c_str()));
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      return r.ok() ? r->body["consumers"] : Json::array();
    });
  }
  static const Json* Find(const Json& consumers, const std::string& id) {
    for (const Json& c : consumers)
      if (c["id"] == id) return &c;
    return nullptr;
  }
  void IngestKestraFolder() {
    auto r = graph_->Read([&](const GraphIndex& ix) {
      return KestraFlowsBatch(TestData("kestra/mixed"), {"kestra", "main", {}}, ix);
    });
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    Apply(r->batch);
  }
};

TEST_F(NextActTest, KestraAZonedScheduleActsAtItsZonesWallClockInWinterSummerAndAcrossTheChange) {
  IngestKestraFolder();
  const std::string flow = "kestra://kestra/shop.reports.morning_report";
  struct Case {
    const char* now;
    const char* next;
  };
  for (const Case& c : std::vector<Case>{
           {"2026-01-15T05:00:00Z", "2026-01-15T06:00:00.000Z"},  // CET, UTC+1
           {"2026-07-15T04:00:00Z", "2026-07-15T05:00:00.000Z"},  // CEST, UTC+2
           {"2026-03-28T12:00:00Z", "2026-03-29T05:00:00.000Z"},  // the night clocks go forward
           {"2026-10-24T12:00:00Z", "2026-10-25T06:00:00.000Z"},  // the night they go back
       }) {
    Json consumers = Consumers("table://main/marts.customers", c.now, "America/New_York");
    const Json* report = Find(consumers, flow);
    ASSERT_NE(report, nullptr) << consumers.dump();
    EXPECT_EQ((*report)["next_run"], c.next) << c.now;
    EXPECT_EQ((*report)["timezone"], "Europe/Paris");
  }
}

TEST_F(NextActTest, KestraADisabledTriggerOrFlowNeverActsNext) {
  IngestKestraFolder();
  Json consumers = Consumers("table://main/marts.customers", "2026-01-15T02:00:00Z");
  const Json* paused = Find(consumers, "kestra://kestra/shop.reports.paused_sync");
  ASSERT_NE(paused, nullptr) << consumers.dump();
  EXPECT_FALSE(paused->contains("next_run"));
  EXPECT_EQ((*paused)["disabled"], true);
  EXPECT_EQ((*paused)["acts"], "disabled: no next run");
  // The one that does act comes first, though the disabled one's cron (02:30) is sooner.
  ASSERT_GE(consumers.size(), 2u);
  EXPECT_EQ(consumers[0]["id"], "kestra://kestra/shop.reports.morning_report");
  EXPECT_EQ(consumers.back()["id"], "kestra://kestra/shop.reports.paused_sync");
  // A disabled flow (its trigger enabled) does not act either.
  SourceBatch up;
  up.origin = Origin::kNotes;
  up.edges.push_back({"table://main/raw.source", "kestra://kestra/shop.reports.retired_load", "feeds", nullptr});
  Apply(up);
  Json downstream = Consumers("table://main/raw.source", "2026-01-15T02:00:00Z");
  const Json* retired = Find(downstream, "kestra://kestra/shop.reports.retired_load");
  ASSERT_NE(retired, nullptr);
  EXPECT_EQ((*retired)["disabled"], true);
  EXPECT_FALSE(retired->contains("next_run"));
}

// Every origin's schedule facts answer the same way: the notes (the workspace's assets) and Kestra.
TEST_F(NextActTest, EverySchedulerDisabledNeverActsAndZonedActsAtTheRightInstant) {
  for (Origin origin : {Origin::kNotes, Origin::kKestra}) {
    const std::string tag = OriginName(origin);
    const std::string ns = "kestra://kestra/" + tag, root = "table://main/raw." + tag;
    SourceBatch b;
    b.origin = origin;
    AssetFacts zoned{.id = ns + ".zoned", .schedule = "0 7 * * *", .schedule_timezone = "America/New_York"};
    AssetFacts off{.id = ns + ".off", .schedule = "*/5 * * * *", .schedule_disabled = true,
                   .disabled_since = "2026-01-10T09:00:00Z"};
    AssetFacts plain{.id = ns + ".plain", .schedule = "0 7 * * *"};
    b.assets = {zoned, off, plain};
    for (const AssetFacts& a : b.assets) b.edges.push_back({root, a.id, "feeds", nullptr});
    Apply(b);
    Json consumers = Consumers(root, "2026-01-15T10:00:00Z", "Europe/Berlin");
    const Json* z = Find(consumers, ns + ".zoned");
    const Json* o = Find(consumers, ns + ".off");
    const Json* p = Find(consumers, ns + ".plain");
    ASSERT_TRUE(z && o && p) << tag << consumers.dump();
    EXPECT_EQ((*z)["next_run"], "2026-01-15T12:00:00.000Z") << tag;  // 07:00 in New York (EST, UTC-5)
    EXPECT_EQ((*p)["next_run"], "2026-01-16T06:00:00.000Z") << tag;  // 07:00 in the workspace's Berlin
    EXPECT_EQ((*p)["timezone"], "Europe/Berlin") << tag;
    EXPECT_FALSE(o->contains("next_run")) << tag;
    EXPECT_EQ((*o)["acts"], "disabled since 2026-01-10T09:00:00Z: no next run") << tag;
    EXPECT_EQ(consumers.back()["id"], ns + ".off") << tag;
  }
}

TEST(NextAct, NoScheduleNoActAndABadZoneIsAProblemNotATime) {
  AssetDetails none;
  EXPECT_FALSE(NextActOf(none, At("2026-01-15T10:00:00Z"), "UTC").has_value());
  AssetDetails bad;
  bad.schedule = "0 7 * * *";
  bad.schedule_timezone = "Mars/Olympus_Mons";
  auto act = NextActOf(bad, At("2026-01-15T10:00:00Z"), "UTC");
  ASSERT_TRUE(act.has_value());
  EXPECT_EQ(act->state, NextAct::State::kUnknown);
  EXPECT_FALSE(act->problem.empty());
  EXPECT_EQ(NextActOrder(*act), INT64_MAX);
}

}  // namespace
}  // namespace dw::graph
