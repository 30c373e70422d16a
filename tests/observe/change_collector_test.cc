// The change timeline collector over the simulators: the two reference incidents become dated,
// evidenced events; passes are incremental and deduplicated, also across a restart (a reopened
// store); an unreachable platform is an observation, once per outage, and does not stop the others.
#include "observe/changes/collector.h"

#include <gtest/gtest.h>

#include <fstream>

#include "base/identifiers.h"
#include "base/iso_time.h"
#include "observe/changes/change_kinds.h"
#include "observe/changes/timeline.h"
#include "tests/observe/change_test_support.h"
#include "tests/platforms/platform_test_support.h"
#include "tests/support/subprocess.h"

namespace dw::observe::changes {
namespace {

using dw::testing::LoadScript;
using dw::testing::PlatformAt;
using dw::testing::StartSim;

// The EV example's Kestra as the night stood before the owner's fix: its script also dates the
// fixed revision 9 of tariff_sync at 06:15 (the seed replay verifies it is live), which these
// tests stage themselves.
Json EvKestraBeforeTheFix() {
  Json k = LoadScript("examples/ev-kestra/sim/kestra.json");
  for (Json& flow : k["flows"]) {
    if (!flow.contains("revisions")) continue;
    Json kept = Json::array();
    for (const Json& r : flow["revisions"])
      if (r.value("at", "") < "2026-11-25T06:00:00Z") kept.push_back(r);
    flow["revisions"] = kept;
  }
  return k;
}

using test_support::At;

class ChangeCollectorTest : public test_support::ChangeStoreTest {
 protected:
  ChangeCollectorTest() : ChangeStoreTest(At("2026-11-24T15:15:00Z")) {}
};

TEST_F(ChangeCollectorTest, LoyaltyRestoreThatSkippedStateIsAnEventAtTwoMinutesPastTwo) {
  auto flink = StartSim(sim::Platform::kFlink, LoadScript("examples/loyalty-flink/sim/flink.json"));
  ASSERT_NE(flink, nullptr);
  ws_.platforms["flink"] = PlatformAt("flink", "flink", flink->url());
  OpenStore();
  auto report = Collect();
  ASSERT_EQ(report.platforms.size(), 1u);
  EXPECT_TRUE(report.platforms[0].errors.empty()) << report.platforms[0].errors[0];
  auto skipped = Events(kRestoreSkippedState);
  ASSERT_EQ(skipped.size(), 1u);  // the empty-state line is harmless and not an event
  const auto& e = skipped[0];
  EXPECT_EQ(e.asset_id, "flink://flink/points-balance");
  EXPECT_EQ(FormatRfc3339(e.happened_at), "2026-11-24T14:02:03.409Z");  // platform time, not ours
  EXPECT_EQ(FormatRfc3339(e.observed_at), "2026-11-24T15:15:00.000Z");
  EXPECT_EQ(e.evidence["operator_id"], "90bea66de1c231edf33913ecd54406c1");
  EXPECT_NE(e.evidence["log_line"].get<std::string>().find("Skipping savepoint state for operator"), std::string::npos);
  EXPECT_NE(e.evidence["restore_line"].get<std::string>().find("(allowing non restored state)"), std::string::npos);
  EXPECT_GT(e.risk, 0.9);
  EXPECT_NE(e.reason.find("savepoint-3f9a6c"), std::string::npos);

  auto restores = Events(kRestore);
  ASSERT_EQ(restores.size(), 1u);
  EXPECT_EQ(FormatRfc3339(restores[0].happened_at), "2026-11-24T14:02:03.412Z");
  EXPECT_EQ(restores[0].evidence["is_savepoint"], true);
  EXPECT_EQ(Events(kConfigRisk).size(), 2u);  // both runs had allowNonRestoredState on
  EXPECT_EQ(Events(kDeploy).size(), 2u);

  // The timeline for the job, newest first: the skipped state is on top... after the restore's id order.
  TimelineQuery q;
  q.asset_id = "flink://flink/points-balance";
  q.from = At("2026-11-24T14:00:00Z");
  q.to = At("2026-11-24T15:00:00Z");
  q.kinds = {kRestore, kRestoreSkippedState};
  auto page = ReadTimeline(*store_, q);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->total, 2);
  EXPECT_EQ(page->events[0].kind, kRestore);  // 14:02:03.412 is after 14:02:03.409
  EXPECT_EQ(page->events[1].kind, kRestoreSkippedState);
}

TEST_F(ChangeCollectorTest, PassesAreIncrementalAndDeduplicatedAcrossARestart) {
  auto flink = StartSim(sim::Platform::kFlink, LoadScript("examples/loyalty-flink/sim/flink.json"));
  auto kestra_script = EvKestraBeforeTheFix();
  kestra_script["now"] = "2026-11-25T00:30:00Z";
  auto kestra = StartSim(sim::Platform::kKestra, kestra_script);
  ws_.platforms["flink"] = PlatformAt("flink", "flink", flink->url());
  WatchTariffFlowAt(kestra->url());
  clock_.Set(At("2026-11-25T00:30:00Z"));
  OpenStore();
  auto first = Collect();
  int first_new = first.new_events();
  EXPECT_GT(first_new, 6);
  auto executions = Events(kExecution);
  ASSERT_EQ(executions.size(), 2u);  // tariff_sync and one rate_session by 00:30
  const auto& sync = executions[0];
  EXPECT_EQ(sync.asset_id, "kestra://kestra/pricing.tariff_sync");
  EXPECT_EQ(FormatRfc3339(sync.happened_at), "2026-11-25T00:05:03.874Z");
  EXPECT_EQ(sync.evidence["execution_id"], "4PqT9sW2mZbX8vLkR3nYc1");
  ASSERT_TRUE(sync.evidence.contains("log_excerpt"));  // a watched flow: its calls are evidence
  EXPECT_NE(sync.evidence["log_excerpt"][0]["message"].get<std::string>().find("/v1/tariffs/current"), std::string::npos);
  EXPECT_FALSE(executions[1].evidence.contains("log_excerpt"));  // not a watched flow

  // Same world, second pass: nothing new.
  EXPECT_EQ(Collect().new_events(), 0);

  // Restart: a new store object on the same file keeps events and cursors.
  OpenStore();
  EXPECT_EQ(Collect().new_events(), 0);

  // The night goes on: two more executions end; only they are new.
  net::HttpRequest req;
  req.method = "POST";
  req.url = kestra->url() + "/_sim/clock";
  req.body = R"({"now":"2026-11-25T02:36:00Z"})";
  ASSERT_TRUE(http_->Send(req).ok());
  clock_.Set(At("2026-11-25T02:36:00Z"));
  auto third = Collect();
  EXPECT_EQ(third.new_events(), 2);
  EXPECT_EQ(Events(kExecution).size(), 4u);
  auto cursor = store_->GetCursor("changes/kestra/executions");
  ASSERT_TRUE(cursor.ok() && cursor->has_value());
  EXPECT_EQ(std::stoll(**cursor), *ParseIsoTimeMillis("2026-11-25T02:20:00.015Z"));
}

TEST_F(ChangeCollectorTest, UnreachablePlatformIsOneObservationPerOutageAndOthersGoOn) {
  auto connect_script = LoadScript("examples/loyalty-flink/sim/connect.json");
  auto connect = StartSim(sim::Platform::kKafkaConnect, connect_script);
  ws_.platforms["connect"] = PlatformAt("connect", "kafka-connect", connect->url());
  ws_.platforms["flink"] = PlatformAt("flink", "flink", "http://127.0.0.1:1");
  OpenStore();
  auto first = Collect();
  ASSERT_EQ(first.platforms.size(), 2u);
  EXPECT_TRUE(first.platforms[0].reachable);   // connect
  EXPECT_FALSE(first.platforms[1].reachable);  // flink
  EXPECT_TRUE(first.any_errors());
  clock_.Advance(std::chrono::minutes(5));
  Collect();
  auto outages = Events(kPlatformUnreachable);
  ASSERT_EQ(outages.size(), 1u);  // still the same outage
  EXPECT_EQ(outages[0].asset_id, "flink://flink/_platform.all");
  for (const char* type : {"flink", "kestra", "kafka-connect", "schema-registry"})
    EXPECT_TRUE(IsCanonicalAssetId(PlatformAssetId(type, "p"))) << type;
  EXPECT_TRUE(IsCanonicalAssetId(AssetIdFor("flink", "flink", "insert into sink/x")));
  EXPECT_NE(outages[0].evidence["error"].get<std::string>().find("flink 'flink'"), std::string::npos);

  // The connector's task fails at 18:30: one connector_state event, unhealthy.
  net::HttpRequest req;
  req.method = "POST";
  req.url = connect->url() + "/_sim/clock";
  req.body = R"({"now":"2026-11-24T19:00:00Z"})";
  ASSERT_TRUE(http_->Send(req).ok());
  Collect();
  Collect();
  auto states = Events(kConnectorState);
  ASSERT_EQ(states.size(), 1u);
  EXPECT_EQ(states[0].asset_id, "connect://connect/bq-sink-balances");
  EXPECT_EQ(states[0].evidence["verdict"], "unhealthy");
  EXPECT_EQ(states[0].evidence["time_source"], "observed");
}

// An answer over the size cap cannot be read: like a timeout, the platform's changes are unknown,
// so it is an observation gap (platform_unreachable), not a silent error.
TEST_F(ChangeCollectorTest, AnAnswerTooLargeToReadIsAnObservationGap) {
  Json script = LoadScript("examples/loyalty-flink/sim/flink.json");
  script["faults"] = Json::array({{{"path", "*"}, {"status", 200}, {"body", "\"" + std::string(4096, 'x') + "\""},
                                   {"repeat_body", 5000}}});  // 20 MB, over the 16 MiB a platform answer may be
  auto flink = StartSim(sim::Platform::kFlink, script);
  ASSERT_NE(flink, nullptr);
  ws_.platforms["flink"] = PlatformAt("flink", "flink", flink->url());
  OpenStore();
  auto report = Collect();
  ASSERT_EQ(report.platforms.size(), 1u);
  EXPECT_FALSE(report.platforms[0].reachable);
  auto gaps = Events(kPlatformUnreachable);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_NE(gaps[0].reason.find("answered more than can be read"), std::string::npos) << gaps[0].reason;
}

TEST_F(ChangeCollectorTest, BadBodiesAreErrorsNamingThePlatformAndTheRestIsCollected) {
  Json bad = LoadScript("examples/loyalty-flink/sim/flink.json");
  bad["faults"] = Json::array({{{"path", "/jobmanager/logs"}, {"status", 200}, {"body", "<html>login</html>"},
                                {"content_type", "text/html"}}});
  auto flink = StartSim(sim::Platform::kFlink, bad);
  ws_.platforms["flink"] = PlatformAt("flink", "flink", flink->url());
  OpenStore();
  auto report = Collect();
  ASSERT_EQ(report.platforms[0].errors.size(), 1u);
  EXPECT_NE(report.platforms[0].errors[0].find("HTML page"), std::string::npos);
  EXPECT_EQ(Events(kRestore).size(), 1u);  // the REST part was still collected
  EXPECT_TRUE(Events(kRestoreSkippedState).empty());
}

TEST_F(ChangeCollectorTest, TimelineRejectsUnknownKindsAndPages) {
  OpenStore();
  for (int i = 0; i < 5; ++i) {
    store::ChangeEvent e;
    e.dedup_key = "k" + std::to_string(i);
    e.asset_id = "flink://flink/j";
    e.kind = kDeploy;
    e.happened_at = At("2026-11-24T10:00:00Z") + std::chrono::minutes(i);
    e.observed_at = e.happened_at;
    e.evidence = Json::object();
    ASSERT_TRUE(store_->AddChangeEvent(e).ok());
  }
  TimelineQuery q;
  q.from = At("2026-11-24T00:00:00Z");
  q.to = At("2026-11-25T00:00:00Z");
  q.limit = 2;
  auto p1 = ReadTimeline(*store_, q);
  ASSERT_TRUE(p1.ok());
  EXPECT_EQ(p1->total, 5);
  EXPECT_EQ(FormatRfc3339(p1->events[0].happened_at), "2026-11-24T10:04:00.000Z");
  ASSERT_TRUE(p1->next_offset.has_value());
  q.offset = *p1->next_offset;
  q.limit = 10;
  auto p2 = ReadTimeline(*store_, q);
  ASSERT_TRUE(p2.ok());
  EXPECT_EQ(p2->events.size(), 3u);
  EXPECT_FALSE(p2->next_offset.has_value());
  q.kinds = {"explosion"};
  auto bad = ReadTimeline(*store_, q);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("unknown change kind 'explosion'"), std::string::npos);
}

}  // namespace
}  // namespace dw::observe::changes

