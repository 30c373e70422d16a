// What the collectors learnt so that stories told in time can be told at all: a failover restore
// after the first pass is collected (last-modification moves), a Kestra replay is its own risky
// kind of change, a dbt model whose checksum moved is a model_change, and a Connect task's trace
// keeps its last "Caused by:"; every time comes from the one Clock.
#include <gtest/gtest.h>

#include "base/iso_time.h"
#include "net/http_client.h"
#include "observe/changes/change_kinds.h"
#include "observe/changes/collector.h"
#include "store/state_store.h"
#include "tests/observe/change_test_support.h"
#include "tests/platforms/platform_test_support.h"
#include "tests/support/subprocess.h"

namespace dw::observe::changes {
namespace {

using dw::testing::PlatformAt;
using dw::testing::StartSim;

using test_support::At;

class ReplayChangesTest : public test_support::ChangeStoreTest {
 protected:
  using RunningSimPtr = std::unique_ptr<sim::RunningSim>;
  ReplayChangesTest() : ChangeStoreTest(At("2026-11-24T14:00:00Z")) {}
  void SetUp() override { OpenStore(); }
  void MoveTo(const RunningSimPtr& sim, const char* iso) {
    clock_.Set(At(iso));
    net::HttpRequest req;
    req.method = "POST";
    req.url = sim->url() + "/_sim/clock";
    req.body = Json{{"now", iso}}.dump();
    auto r = http_->Send(req);
    ASSERT_TRUE(r.ok() && r->status == 200);
  }
};

TEST_F(ReplayChangesTest, AFailoverRestoreAfterTheFirstPassIsCollected) {
  auto flink = StartSim(sim::Platform::kFlink, Json::parse(R"({"jobs": [{"jid": "3f9a6c1e2b7d4e0a9c5b8d7e6f1a2b3c",
    "name": "points-balance", "start_time": "2026-11-10T09:30:00Z",
    "states": [{"at": "2026-11-10T09:30:00Z", "state": "RUNNING"}, {"at": "2026-11-24T14:30:00Z", "state": "RESTARTING"},
               {"at": "2026-11-24T14:30:40Z", "state": "RUNNING"}],
    "restores": [{"id": 20131, "at": "2026-11-24T14:30:40Z", "is_savepoint": false, "external_path": "s3://cp/chk-20131"}]}]})"));
  ASSERT_NE(flink, nullptr);
  ws_.platforms["flink"] = PlatformAt("flink", "flink", flink->url());
  MoveTo(flink, "2026-11-24T14:00:00Z");
  Collect();
  EXPECT_TRUE(Events(kRestore).empty());
  MoveTo(flink, "2026-11-24T14:35:00Z");
  Collect();
  auto restores = Events(kRestore);
  ASSERT_EQ(restores.size(), 1u);
  EXPECT_EQ(restores[0].evidence["is_savepoint"], false);
  EXPECT_EQ(FormatRfc3339(restores[0].happened_at), "2026-11-24T14:30:40.000Z");
  EXPECT_EQ(FormatRfc3339(restores[0].observed_at), "2026-11-24T14:35:00.000Z");  // the one Clock
}

TEST_F(ReplayChangesTest, AKestraReplayIsItsOwnRiskyKindOfChange) {
  auto kestra = StartSim(sim::Platform::kKestra, Json::parse(R"({"executions": [
    {"id": "orig", "namespace": "sales", "flowId": "load_daily", "state": "SUCCESS", "start": "2026-11-24T13:00:00Z", "end": "2026-11-24T13:00:04Z"},
    {"id": "again", "namespace": "sales", "flowId": "load_daily", "state": "SUCCESS", "originalId": "orig",
     "start": "2026-11-24T14:10:00Z", "end": "2026-11-24T14:10:06Z",
     "histories": [{"state": "CREATED", "at": "2026-11-24T14:10:00Z"}, {"state": "RESTARTED", "at": "2026-11-24T14:10:01Z"},
                   {"state": "SUCCESS", "at": "2026-11-24T14:10:06Z"}],
     "logs": [{"at": "2026-11-24T14:10:01Z", "message": "Replay of execution orig from task load"}]}]})"));
  ASSERT_NE(kestra, nullptr);
  ws_.platforms["kestra"] = PlatformAt("kestra", "kestra", kestra->url());
  config::AssetNote note;
  note.id = "kestra://kestra/sales.load_daily";
  ws_.assets.push_back(note);
  MoveTo(kestra, "2026-11-24T15:00:00Z");
  Collect();
  auto plain = Events(kExecution);
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].evidence["execution_id"], "orig");
  auto replays = Events(kExecutionReplay);
  ASSERT_EQ(replays.size(), 1u);
  const auto& r = replays[0];
  EXPECT_EQ(r.evidence["execution_id"], "again");
  EXPECT_EQ(r.evidence["original_id"], "orig");
  EXPECT_EQ(r.evidence["replay_signs"].size(), 3u);  // originalId, RESTARTED, the log line
  EXPECT_GE(r.risk, 0.6);
  EXPECT_NE(r.reason.find("replayed execution orig"), std::string::npos) << r.reason;
}

