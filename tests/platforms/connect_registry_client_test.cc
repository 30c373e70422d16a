// Kafka Connect and Schema Registry clients against their simulators.
#include <gtest/gtest.h>

#include "platforms/kafka_connect/connect_client.h"
#include "platforms/schema_registry/registry_client.h"
#include "tests/platforms/platform_test_support.h"

namespace dw::platforms {
namespace {

using dw::testing::LoadScript;
using dw::testing::PlatformAt;
using dw::testing::StartSim;

TEST(ConnectClientTest, AFailedTaskUnderARunningConnectorIsUnhealthy) {
  Json s = LoadScript("examples/loyalty-flink/sim/connect.json");
  s["now"] = "2026-11-24T19:00:00Z";
  auto sim = StartSim(sim::Platform::kKafkaConnect, s);
  ASSERT_NE(sim, nullptr);
  auto http = net::MakeCurlHttpClient();
  auto p = PlatformAt("connect", "kafka-connect", sim->url());
  kafka_connect::ConnectClient client(p, *http);
  auto all = client.Connectors();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->count("bq-sink-balances"), 1u);
  const auto& st = all->at("bq-sink-balances");
  EXPECT_EQ(st.state, "RUNNING");
  EXPECT_EQ(st.tasks[1].state, "FAILED");
  EXPECT_EQ(kafka_connect::Verdict(st), "unhealthy");
  EXPECT_EQ(kafka_connect::TraceHead(st.tasks[1].trace, 1),
            "org.apache.kafka.connect.errors.ConnectException: Exiting WorkerSinkTask due to unrecoverable exception."
            "\n...\nCaused by: com.google.cloud.bigquery.BigQueryException: Quota exceeded");

  auto one = client.Status("bq-sink-balances");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->tasks.size(), 2u);
  auto missing = client.Status("no such connector");  // the spaces are percent-encoded
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("No status found for connector no such connector"), std::string::npos);
}

TEST(ConnectClientTest, VerdictsAndRebalance) {
  kafka_connect::ConnectorStatus s{"c", "sink", "RUNNING", "w", "", {{0, "RUNNING", "w", ""}}};
  EXPECT_EQ(kafka_connect::Verdict(s), "healthy");
  s.tasks[0].state = "UNASSIGNED";
  EXPECT_EQ(kafka_connect::Verdict(s), "degraded");
  s.state = "PAUSED";
  s.tasks[0].state = "PAUSED";
  EXPECT_EQ(kafka_connect::Verdict(s), "paused");
  s.state = "RUNNING";
  s.tasks.clear();
  EXPECT_EQ(kafka_connect::Verdict(s), "degraded");

  auto sim = StartSim(sim::Platform::kKafkaConnect, Json{{"rebalancing", true}, {"connectors", Json::array()}});
  auto http = net::MakeCurlHttpClient();
  auto p = PlatformAt("connect", "kafka-connect", sim->url());
  auto r = kafka_connect::ConnectClient(p, *http).Connectors();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(r.status().message().find("409"), std::string::npos);
}

TEST(RegistryClientTest, SubjectsVersionsConfigAndCompatibility) {
  auto sim = StartSim(sim::Platform::kSchemaRegistry, LoadScript("examples/loyalty-flink/sim/registry.json"));
  ASSERT_NE(sim, nullptr);
  auto http = net::MakeCurlHttpClient();
  auto p = PlatformAt("registry", "schema-registry", sim->url());
  schema_registry::RegistryClient client(p, *http);
  auto subjects = client.Subjects();
  ASSERT_TRUE(subjects.ok()) << subjects.status().ToString();
  EXPECT_EQ(*subjects, std::vector<std::string>{"member-balances-value"});
  auto versions = client.Versions("member-balances-value");
  ASSERT_TRUE(versions.ok());
  EXPECT_EQ(*versions, (std::vector<int64_t>{1, 2}));
  auto latest = client.Schema("member-balances-value", "latest");
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  EXPECT_EQ(latest->version, 2);
  EXPECT_NE(latest->schema.find("last_store_id"), std::string::npos);
  auto level = client.CompatibilityLevel("member-balances-value");
  ASSERT_TRUE(level.ok());
  EXPECT_EQ(*level, "BACKWARD");

  std::string added_without_default =
      R"({"type":"record","name":"MemberBalance","namespace":"loyalty","fields":[{"name":"member_id","type":"string"},{"name":"balance","type":"long"},{"name":"last_store_id","type":["null","string"],"default":null},{"name":"tier","type":"string"}]})";
  auto bad = client.CheckCompatibility("member-balances-value", added_without_default);
  ASSERT_TRUE(bad.ok()) << bad.status().ToString();
  EXPECT_FALSE(bad->is_compatible);
  ASSERT_FALSE(bad->messages.empty());
  EXPECT_NE(bad->messages[0].find("tier"), std::string::npos);
  auto fresh = client.CheckCompatibility("brand-new-subject", added_without_default);
  ASSERT_TRUE(fresh.ok());
  EXPECT_TRUE(fresh->is_compatible);  // a subject with no versions is compatible

  auto invalid = client.CheckCompatibility("member-balances-value", "{not json");
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.status().code(), StatusCode::kInvalidArgument);  // 422
  EXPECT_NE(invalid.status().message().find("Invalid schema"), std::string::npos);
  auto missing = client.Versions("nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("Subject 'nope' not found."), std::string::npos);
}

}  // namespace
}  // namespace dw::platforms

#include "platforms/probe.h"

namespace dw::platforms {
namespace {

// describe_workspace's probes answer healthy against every simulator, with the example scripts.
TEST(SimulatorProbeTest, EveryPlatformProbeIsHealthyAgainstItsSimulator) {
  auto http = net::MakeCurlHttpClient();
  struct Case {
    sim::Platform platform;
    const char* type;
    const char* script;
  };
  for (const Case& c : {Case{sim::Platform::kFlink, "flink", "examples/loyalty-flink/sim/flink.json"},
                        Case{sim::Platform::kKestra, "kestra", "examples/ev-kestra/sim/kestra.json"},
                        Case{sim::Platform::kKafkaConnect, "kafka-connect", "examples/loyalty-flink/sim/connect.json"},
                        Case{sim::Platform::kSchemaRegistry, "schema-registry", "examples/loyalty-flink/sim/registry.json"}}) {
    auto sim = dw::testing::StartSim(c.platform, dw::testing::LoadScript(c.script));
    ASSERT_NE(sim, nullptr);
    auto p = dw::testing::PlatformAt("p", c.type, sim->url());
    p.username = "admin@kestra.io";
    p.password = "Admin1234!";
    auto probe = ProbePlatform(p, *http, std::chrono::seconds(2));
    EXPECT_TRUE(probe.healthy) << c.type << ": " << probe.detail;
  }
}

}  // namespace
}  // namespace dw::platforms