namespace dw::observe::changes {
namespace {

TEST_F(ChangeCollectorTest, FlowRevisionTriggerToggleAndSchemaVersionAreSeenOnceEach) {
  Json k = EvKestraBeforeTheFix();
  auto kestra = StartSim(sim::Platform::kKestra, k);
  Json r = LoadScript("examples/loyalty-flink/sim/registry.json");
  r["now"] = "2026-11-24T13:00:00Z";  // before version 2
  auto registry = StartSim(sim::Platform::kSchemaRegistry, r);
  WatchTariffFlowAt(kestra->url());
  ws_.platforms["registry"] = PlatformAt("registry", "schema-registry", registry->url());
  clock_.Set(At("2026-11-25T02:36:00Z"));
  OpenStore();
  Collect();  // baseline: revision 8, triggers enabled, schema version 1
  EXPECT_TRUE(Events(kFlowRevision).empty());
  EXPECT_TRUE(Events(kTriggerToggled).empty());
  EXPECT_TRUE(Events(kSchemaVersion).empty());

  // 06:23: the owner disabled the statements trigger and saved revision 9 of tariff_sync.
  k["flows"][0]["revision"] = 9;
  k["flows"][4]["triggers"][0]["disabled"] = true;
  k["flows"][4]["triggers"][0]["at"] = "2026-11-25T06:20:00Z";
  kestra.reset();
  kestra = StartSim(sim::Platform::kKestra, k);
  ws_.platforms["kestra"].url = kestra->url();
  net::HttpRequest tick;
  tick.method = "POST";
  tick.url = registry->url() + "/_sim/clock";
  tick.body = R"({"now":"2026-11-24T15:00:00Z"})";
  ASSERT_TRUE(http_->Send(tick).ok());
  clock_.Set(At("2026-11-25T06:23:00Z"));
  Collect();
  Collect();
  auto revisions = Events(kFlowRevision);
  ASSERT_EQ(revisions.size(), 1u);
  EXPECT_EQ(revisions[0].evidence["to_revision"], 9);
  auto toggles = Events(kTriggerToggled);
  ASSERT_EQ(toggles.size(), 1u);
  EXPECT_EQ(toggles[0].asset_id, "kestra://kestra/billing.fleet_statements");
  EXPECT_EQ(FormatRfc3339(toggles[0].happened_at), "2026-11-25T06:20:00.000Z");  // Kestra's time
  auto versions = Events(kSchemaVersion);
  ASSERT_EQ(versions.size(), 1u);
  EXPECT_EQ(versions[0].asset_id, "subject://registry/member-balances-value");
  EXPECT_EQ(versions[0].evidence["version"], 2);
  // The registry's verdict on v2 against v1, and what v2 changed, travel as evidence.
  EXPECT_EQ(versions[0].evidence["compatibility"]["against_version"], 1);
  EXPECT_EQ(versions[0].evidence["compatibility"]["is_compatible"], true);
  EXPECT_EQ(versions[0].evidence["added_fields"], Json::array({"last_store_id"}));
  EXPECT_EQ(versions[0].evidence["removed_fields"], Json::array());
  EXPECT_NE(versions[0].reason.find("v2 added last_store_id"), std::string::npos) << versions[0].reason;
  // The registry keeps no time of a version: dated when seen, and said to be an upper bound.
  EXPECT_EQ(versions[0].evidence["time_source"], "observed");
  EXPECT_EQ(versions[0].evidence["time_bound"], "at_or_before");
}

// A new revision is dated when Kestra says it was saved (the flow's `updated`), not when a pass
// saw it: a pass two hours late still places the save before what it broke. A save time ahead of
// the pass (the server's clock ahead of ours) is not believed, and without one the pass's time
// stands, each saying which it is.
TEST_F(ChangeCollectorTest, ARevisionIsDatedWhenKestraSaysItWasSavedAndOtherwiseWhenSeen) {
  Json k = EvKestraBeforeTheFix();
  auto kp = PlatformAt("kestra", "kestra", "");
  kp.username = "admin@kestra.io";
  kp.password = "Admin1234!";
  config::AssetNote note;
  note.id = "kestra://kestra/pricing.tariff_sync";
  ws_.assets.push_back(note);
  OpenStore();
  std::unique_ptr<sim::RunningSim> kestra;
  auto restart = [&](const char* sim_now) {
    k["now"] = sim_now;
    kestra.reset();
    kestra = StartSim(sim::Platform::kKestra, k);
    kp.url = kestra->url();
    ws_.platforms["kestra"] = kp;
  };
  restart("2026-11-25T02:36:00Z");
  clock_.Set(At("2026-11-25T02:36:00Z"));
  Collect();  // baseline: revision 8
  ASSERT_TRUE(Events(kFlowRevision).empty());

  k["flows"][0]["revisions"].push_back({{"revision", 9}, {"at", "2026-11-25T04:10:00Z"}});
  restart("2026-11-25T06:23:00Z");
  clock_.Set(At("2026-11-25T06:23:00Z"));
  Collect();
  auto revisions = Events(kFlowRevision);
  ASSERT_EQ(revisions.size(), 1u);
  EXPECT_EQ(revisions[0].evidence["to_revision"], 9);
  EXPECT_EQ(FormatRfc3339(revisions[0].happened_at), "2026-11-25T04:10:00.000Z");
  EXPECT_EQ(revisions[0].evidence["time_source"], "platform");

  // Kestra's clock 30 minutes ahead: revision 10 "saved" after this pass.
  k["flows"][0]["revisions"].push_back({{"revision", 10}, {"at", "2026-11-25T06:50:00Z"}});
  restart("2026-11-25T07:00:00Z");
  clock_.Set(At("2026-11-25T06:30:00Z"));
  Collect();
  revisions = Events(kFlowRevision);
  ASSERT_EQ(revisions.size(), 2u);
  const auto& ten = revisions[0].evidence["to_revision"] == 10 ? revisions[0] : revisions[1];
  EXPECT_EQ(ten.evidence["to_revision"], 10);
  EXPECT_EQ(FormatRfc3339(ten.happened_at), "2026-11-25T06:30:00.000Z");
  EXPECT_EQ(ten.evidence["time_source"], "observed");
  EXPECT_EQ(ten.evidence["time_bound"], "at_or_before") << "a time that is when it was seen is an upper bound";

  // A revision with no dated entry: the sim answers without `updated`, as a server may.
  k["flows"][0]["revision"] = 11;
  restart("2026-11-25T08:00:00Z");
  clock_.Set(At("2026-11-25T08:00:00Z"));
  Collect();
  revisions = Events(kFlowRevision);
  ASSERT_EQ(revisions.size(), 3u);
  bool saw_eleven = false;
  for (const auto& e : revisions) {
    if (e.evidence["to_revision"] != 11) continue;
    saw_eleven = true;
    EXPECT_EQ(FormatRfc3339(e.happened_at), "2026-11-25T08:00:00.000Z");
    EXPECT_EQ(e.evidence["time_source"], "observed");
    EXPECT_EQ(e.evidence["time_bound"], "at_or_before");
  }
  EXPECT_TRUE(saw_eleven);
}

// The first pass is a baseline, but not a blindfold: a revision saved the evening before
// onboarding (within the lookback) is reported with Kestra's time and the revision it replaced;
// one saved weeks before is the baseline, and the next pass reports nothing again.
TEST_F(ChangeCollectorTest, TheFirstPassReportsARevisionSavedWithinTheLookback) {
  Json k = EvKestraBeforeTheFix();
  k["flows"][0]["revision"] = 9;
  k["flows"][0]["revisions"].push_back({{"revision", 9}, {"at", "2026-11-24T22:05:00Z"}});
  auto kestra = StartSim(sim::Platform::kKestra, k);
  auto kp = PlatformAt("kestra", "kestra", kestra->url());
  kp.username = "admin@kestra.io";
  kp.password = "Admin1234!";
  ws_.platforms["kestra"] = kp;
  for (const char* id : {"kestra://kestra/pricing.tariff_sync", "kestra://kestra/billing.fleet_statements"}) {
    config::AssetNote note;
    note.id = id;
    ws_.assets.push_back(note);
  }
  clock_.Set(At("2026-11-25T02:36:00Z"));
  OpenStore();
  Collect();
  auto revisions = Events(kFlowRevision);
  ASSERT_EQ(revisions.size(), 1u);
  EXPECT_EQ(revisions[0].asset_id, "kestra://kestra/pricing.tariff_sync");
  EXPECT_EQ(revisions[0].evidence["from_revision"], 8);
  EXPECT_EQ(revisions[0].evidence["to_revision"], 9);
  EXPECT_EQ(FormatRfc3339(revisions[0].happened_at), "2026-11-24T22:05:00.000Z");
  EXPECT_EQ(revisions[0].evidence["time_source"], "platform");
  EXPECT_FALSE(revisions[0].evidence.contains("time_bound")) << "Kestra's own time is no bound";
  clock_.Set(At("2026-11-25T02:41:00Z"));
  Collect();
  EXPECT_EQ(Events(kFlowRevision).size(), 1u);
}

// A flow declared in the workspace's folder of flow YAML (lineage.kestra_flows) is watched without
// an assets: entry; a file there that is not a flow is skipped, and a second Kestra platform (not
// the one the folder's flows run on) does not watch the folder's flows.
TEST_F(ChangeCollectorTest, FlowsDeclaredInTheFlowFolderAreWatchedWithoutAnAssetsEntry) {
  Json k = EvKestraBeforeTheFix();
  auto kestra = StartSim(sim::Platform::kKestra, k);
  auto other = StartSim(sim::Platform::kKestra, k);
  auto kp = PlatformAt("kestra", "kestra", kestra->url());
  kp.username = "admin@kestra.io";
  kp.password = "Admin1234!";
  ws_.platforms["kestra"] = kp;
  auto op = PlatformAt("other", "kestra", other->url());
  op.username = kp.username;
  op.password = kp.password;
  ws_.platforms["other"] = op;
  const auto flows = dir_.path() / "flows";
  std::filesystem::create_directories(flows / "pricing");
  std::ofstream(flows / "pricing" / "tariff_sync.yml") << "id: tariff_sync\nnamespace: pricing\ntasks: []\n";
  std::ofstream(flows / "notes.yaml") << "just: [notes\n";  // not YAML: skipped
  std::ofstream(flows / "readme.yml") << "title: not a flow\n";
  ws_.lineage.kestra_flows = flows.string();
  clock_.Set(At("2026-11-25T02:36:00Z"));
  OpenStore();
  CollectReport first = Collect();  // baseline: revision 8
  for (const auto& p : first.platforms) EXPECT_TRUE(p.errors.empty()) << p.platform << ": " << p.errors[0];
  EXPECT_TRUE(Events(kFlowRevision).empty());

  k["flows"][0]["revision"] = 9;
  kestra.reset();
  other.reset();
  kestra = StartSim(sim::Platform::kKestra, k);
  other = StartSim(sim::Platform::kKestra, k);
  ws_.platforms["kestra"].url = kestra->url();
  ws_.platforms["other"].url = other->url();
  clock_.Set(At("2026-11-25T06:23:00Z"));
  Collect();
  auto revisions = Events(kFlowRevision);
  ASSERT_EQ(revisions.size(), 1u);
  EXPECT_EQ(revisions[0].asset_id, "kestra://kestra/pricing.tariff_sync");
  EXPECT_EQ(revisions[0].evidence["to_revision"], 9);

  // A folder that is gone is an error of the pass that names it; the pass still runs.
  std::filesystem::remove_all(flows);
  CollectReport gone = Collect();
  bool named = false;
  for (const auto& p : gone.platforms)
    for (const auto& e : p.errors) named |= p.platform == "kestra" && e.find(flows.string()) != std::string::npos;
  EXPECT_TRUE(named);
}

}  // namespace
}  // namespace dw::observe::changes
