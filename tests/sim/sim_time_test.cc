// The simulators tell time: at simulated T each answers with what had happened by T (a job that
// goes RUNNING -> RESTARTING -> RUNNING, a second restore, a flow revision and its source, a
// trigger toggled, a KV value rewritten, a replayed execution, a connector config edited, a task
// with its own trace, a fault that lasts ten minutes), and an empty JobManager log answers at once.
#include <gtest/gtest.h>

#include <chrono>

#include "base/json.h"
#include "net/http_client.h"
#include "sim/sim_support.h"
#include "tests/platforms/platform_test_support.h"

namespace dw::sim {
namespace {

using dw::testing::StartSim;

class SimTimeTest : public ::testing::Test {
 protected:
  void At(const RunningSim& sim, const std::string& t) {
    net::HttpRequest req;
    req.method = "POST";
    req.url = sim.url() + "/_sim/clock";
    req.body = Json{{"now", t}}.dump();
    auto r = http_->Send(req);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->status, 200) << r->body;
  }
  Json Get(const RunningSim& sim, const std::string& path, long* status = nullptr) {
    net::HttpRequest req;
    req.url = sim.url() + path;
    req.timeout = std::chrono::milliseconds(3000);
    auto r = http_->Send(req);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return Json();
    if (status) *status = r->status;
    return Json::parse(r->body, nullptr, false);
  }
  std::unique_ptr<net::HttpClient> http_ = net::MakeCurlHttpClient();
};

const char* kJid = "a1b2c3d4e5f60718293a4b5c6d7e8f90";

Json FailoverJob() {
  return Json::parse(R"({
    "jobs": [{"jid": "a1b2c3d4e5f60718293a4b5c6d7e8f90", "name": "points-balance", "start_time": "2026-11-24T08:00:00Z",
      "states": [{"at": "2026-11-24T08:00:00Z", "state": "RUNNING"}, {"at": "2026-11-24T10:00:00Z", "state": "RESTARTING"},
                 {"at": "2026-11-24T10:00:40Z", "state": "RUNNING"}],
      "restores": [{"id": 7, "at": "2026-11-24T08:00:02Z", "is_savepoint": true, "external_path": "s3://sp/7"},
                   {"id": 118, "at": "2026-11-24T10:00:41Z", "is_savepoint": false, "external_path": "s3://cp/118"}],
      "checkpoints": [{"at": "2026-11-24T08:00:00Z", "completed": 0, "failed": 0},
                      {"at": "2026-11-24T09:59:00Z", "completed": 118, "failed": 0},
                      {"at": "2026-11-24T10:30:00Z", "completed": 148, "failed": 1}],
      "config": [{"at": "2026-11-24T08:00:00Z", "values": {"parallelism.default": "4"}},
                 {"at": "2026-11-24T11:00:00Z", "values": {"parallelism.default": "8"}}]}],
    "logs": [{"name": "jobmanager.log", "lines": [{"at": "2026-11-24T12:00:00Z", "message": "later"}]}],
    "faults": [{"path": "/jobs/overview", "status": 503, "body": "{}", "from": "2026-11-24T12:00:00Z", "until": "2026-11-24T12:10:00Z"}]
  })");
}

TEST_F(SimTimeTest, AFlinkJobRestartsAndItsFailoverRestoreMovesLastModification) {
  auto sim = StartSim(Platform::kFlink, FailoverJob());
  ASSERT_NE(sim, nullptr);
  At(*sim, "2026-11-24T09:00:00Z");
  Json before = Get(*sim, "/jobs/overview")["jobs"][0];
  EXPECT_EQ(before["state"], "RUNNING");
  EXPECT_EQ(before["last-modification"], 1795507202000);  // the 08:00:02 restore
  Json cps = Get(*sim, std::string("/jobs/") + kJid + "/checkpoints");
  EXPECT_EQ(cps["counts"]["restored"], 1);
  EXPECT_EQ(cps["latest"]["restored"]["id"], 7);
  EXPECT_EQ(cps["counts"]["completed"], 0);

  At(*sim, "2026-11-24T10:00:10Z");
  EXPECT_EQ(Get(*sim, "/jobs/overview")["jobs"][0]["state"], "RESTARTING");

  At(*sim, "2026-11-24T10:05:00Z");
  Json after = Get(*sim, "/jobs/overview")["jobs"][0];
  EXPECT_EQ(after["state"], "RUNNING");
  EXPECT_EQ(after["last-modification"], 1795514441000);  // the 10:00:41 failover restore
  cps = Get(*sim, std::string("/jobs/") + kJid + "/checkpoints");
  EXPECT_EQ(cps["counts"]["restored"], 2);
  EXPECT_EQ(cps["latest"]["restored"]["id"], 118);
  EXPECT_EQ(cps["latest"]["restored"]["is_savepoint"], false);
  EXPECT_EQ(cps["counts"]["completed"], 118);
  EXPECT_EQ(Get(*sim, std::string("/jobs/") + kJid + "/config")["execution-config"]["user-config"]["parallelism.default"], "4");
  At(*sim, "2026-11-24T11:00:00Z");
  EXPECT_EQ(Get(*sim, std::string("/jobs/") + kJid + "/config")["execution-config"]["user-config"]["parallelism.default"], "8");
}

