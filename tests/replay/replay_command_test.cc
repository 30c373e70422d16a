// `dw replay` end to end through the binary: a scenario that does not fit its workspace (an
// unknown platform or warehouse) exits 2 naming file, line and key; a replay runs the world's
// events and the product's jobs on the simulated clock, its verdicts are checked against what the
// product stored (an expectation that does not hold fails with what was seen), and --format json
// gives rows and verdicts as data.
#include <gtest/gtest.h>

#include "base/json.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw::replay {
namespace {
namespace replay_command_test {

using dw::testing::RunCommand;
using dw::testing::TempDir;

class ReplayCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.Write("workspace/dataworkers.yaml",
               "version: 1\nname: t\nwarehouses:\n  main: {type: sqlite, path: w.db}\n"
               "platforms:\n  connect: {type: kafka-connect, url: \"http://127.0.0.1:9\"}\n"
               "assets:\n  - id: connect://connect/bq-sink\n    writes: [table://main/orders]\n");
    dir_.Write("sim/connect.json",
               R"({"connectors": [{"name": "bq-sink", "type": "sink", "config": {"topics": "orders"},
                  "states": [{"at": "2026-11-24T08:00:00Z", "connector": "RUNNING", "tasks": ["RUNNING", "RUNNING"]},
                             {"at": "2026-11-24T09:10:00Z", "connector": "RUNNING",
                              "tasks": ["RUNNING", {"state": "FAILED", "trace": "org.apache.kafka.connect.errors.ConnectException: x\n\tat a.b(C.java:1)\n\tat d.e(F.java:2)\n\tat g.h(I.java:3)\nCaused by: com.google.cloud.bigquery.BigQueryException: Quota exceeded"}]}]}]})");
  }
  dw::testing::CommandResult Replay(const std::string& yaml, const std::string& extra = "") {
    dir_.Write("scenario.yaml", yaml);
    return RunCommand(std::string(DW_BINARY) + " replay '" + dir_.path().string() + "'" + extra);
  }
  TempDir dir_;
};

const char* kHead =
    "version: 1\nname: t\nstory: s\nworkspace: workspace\n"
    "clock:\n  start: 2026-11-24T08:00:00Z\n  end: 2026-11-24T10:00:00Z\n";

TEST_F(ReplayCommandTest, AnUnknownPlatformExitsTwoNamingTheLine) {
  auto r = Replay(std::string(kHead) + "platforms:\n  flink: sim/connect.json\nexpect:\n  - no_incident: {}\n");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("scenario.yaml:9: platforms.flink: no platform 'flink' in the workspace (it has: connect)"),
            std::string::npos) << r.err;
}

TEST_F(ReplayCommandTest, AnUnknownWarehouseExitsTwoNamingTheLine) {
  auto r = Replay(std::string(kHead) +
                  "events:\n  - at: 2026-11-24T09:00:00Z\n    warehouse: dwh\n    sql_inline: \"SELECT 1\"\n"
                  "expect:\n  - no_incident: {}\n");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("scenario.yaml:9: events[0].warehouse: no warehouse 'dwh' in the workspace (it has: main)"),
            std::string::npos) << r.err;
}

TEST_F(ReplayCommandTest, AWarehouseReachedOverAnApiMustBeSimulated) {
  // A Snowflake warehouse the scenario does not simulate would be the real service: refused.
  dir_.Write("workspace/dataworkers.yaml",
             "version: 1\nname: t\nwarehouses:\n  main: {type: sqlite, path: w.db}\n"
             "  sf: {type: snowflake, account: a, user: u, private_key: k.p8, database: D}\n");
  auto r = Replay(std::string(kHead) + "expect:\n  - no_incident: {}\n");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("warehouse 'sf' is snowflake: name its dw-sim script under warehouses:"), std::string::npos) << r.err;
  // A simulated SQLite warehouse makes no sense: named with its line.
  dir_.Write("sim/sf.json", "{}");
  r = Replay(std::string(kHead) + "warehouses:\n  main: sim/sf.json\n  sf: sim/sf.json\nexpect:\n  - no_incident: {}\n");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("scenario.yaml:9: warehouses.main: warehouse 'main' is sqlite; dw replay simulates snowflake and bigquery warehouses"),
            std::string::npos) << r.err;
}

