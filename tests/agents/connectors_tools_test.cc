// get_connector_status and get_change_timeline through the dw-connectors catalog, against the
// Kafka Connect simulator and a state store filled by a collection pass.
#include <gtest/gtest.h>

#include "agents/agents.h"
#include "mcp/json_schema.h"
#include "observe/changes/collector.h"
#include "tests/support/agent_workspace.h"

namespace dw::agents {
namespace {

class ConnectorsToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Json script = dw::testing::LoadScript("examples/loyalty-flink/sim/connect.json");
    script["now"] = "2026-11-24T19:00:00Z";  // after the task failed
    ASSERT_TRUE(ws_.StartSim(sim::Platform::kKafkaConnect, script));
    ws_.Write("dataworkers.yaml",
              "version: 1\nname: t\nwarehouses:\n  main: {type: sqlite, path: warehouse.db}\n"
              "platforms:\n  connect: {type: kafka-connect, url: \"{SIM}\"}\n");
    ASSERT_TRUE(ws_.Load("dw-connectors"));
  }
  mcp::ToolResult Call(const std::string& tool, const Json& args) { return ws_.Call(tool, args); }

  dw::testing::AgentWorkspace ws_{FromUnixMillis(1795547000000)};  // 2026-11-24T19:03:20Z
};

TEST_F(ConnectorsToolsTest, BothToolsAreReadOnly) {
  for (const char* name : {"get_connector_status", "get_change_timeline"}) {
    const auto* t = ws_.catalog().FindTool(name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_TRUE(t->annotations.read_only);
    EXPECT_FALSE(t->annotations.destructive);
    EXPECT_TRUE(t->output_schema.has_value());
  }
}

TEST_F(ConnectorsToolsTest, AFailedTaskMakesTheSinkUnhealthyWithTheTraceHead) {
  auto r = Call("get_connector_status", {{"connector", "bq-sink-balances"}});
  ASSERT_FALSE(r.is_error) << r.content.dump();
  const Json& c = (*r.structured)["connectors"][0];
  EXPECT_EQ(c["state"], "RUNNING");
  EXPECT_EQ(c["verdict"], "unhealthy");
  EXPECT_EQ(c["tasks"][1]["state"], "FAILED");
  EXPECT_NE(c["tasks"][1]["trace_head"].get<std::string>().find("Quota exceeded"), std::string::npos);
  auto all = Call("get_connector_status", Json::object());
  ASSERT_FALSE(all.is_error);
  EXPECT_EQ((*all.structured)["connectors"].size(), 1u);
}

TEST_F(ConnectorsToolsTest, ErrorsSayWhatToDo) {
  auto missing = Call("get_connector_status", {{"connector", "nope"}});
  ASSERT_TRUE(missing.is_error);
  EXPECT_NE(missing.content[0]["text"].get<std::string>().find("without a connector to list them"), std::string::npos);
  auto platform = Call("get_connector_status", {{"platform", "flink"}});
  ASSERT_TRUE(platform.is_error);
  EXPECT_NE(platform.content[0]["text"].get<std::string>().find("configured: connect"), std::string::npos);
  auto bad_time = Call("get_change_timeline", {{"from", "yesterday"}});
  ASSERT_TRUE(bad_time.is_error);
  EXPECT_NE(bad_time.content[0]["text"].get<std::string>().find("'from'"), std::string::npos);
}

TEST_F(ConnectorsToolsTest, TimelineShowsWhatTheCollectorStored) {
  auto store = ws_.services()->state();
  ASSERT_TRUE(store.ok());
  auto pass = observe::changes::CollectChanges(ws_.services()->workspace(), ws_.services()->http(), **store, ws_.clock());
  ASSERT_TRUE(pass.ok());
  ASSERT_EQ(pass->new_events(), 1);  // first sight of an unhealthy connector
  auto r = Call("get_change_timeline", {{"asset_id", "connect://connect/bq-sink-balances"}});
  ASSERT_FALSE(r.is_error) << r.content.dump();
  ASSERT_EQ((*r.structured)["total"], 1);
  const Json& e = (*r.structured)["events"][0];
  EXPECT_EQ(e["kind"], "connector_state");
  EXPECT_EQ(e["evidence"]["verdict"], "unhealthy");
  EXPECT_EQ(e["happened_at"], "2026-11-24T19:03:20.000Z");
  auto none = Call("get_change_timeline", {{"kinds", {"restore"}}});
  ASSERT_FALSE(none.is_error);
  EXPECT_EQ((*none.structured)["total"], 0);
}

}  // namespace
}  // namespace dw::agents
