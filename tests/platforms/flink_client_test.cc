// The Flink client against the Flink simulator: the loyalty incident's bodies, then every failure
// mode the issue names (malformed JSON, wrong types, HTML error page, 401/404/429/500, timeouts,
// huge bodies, bounded log reading).
#include "platforms/flink/flink_client.h"

#include <gtest/gtest.h>

#include "platforms/flink/restore_log.h"
#include "tests/platforms/platform_test_support.h"

namespace dw::platforms::flink {
namespace {

using dw::testing::LoadScript;
using dw::testing::PlatformAt;
using dw::testing::StartSim;

constexpr const char* kNewJob = "a1b2c3d4e5f60718293a4b5c6d7e8f90";

class FlinkClientTest : public ::testing::Test {
 protected:
  void Start(const Json& script) {
    sim_ = StartSim(sim::Platform::kFlink, script);
    ASSERT_NE(sim_, nullptr);
    platform_ = PlatformAt("flink", "flink", sim_->url());
    client_ = std::make_unique<FlinkClient>(platform_, *http_);
  }
  void StartLoyalty() { Start(LoadScript("examples/loyalty-flink/sim/flink.json")); }
  // A script with one job and `faults`.
  void StartWithFaults(Json faults) {
    Json s = LoadScript("examples/loyalty-flink/sim/flink.json");
    s["faults"] = std::move(faults);
    Start(s);
  }

  std::unique_ptr<net::HttpClient> http_ = net::MakeCurlHttpClient();
  std::unique_ptr<sim::RunningSim> sim_;
  config::PlatformConfig platform_;
  std::unique_ptr<FlinkClient> client_;
};

TEST_F(FlinkClientTest, ReadsJobsRestoreAndRecoveryFlagOfTheLoyaltyIncident) {
  StartLoyalty();
  auto jobs = client_->JobsOverview();
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[1].name, "points-balance");
  EXPECT_EQ((*jobs)[1].state, "RUNNING");
  EXPECT_EQ((*jobs)[0].state, "FINISHED");

  auto details = client_->Job(kNewJob);
  ASSERT_TRUE(details.ok()) << details.status().ToString();
  ASSERT_EQ(details->vertices.size(), 4u);
  EXPECT_NE(details->vertices[2].name.find("GroupAggregate"), std::string::npos);

  auto cps = client_->Checkpoints(kNewJob);
  ASSERT_TRUE(cps.ok()) << cps.status().ToString();
  ASSERT_TRUE(cps->restored.has_value());
  EXPECT_TRUE(cps->restored->is_savepoint);
  EXPECT_EQ(cps->restored->id, 20158);
  EXPECT_EQ(FormatRfc3339(FromUnixMillis(cps->restored->restore_timestamp_ms)), "2026-11-24T14:02:03.412Z");

  auto cfg = client_->JobManagerConfig(kNewJob);
  ASSERT_TRUE(cfg.ok()) << cfg.status().ToString();
  auto rec = ReadRecoverySettings(*cfg);
  ASSERT_TRUE(rec.allow_non_restored_state.has_value());
  EXPECT_TRUE(*rec.allow_non_restored_state);
  EXPECT_EQ(rec.source_key, "execution.state-recovery.ignore-unclaimed-state");
  EXPECT_NE(rec.restore_path.find("savepoint-3f9a6c"), std::string::npos);

  auto cp_config = client_->CheckpointConfiguration(kNewJob);
  ASSERT_TRUE(cp_config.ok()) << cp_config.status().ToString();
  EXPECT_EQ(cp_config->mode, "exactly_once");
  EXPECT_TRUE(cp_config->externalized);