TEST_F(ReplayCommandTest, AMalformedScenarioExitsTwo) {
  auto r = Replay("version: 2\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("scenario.yaml:1: version: only version 1 is known"), std::string::npos) << r.err;
}

TEST_F(ReplayCommandTest, TheClockDrivesTheSimulatorAndTheCollectorAndVerdictsComeFromTheStore) {
  // The task fails at 09:10: the collection pass after it records the connector's state change,
  // with the trace's first line and its last "Caused by:"; nothing before 09:10 can see it.
  auto r = Replay(std::string(kHead) +
                      "setup:\n  - warehouse: main\n    sql_inline: \"CREATE TABLE orders (id INTEGER)\"\n"
                      "platforms:\n  connect: sim/connect.json\n"
                      "events:\n  - at: 2026-11-24T09:10:00Z\n    system: Kafka Connect\n    says: Task 1 of bq-sink fails\n"
                      "  - at: 2026-11-24T09:20:00Z\n    warehouse: main\n    sql_inline: \"INSERT INTO orders VALUES (1)\"\n"
                      "expect:\n"
                      "  - change: {kind: connector_state, asset: connect://connect/bq-sink, present: true}\n"
                      "  - change: {kind: restore, asset: connect://connect/bq-sink, present: true}\n",
                  " --format json");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // the second expectation cannot hold
  Json j = Json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  EXPECT_FALSE(j["passed"].get<bool>());
  ASSERT_EQ(j["verdicts"].size(), 2u);
  EXPECT_TRUE(j["verdicts"][0]["ok"].get<bool>()) << j["verdicts"][0].dump();
  EXPECT_FALSE(j["verdicts"][1]["ok"].get<bool>());
  EXPECT_NE(j["verdicts"][1]["detail"].get<std::string>().find("connector_state"), std::string::npos)
      << j["verdicts"][1].dump();  // what was seen
  EXPECT_EQ(j["rows"][0]["at"], "2026-11-24T09:10:00.000Z");
  EXPECT_EQ(j["rows"][0]["system"], "Kafka Connect");
}

TEST_F(ReplayCommandTest, AnOpenLineageFileOfSeveralLinesArrivesLineByLineAndABadLineIsNamed) {
  // Three events (a START and COMPLETE of one run, then a JobEvent): posted as one body they were
  // refused as "not valid JSON" and the scenario's lineage never arrived.
  const std::string start =
      R"({"eventType": "START", "eventTime": "2026-11-24T09:00:00Z", "run": {"runId": "r1"},
          "job": {"namespace": "airflow", "name": "shop.load_orders"},
          "inputs": [{"namespace": "postgres://db:5432", "name": "shop.public.raw_orders"}]})";
  std::string one_line = start;
  for (char& c : one_line)
    if (c == '\n') c = ' ';
  const std::string complete =
      R"({"eventType": "COMPLETE", "eventTime": "2026-11-24T09:01:00Z", "run": {"runId": "r1"}, "job": {"namespace": "airflow", "name": "shop.load_orders"}, "outputs": [{"namespace": "postgres://db:5432", "name": "shop.public.orders"}]})";
  const std::string job_event =
      R"({"schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent", "job": {"namespace": "airflow", "name": "shop.report"}, "inputs": [{"namespace": "postgres://db:5432", "name": "shop.public.orders"}]})";
  dir_.Write("events.jsonl", one_line + "\n" + complete + "\n\n" + job_event + "\n");
  const std::string events = "events:\n  - at: 2026-11-24T09:05:00Z\n    system: Airflow\n    says: the load ran\n"
                             "    openlineage: events.jsonl\n";
  auto r = Replay(std::string(kHead) + events + "expect:\n  - no_incident: {}\n");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ((r.out + r.err).find("OpenLineage intake answered"), std::string::npos) << r.out << r.err;
  // The same file with its second line broken: the replay's problems name the line and why.
  dir_.Write("events.jsonl", one_line + "\n{\"run\": 1}\n" + job_event + "\n");
  r = Replay(std::string(kHead) + events + "expect:\n  - no_incident: {}\n");
  EXPECT_NE((r.out + r.err).find("line 2: the OpenLineage intake answered HTTP 400: {\"error\":\"$.run: expected an object\"}"),
            std::string::npos) << r.out << r.err;
}