TEST_F(SimTimeTest, AFaultLastsOnlyItsWindow) {
  auto sim = StartSim(Platform::kFlink, FailoverJob());
  ASSERT_NE(sim, nullptr);
  long status = 0;
  At(*sim, "2026-11-24T11:59:59Z");
  Get(*sim, "/jobs/overview", &status);
  EXPECT_EQ(status, 200);
  At(*sim, "2026-11-24T12:05:00Z");
  Get(*sim, "/jobs/overview", &status);
  EXPECT_EQ(status, 503);
  At(*sim, "2026-11-24T12:10:00Z");
  Get(*sim, "/jobs/overview", &status);
  EXPECT_EQ(status, 200);
}

TEST_F(SimTimeTest, AJobManagerLogWithNoVisibleLineAnswersAtOnceWithAnEmptyBody) {
  auto sim = StartSim(Platform::kFlink, FailoverJob());
  ASSERT_NE(sim, nullptr);
  At(*sim, "2026-11-24T09:00:00Z");
  net::HttpRequest req;
  req.url = sim->url() + "/jobmanager/logs/jobmanager.log";
  req.timeout = std::chrono::milliseconds(2000);
  auto r = http_->Send(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();  // a hang would be a DeadlineExceeded here
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "");
  At(*sim, "2026-11-24T12:00:00Z");
  r = http_->Send(req);
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->body.find("later"), std::string::npos);
}

Json KestraScript() {
  return Json::parse(R"({
    "flows": [{"namespace": "pricing", "id": "tariff_sync", "revision": 8, "source": "id: tariff_sync # rev 8",
               "revisions": [{"revision": 8, "at": "2026-10-20T11:12:00Z"},
                             {"revision": 9, "at": "2026-11-25T06:00:00Z", "source": "id: tariff_sync # v2 endpoint"}],
               "triggers": [{"id": "nightly", "disabled": false, "changes": [{"at": "2026-11-25T06:15:00Z", "disabled": true}]}]}],
    "executions": [
      {"id": "orig0001", "namespace": "pricing", "flowId": "tariff_sync", "state": "SUCCESS",
       "start": "2026-11-25T00:05:00Z", "end": "2026-11-25T00:05:04Z"},
      {"id": "replay01", "namespace": "pricing", "flowId": "tariff_sync", "state": "SUCCESS", "originalId": "orig0001",
       "start": "2026-11-25T07:00:00Z", "end": "2026-11-25T07:00:05Z",
       "histories": [{"state": "CREATED", "at": "2026-11-25T07:00:00Z"}, {"state": "RESTARTED", "at": "2026-11-25T07:00:01Z"},
                     {"state": "RUNNING", "at": "2026-11-25T07:00:01Z"}, {"state": "SUCCESS", "at": "2026-11-25T07:00:05Z"}]}],
    "kv": [{"namespace": "pricing", "key": "tariffs_current", "type": "JSON", "value": {"dc_fast": 0.49}, "at": "2026-11-25T00:05:04Z"},
           {"namespace": "pricing", "key": "tariffs_current", "type": "JSON", "value": {"dc_fast": 0.56}, "at": "2026-11-25T07:00:05Z"}]
  })");
}