TEST_F(ReplayChangesTest, ADbtModelWhoseChecksumMovedIsAModelChange) {
  auto manifest = [](const std::string& checksum) {
    return Json{{"metadata", {{"dbt_schema_version", "https://schemas.getdbt.com/dbt/manifest/v12.json"},
                              {"generated_at", "2026-11-24T14:01:00Z"}}},
                {"nodes", {{"model.loyalty.fct_member_tier", {{"resource_type", "model"}, {"name", "fct_member_tier"},
                                                               {"checksum", {{"name", "sha256"}, {"checksum", checksum}}}}},
                           {"model.loyalty.dim_member", {{"resource_type", "model"}, {"name", "dim_member"},
                                                          {"checksum", {{"name", "sha256"}, {"checksum", "same"}}}}}}}}
        .dump();
  };
  ws_.lineage.dbt_manifest = dir_.Write("target/manifest.json", manifest("aaa")).string();
  clock_.Set(At("2026-11-24T14:00:00Z"));
  Collect();
  EXPECT_TRUE(Events(kModelChange).empty());  // the first pass is the baseline
  dir_.Write("target/manifest.json", manifest("bbb"));
  clock_.Set(At("2026-11-24T14:05:00Z"));
  Collect();
  Collect();  // seen twice, stored once
  auto changes = Events(kModelChange);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].asset_id, "dbt://loyalty/fct_member_tier");
  EXPECT_EQ(changes[0].evidence["from_checksum"], "aaa");
  EXPECT_EQ(changes[0].evidence["to_checksum"], "bbb");
  EXPECT_EQ(FormatRfc3339(changes[0].happened_at), "2026-11-24T14:01:00.000Z");  // the manifest's generated_at
}

TEST_F(ReplayChangesTest, AConnectTaskTraceKeepsItsLastCausedByAndTheObservedTimeIsTheClocks) {
  auto connect = StartSim(sim::Platform::kKafkaConnect, Json::parse(R"({"connectors": [{"name": "bq-sink", "type": "sink",
    "states": [{"at": "2026-11-24T08:00:00Z", "connector": "RUNNING", "tasks": ["RUNNING", "RUNNING"]},
               {"at": "2026-11-24T14:10:00Z", "connector": "RUNNING", "tasks": ["RUNNING", {"state": "FAILED",
                "trace": "org.apache.kafka.connect.errors.ConnectException: x\n\tat a(A.java:1)\n\tat b(B.java:2)\n\tat c(C.java:3)\n\tat d(D.java:4)\nCaused by: java.io.IOException: y\nCaused by: org.apache.kafka.common.errors.RecordTooLargeException: z\n\t... 3 more"}]}]}]})"));
  ASSERT_NE(connect, nullptr);
  ws_.platforms["connect"] = PlatformAt("connect", "kafka-connect", connect->url());
  MoveTo(connect, "2026-11-24T14:05:00Z");
  Collect();
  MoveTo(connect, "2026-11-24T14:15:00Z");
  Collect();
  auto states = Events(kConnectorState);
  ASSERT_EQ(states.size(), 1u);
  EXPECT_EQ(FormatRfc3339(states[0].happened_at), "2026-11-24T14:15:00.000Z");  // the simulated clock, not the wall
  std::string head = states[0].evidence["tasks"][1]["trace_head"].get<std::string>();
  EXPECT_NE(head.find("ConnectException: x"), std::string::npos) << head;
  EXPECT_NE(head.find("Caused by: org.apache.kafka.common.errors.RecordTooLargeException: z"), std::string::npos) << head;
}

}  // namespace
}  // namespace dw::observe::changes