TEST_F(ReplayCommandTest, AnApprovalTheProductCannotCarryOutFailsInTheVerdicts) {
  auto r = Replay(std::string(kHead) +
                  "events:\n  - at: 2026-11-24T09:00:00Z\n    person: {as: ana@example.com, does: approve, proposal: hold}\n"
                  "expect:\n  - change: {kind: restore, asset: connect://connect/bq-sink, present: false}\n",
                  " --format json");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  Json j = Json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  ASSERT_EQ(j["verdicts"].size(), 2u);
  EXPECT_FALSE(j["verdicts"][0]["ok"].get<bool>());
  EXPECT_NE(j["verdicts"][0]["detail"].get<std::string>().find("could not carry out"), std::string::npos);
  EXPECT_TRUE(j["verdicts"][1]["ok"].get<bool>());
}

// The owner's fix, verified: a check that fails opens the incident; the `fix` event's SQL repairs
// the rows and triggers the verification, which resolves the incident and writes a receipt whose
// chain verifies — each checked against the product's store, with the rows in the timeline.
TEST_F(ReplayCommandTest, AFixIsVerifiedAndTheResolutionLeavesAReceiptThatVerifies) {
  dir_.Write("workspace/dataworkers.yaml",
             "version: 1\nname: t\nwarehouses:\n  main: {type: sqlite, path: w.db}\n"
             "domains:\n  shop: {autonomy: L2, owners: [ana@example.com], approvers: [ana@example.com]}\n"
             "assets:\n  - {id: table://main/orders, domain: shop, owner: ana@example.com}\n"
             "checks:\n  - table: main.orders\n    range: {amount: {min: 0}}\n");
  const std::string yaml = std::string(kHead) +
      "setup:\n  - warehouse: main\n    sql_inline: \"CREATE TABLE orders (id INTEGER, amount INTEGER);"
      " INSERT INTO orders VALUES (1, 10), (2, -5), (3, 7);\"\n"
      "events:\n  - at: 2026-11-24T09:30:00Z\n    says: the owner repairs the rows\n"
      "    warehouse: main\n    sql_inline: \"UPDATE orders SET amount = 5 WHERE id = 2\"\n"
      "    person: {as: ana@example.com, does: fix}\n"
      "expect:\n  - incident: {asset: table://main/orders, verified: true, receipt: true}\n";
  auto r = Replay(yaml, " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  Json j = Json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  ASSERT_EQ(j["verdicts"].size(), 1u);
  EXPECT_TRUE(j["verdicts"][0]["ok"].get<bool>()) << j["verdicts"][0]["detail"];
  EXPECT_NE(j["verdicts"][0]["detail"].get<std::string>().find("receipt 1 verifies"), std::string::npos)
      << j["verdicts"][0]["detail"];
  bool verified_row = false, receipt_row = false;
  for (const auto& row : j["rows"]) {
    std::string what = row["what"];
    verified_row |= what.rfind("verified inc-", 0) == 0;
    receipt_row |= what.rfind("Receipt 1 written for inc-", 0) == 0;
  }
  EXPECT_TRUE(verified_row) << r.out;
  EXPECT_TRUE(receipt_row) << r.out;

  // Without the repair the same fix event verifies nothing: the incident stays open, unverified.
  auto unrepaired = Replay(std::string(kHead) +
      "setup:\n  - warehouse: main\n    sql_inline: \"CREATE TABLE orders (id INTEGER, amount INTEGER);"
      " INSERT INTO orders VALUES (1, 10), (2, -5), (3, 7);\"\n"
      "events:\n  - at: 2026-11-24T09:30:00Z\n    person: {as: ana@example.com, does: fix}\n"
      "expect:\n  - incident: {asset: table://main/orders, verified: false, receipt: false}\n", " --format json");
  EXPECT_EQ(unrepaired.exit_code, 0) << unrepaired.out << unrepaired.err;
  EXPECT_NE(unrepaired.out.find("verification of inc-"), std::string::npos) << unrepaired.out;
}

}  // namespace replay_command_test
}  // namespace
}  // namespace dw::replay