TEST_F(SimTimeTest, KestraRevisionsTriggersKvAndReplaysUnfoldOverTime) {
  auto sim = StartSim(Platform::kKestra, KestraScript());
  ASSERT_NE(sim, nullptr);
  long status = 0;
  At(*sim, "2026-11-25T00:00:00Z");
  Get(*sim, "/api/v1/main/namespaces/pricing/kv/tariffs_current", &status);
  EXPECT_EQ(status, 404);  // not written yet
  Json flow = Get(*sim, "/api/v1/main/flows/pricing/tariff_sync?source=true");
  EXPECT_EQ(flow["revision"], 8);
  EXPECT_EQ(flow["source"], "id: tariff_sync # rev 8");

  At(*sim, "2026-11-25T01:00:00Z");
  EXPECT_EQ(Get(*sim, "/api/v1/main/namespaces/pricing/kv/tariffs_current")["value"]["dc_fast"], 0.49);
  EXPECT_EQ(Get(*sim, "/api/v1/main/triggers/search")["results"][0]["triggerContext"]["disabled"], false);
  EXPECT_EQ(Get(*sim, "/api/v1/main/executions/search")["total"], 1);

  At(*sim, "2026-11-25T08:00:00Z");
  flow = Get(*sim, "/api/v1/main/flows/pricing/tariff_sync?source=true");
  EXPECT_EQ(flow["revision"], 9);
  EXPECT_EQ(flow["source"], "id: tariff_sync # v2 endpoint");
  Json trig = Get(*sim, "/api/v1/main/triggers/search")["results"][0]["triggerContext"];
  EXPECT_EQ(trig["disabled"], true);
  EXPECT_EQ(trig["updatedDate"], "2026-11-25T06:15:00.000Z");
  EXPECT_EQ(Get(*sim, "/api/v1/main/namespaces/pricing/kv/tariffs_current")["value"]["dc_fast"], 0.56);
  Json replay = Get(*sim, "/api/v1/main/executions/replay01");
  EXPECT_EQ(replay["originalId"], "orig0001");
  EXPECT_EQ(replay["state"]["current"], "SUCCESS");
  ASSERT_EQ(replay["state"]["histories"].size(), 4u);
  EXPECT_EQ(replay["state"]["histories"][1]["state"], "RESTARTED");
  EXPECT_EQ(Get(*sim, "/api/v1/main/executions/orig0001")["originalId"], "orig0001");
}

TEST_F(SimTimeTest, ConnectConfigChangesAtItsTimeAndEachFailedTaskCarriesItsOwnTrace) {
  auto sim = StartSim(Platform::kKafkaConnect, Json::parse(R"({
    "connectors": [{"name": "bq-sink", "type": "sink",
      "config": [{"at": "2026-11-24T08:00:00Z", "values": {"topics": "orders", "tasks.max": "2"}},
                 {"at": "2026-11-24T09:40:00Z", "values": {"tasks.max": "4"}}],
      "states": [{"at": "2026-11-24T08:00:00Z", "connector": "RUNNING", "tasks": ["RUNNING", "RUNNING"]},
                 {"at": "2026-11-24T09:10:00Z", "connector": "RUNNING",
                  "tasks": ["RUNNING", {"state": "FAILED", "trace": "org.apache.kafka.connect.errors.ConnectException: task 1\nCaused by: java.io.IOException: disk"}]}]}]
  })"));
  ASSERT_NE(sim, nullptr);
  At(*sim, "2026-11-24T09:39:00Z");
  EXPECT_EQ(Get(*sim, "/connectors/bq-sink/config")["tasks.max"], "2");
  Json status = Get(*sim, "/connectors/bq-sink/status");
  EXPECT_EQ(status["tasks"][1]["state"], "FAILED");
  EXPECT_NE(status["tasks"][1]["trace"].get<std::string>().find("disk"), std::string::npos);
  EXPECT_FALSE(status["tasks"][0].contains("trace"));
  At(*sim, "2026-11-24T09:40:00Z");
  Json config = Get(*sim, "/connectors/bq-sink/config");
  EXPECT_EQ(config["tasks.max"], "4");
  EXPECT_EQ(config["topics"], "orders");  // earlier keys stay
}

TEST_F(SimTimeTest, OldScriptsKeepTheirMeaning) {
  auto sim = StartSim(Platform::kFlink, dw::testing::LoadScript("examples/loyalty-flink/sim/flink.json"));
  ASSERT_NE(sim, nullptr);
  At(*sim, "2026-11-24T14:01:00Z");
  Json jobs = Get(*sim, "/jobs/overview")["jobs"];
  ASSERT_EQ(jobs.size(), 1u);  // v4.2 has not started
  EXPECT_EQ(jobs[0]["state"], "FINISHED");
  At(*sim, "2026-11-24T15:15:00Z");
  Json cps = Get(*sim, std::string("/jobs/") + kJid + "/checkpoints");
  EXPECT_EQ(cps["counts"]["restored"], 1);
  EXPECT_EQ(cps["counts"]["completed"], 73);
}

}  // namespace
}  // namespace dw::sim