  auto job_config = client_->JobConfig(kNewJob);  // the wire shape {jid, name, execution-config}
  ASSERT_TRUE(job_config.ok()) << job_config.status().ToString();
  EXPECT_EQ((*job_config)["job-parallelism"], 4);
}

TEST_F(FlinkClientTest, OlderRecoveryKeysAreRead) {
  auto rec = ReadRecoverySettings({{"execution.savepoint.ignore-unclaimed-state", "true"},
                                   {"execution.savepoint.path", "s3://b/old"}});
  EXPECT_TRUE(rec.allow_non_restored_state.value_or(false));
  EXPECT_EQ(rec.restore_path, "s3://b/old");
  auto off = ReadRecoverySettings({{"execution.state-recovery.ignore-unclaimed-state", "false"},
                                   {"execution.savepoint.ignore-unclaimed-state", "true"}});
  EXPECT_FALSE(off.allow_non_restored_state.value_or(true));  // the current key wins
  EXPECT_FALSE(ReadRecoverySettings({}).allow_non_restored_state.has_value());
}

TEST_F(FlinkClientTest, LogIsStreamedAndItsRestoreLinesFound) {
  StartLoyalty();
  auto files = client_->LogFiles();
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  ASSERT_EQ(files->size(), 1u);
  EXPECT_EQ((*files)[0].name, "jobmanager.log");
  RestoreLogScanner scanner;
  auto read = client_->ReadLog("jobmanager.log", 1 << 20, [&](std::string_view l) { scanner.Feed(l); });
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_FALSE(read->truncated);
  EXPECT_EQ(read->bytes, static_cast<size_t>((*files)[0].size));
  int skipped = 0, empty = 0;
  for (const auto& f : scanner.findings()) {
    skipped += f.kind == RestoreLineKind::kSkippedState;
    empty += f.kind == RestoreLineKind::kSkippedEmptyState;
  }
  EXPECT_EQ(skipped, 1);
  EXPECT_EQ(empty, 1);
}

TEST_F(FlinkClientTest, LogReadingIsBoundedByTheByteCap) {
  Json s = LoadScript("examples/loyalty-flink/sim/flink.json");
  s["logs"][0]["filler_bytes"] = 5 * 1024 * 1024;  // 5 MiB of filler before the restore lines
  Start(s);
  size_t lines = 0;
  RestoreLogScanner scanner;
  auto read = client_->ReadLog("jobmanager.log", 1024 * 1024, [&](std::string_view l) {
    ++lines;
    scanner.Feed(l);
  });
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_TRUE(read->truncated);
  EXPECT_EQ(read->bytes, 1024u * 1024u);
  EXPECT_GT(lines, 1000u);
  EXPECT_TRUE(scanner.findings().empty());  // the restore lines are past the cap

  auto tail = client_->LogTail("jobmanager.log", 4096);
  ASSERT_TRUE(tail.ok()) << tail.status().ToString();
  EXPECT_LE(tail->size(), 4096u);
  EXPECT_NE(tail->find("Completed checkpoint 20159"), std::string::npos);
}

TEST_F(FlinkClientTest, RefusesLogNamesThatLeaveTheLogFolder) {
  StartLoyalty();
  auto r = client_->ReadLog("../../etc/passwd", 1024, [](std::string_view) {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  // The simulator refuses it too, as Flink does.
  auto http = net::MakeCurlHttpClient();
  net::HttpRequest req;
  req.url = sim_->url() + "/jobmanager/logs/..%2F..%2Fetc%2Fpasswd";
  auto resp = http->Send(req);
  ASSERT_TRUE(resp.ok());
  EXPECT_EQ(resp->status, 400);
  EXPECT_NE(resp->body.find("\"errors\""), std::string::npos);
}

TEST_F(FlinkClientTest, UnknownAndMalformedJobIdsAreClearErrors) {
  StartLoyalty();
  auto missing = client_->Checkpoints("00000000000000000000000000000000");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("flink 'flink'"), std::string::npos);
  EXPECT_NE(missing.status().message().find("not found"), std::string::npos);  // Flink's own message
  auto bad = client_->Job("../overview");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

TEST_F(FlinkClientTest, MalformedJsonIsDataLoss) {
  StartWithFaults(Json::array({{{"path", "/jobs/overview"}, {"status", 200}, {"body", "{\"jobs\": [{\"jid\""}}}));
  auto r = client_->JobsOverview();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(r.status().message().find("not valid JSON"), std::string::npos);
  EXPECT_NE(r.status().message().find("/jobs/overview"), std::string::npos);
}

TEST_F(FlinkClientTest, WrongTypesNameTheField) {
  StartWithFaults(Json::array({{{"path", "/jobs/overview"}, {"status", 200},
                                {"body", R"({"jobs":[{"jid":"a","name":"n","state":"RUNNING","start-time":"yesterday"}]})"}}}));
  auto r = client_->JobsOverview();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(r.status().message().find("start-time"), std::string::npos);
  EXPECT_NE(r.status().message().find("integer"), std::string::npos);
}

TEST_F(FlinkClientTest, MissingFieldIsNamed) {
  StartWithFaults(Json::array({{{"path", "/jobs/overview"}, {"status", 200}, {"body", R"({"jobz":[]})"}}}));
  auto r = client_->JobsOverview();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("\"jobs\" is missing"), std::string::npos);
}

TEST_F(FlinkClientTest, HtmlPageFromAProxyIsCalledWhatItIs) {
  StartWithFaults(Json::array({{{"path", "/jobs/overview"}, {"status", 502}, {"content_type", "text/html"},
                                {"body", "<html><body><h1>502 Bad Gateway</h1></body></html>"}}}));
  auto r = client_->JobsOverview();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("HTML page"), std::string::npos);
  EXPECT_NE(r.status().message().find("502"), std::string::npos);
}

TEST_F(FlinkClientTest, UnauthorizedSaysWhatToSet) {
  StartWithFaults(Json::array({{{"path", "/jobs/overview"}, {"status", 401}, {"body", R"({"errors":["Unauthorized"]})"}}}));
  auto r = client_->JobsOverview();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(r.status().message().find("username/password or token"), std::string::npos);
}

TEST_F(FlinkClientTest, RateLimitAndServerErrorsAreRetriedThenReported) {
  StartWithFaults(Json::array({{{"path", "/jobs/overview"}, {"status", 429}, {"times", 1}, {"body", R"({"errors":["slow down"]})"}},
                               {{"path", "/jobmanager/logs"}, {"status", 500}, {"body", R"({"errors":["Internal server error.\n\tat x"]})"}}}));
  auto ok_after_retry = client_->JobsOverview();  // one 429, then the real answer
  ASSERT_TRUE(ok_after_retry.ok()) << ok_after_retry.status().ToString();
  auto failing = client_->LogFiles();
  ASSERT_FALSE(failing.ok());
  EXPECT_EQ(failing.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(failing.status().message().find("Internal server error."), std::string::npos);
  EXPECT_EQ(failing.status().message().find("\tat x"), std::string::npos);  // first line only
}

TEST_F(FlinkClientTest, TimeoutIsDeadlineExceeded) {
  StartWithFaults(Json::array({{{"path", "/jobs/overview"}, {"status", 200}, {"delay_ms", 1500}, {"body", R"({"jobs":[]})"}}}));
  platform_.timeout = std::chrono::milliseconds(300);
  auto r = client_->JobsOverview();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(r.status().message().find("flink 'flink'"), std::string::npos);
}

TEST_F(FlinkClientTest, ConnectionDroppedMidBodyIsUnavailable) {
  StartWithFaults(Json::array({{{"path", "/jobs/overview"}, {"status", 200},
                                {"body", R"({"jobs":[{"jid":"0bf232afb7febbb8b070221833ddb99c","name":"x"}]})"},
                                {"cut_after_bytes", 12}}}));
  auto r = client_->JobsOverview();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("/jobs/overview"), std::string::npos);
}

TEST_F(FlinkClientTest, HugeBodyIsRefusedAtTheCap) {
  StartWithFaults(Json::array({{{"path", "/jobs/overview"}, {"status", 200}, {"body", std::string(1024 * 1024, ' ')},
                                {"repeat_body", 20}}}));  // 20 MiB > the 16 MiB default cap
  auto r = client_->JobsOverview();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
}

TEST_F(FlinkClientTest, UnreachableIsUnavailable) {
  platform_ = PlatformAt("flink", "flink", "http://127.0.0.1:1");
  FlinkClient client(platform_, *http_);
  auto r = client.JobsOverview();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
}

TEST_F(FlinkClientTest, TheSimulatedClockHidesWhatHasNotHappenedYet) {
  Json s = LoadScript("examples/loyalty-flink/sim/flink.json");
  s["now"] = "2026-11-24T13:00:00Z";
  Start(s);
  auto jobs = client_->JobsOverview();
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 1u);  // v4.2 has not started yet
  EXPECT_EQ((*jobs)[0].state, "RUNNING");
  auto http = net::MakeCurlHttpClient();
  net::HttpRequest req;
  req.method = "POST";
  req.url = sim_->url() + "/_sim/clock";
  req.body = R"({"now":"2026-11-24T15:00:00Z"})";
  ASSERT_TRUE(http->Send(req).ok());
  auto later = client_->JobsOverview();
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->size(), 2u);
}

}  // namespace
}  // namespace dw::platforms::flink
