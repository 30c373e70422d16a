// Notification receivers in `dw replay`: a scenario's `receivers:` start dw-sim receivers that the
// scratch workspace's channels point at, the outbox is delivered by the real `dw watch` job on the
// simulated clock, and `message` / `alert` expectations are checked against what the receivers
// accepted: exactly once holds, a count that does not fails with what was seen (exit 1), and a
// malformed key or a channel without a receiver exits 2 naming file, line and key.
#include <gtest/gtest.h>

#include "base/json.h"
#include "platforms/notify/notice.h"
#include "replay/notify_receivers.h"
#include "replay/replay.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw::replay {
namespace {

using dw::testing::RunCommand;
using dw::testing::TempDir;

// The sink's task fails at 08:10 and a row below zero lands at 08:20: the 09:01 check run opens the
// incident with the connector's state ranked first, its proposals go to ana for approval (bob, the
// domain's other owner, copied), the owner repairs the row at 09:30 and the verification resolves
// the incident with a receipt: open, approval request, resolution, on three channels.
class ReplayNotifyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteWorkspace("  slack: {webhook: \"https://hooks.slack.example/services/T0/B0/secret\"}\n"
                   "  opsgenie: {api_key: \"genie-secret\"}\n"
                   "  email: {smtp: \"smtps://smtp.example.com:465\", from: dw@example.com}\n"
                   "  routes:\n"
                   "    - {channels: [slack, email], events: [approval_requested]}\n"
                   "    - {channels: [opsgenie], events: [open, resolved]}\n");
    dir_.Write("sim/connect.json",
               R"({"connectors": [{"name": "bq-sink", "type": "sink", "config": {"topics": "orders"},
                  "states": [{"at": "2026-11-24T08:00:00Z", "connector": "RUNNING", "tasks": ["RUNNING", "RUNNING"]},
                             {"at": "2026-11-24T08:10:00Z", "connector": "RUNNING",
                              "tasks": ["RUNNING", {"state": "FAILED", "trace": "org.apache.kafka.connect.errors.ConnectException: x"}]}]}]})");
  }
  void WriteWorkspace(const std::string& notify) {
    dir_.Write("workspace/dataworkers.yaml",
               "version: 1\nname: t\nwarehouses:\n  main: {type: sqlite, path: w.db}\n"
               "platforms:\n  connect: {type: kafka-connect, url: \"http://127.0.0.1:9\"}\n"
               "domains:\n  shop: {autonomy: L2, owners: [ana@example.com, bob@example.com], approvers: [ana@example.com]}\n"
               "assets:\n  - {id: connect://connect/bq-sink, domain: shop, writes: [table://main/orders]}\n"
               "  - {id: table://main/orders, domain: shop, owner: ana@example.com}\n"
               "checks:\n  - table: main.orders\n    range: {amount: {min: 0}}\n"
               "notify:\n" + notify);
  }
  dw::testing::CommandResult Replay(const std::string& receivers, const std::string& expect) {
    dir_.Write("scenario.yaml",
               "version: 1\nname: t\nstory: s\nworkspace: workspace\n"
               "clock:\n  start: 2026-11-24T08:00:00Z\n  end: 2026-11-24T10:00:00Z\n"
               "setup:\n  - warehouse: main\n    sql_inline: \"CREATE TABLE orders (id INTEGER, amount INTEGER);"
               " INSERT INTO orders VALUES (1, 10), (3, 7);\"\n"
               "platforms:\n  connect: sim/connect.json\n" +
                   receivers +
                   "events:\n  - at: 2026-11-24T08:20:00Z\n    warehouse: main\n"
                   "    sql_inline: \"INSERT INTO orders VALUES (2, -5)\"\n"
                   "  - at: 2026-11-24T09:30:00Z\n    says: the owner repairs the rows\n"
                   "    warehouse: main\n    sql_inline: \"UPDATE orders SET amount = 5 WHERE id = 2\"\n"
                   "    person: {as: ana@example.com, does: fix}\n"
                   "expect:\n" +
                   expect);
    return RunCommand(std::string(DW_BINARY) + " replay '" + dir_.path().string() + "' --format json");
  }
  TempDir dir_;
};

const char* kReceivers = "receivers:\n  slack: {}\n  opsgenie: {api_key: genie-secret}\n  email: {}\n";

TEST_F(ReplayNotifyTest, EachMessageArrivesOnceAndTheAlertIsClosedWithTheReceipt) {
  auto r = Replay(kReceivers,
                  "  - message: {channel: opsgenie, event: open, count: 1, contains: [table://main/orders]}\n"
                  "  - message: {channel: slack, event: approval_requested, count: 1, to: [ana@example.com], cc: [bob@example.com]}\n"
                  "  - message: {channel: slack, count: 1}\n"
                  "  - message: {channel: email, event: approval_requested, count: 1, to: [ana@example.com], cc: [bob@example.com]}\n"
                  "  - message: {channel: opsgenie, event: resolved, count: 1}\n"
                  "  - alert: {channel: opsgenie, state: closed, count: 1, note_contains: [receipt 1]}\n"
                  "  - alert: {channel: opsgenie, state: open, count: 0}\n");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  Json j = Json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  ASSERT_EQ(j["verdicts"].size(), 7u);
  for (const auto& v : j["verdicts"]) EXPECT_TRUE(v["ok"].get<bool>()) << v.dump();
  // The timeline tells when the delivery job sent each one.
  bool slack_row = false, close_row = false;
  for (const auto& row : j["rows"]) {
    std::string what = row["what"];
    slack_row |= what.rfind("slack: approval_requested sent for inc-", 0) == 0;
    close_row |= what.rfind("opsgenie: resolved sent for inc-", 0) == 0;
  }
  EXPECT_TRUE(slack_row) << r.out;
  EXPECT_TRUE(close_row) << r.out;
  // The workspace's secrets never reached the printed report.
  EXPECT_EQ(r.out.find("genie-secret"), std::string::npos);
  EXPECT_EQ(r.out.find("/B0/secret"), std::string::npos);
}

TEST_F(ReplayNotifyTest, ACountThatDoesNotHoldFailsWithWhatTheReceiverAccepted) {
  auto r = Replay(kReceivers,
                  "  - message: {channel: slack, event: approval_requested, count: 2}\n"
                  "  - message: {channel: slack, event: approval_requested, contains: [no such words]}\n"
                  "  - message: {channel: slack, event: approval_requested, cc: [carol@example.com]}\n"
                  "  - alert: {channel: opsgenie, state: open}\n");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  Json j = Json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  ASSERT_EQ(j["verdicts"].size(), 4u);
  for (const auto& v : j["verdicts"]) EXPECT_FALSE(v["ok"].get<bool>()) << v.dump();
  std::string count = j["verdicts"][0]["detail"];
  EXPECT_NE(count.find("2 slack messages (approval_requested), but 1 arrived"), std::string::npos) << count;
  EXPECT_NE(count.find("approval_requested: [SEV"), std::string::npos) << count;  // what was seen
  EXPECT_NE(j["verdicts"][1]["detail"].get<std::string>().find("holds 'no such words'"), std::string::npos);
  EXPECT_NE(j["verdicts"][2]["detail"].get<std::string>().find("copies bob@example.com"), std::string::npos)
      << j["verdicts"][2].dump();
  EXPECT_NE(j["verdicts"][3]["detail"].get<std::string>().find("closed"), std::string::npos) << j["verdicts"][3].dump();

  // The text report prints FAILED with the same words.
  auto text = RunCommand(std::string(DW_BINARY) + " replay '" + dir_.path().string() + "'");
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("FAILED  2 slack messages (approval_requested) (scenario.yaml:"), std::string::npos) << text.out;
}

TEST_F(ReplayNotifyTest, ARefusedAttemptIsRetriedAndCountsOnce) {
  // Slack answers the first post 429 and Opsgenie the first create 500: the delivery job's retry,
  // on the simulated clock, lands each once.
  auto r = Replay("receivers:\n"
                  "  slack: {faults: [{method: POST, path: \"/services/*\", status: 429, times: 1}]}\n"
                  "  opsgenie: {faults: [{method: POST, path: /v2/alerts, status: 500, times: 1}]}\n"
                  "  email: {fail: [{at: data, code: 451, times: 1}]}\n",
                  "  - message: {channel: slack, event: approval_requested, count: 1}\n"
                  "  - message: {channel: opsgenie, event: open, count: 1}\n"
                  "  - message: {channel: email, event: approval_requested, count: 1}\n"
                  "  - alert: {channel: opsgenie, state: closed, count: 1}\n");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST_F(ReplayNotifyTest, ASlackMessageEditedAsTheIncidentMovesIsOneMessage) {
  // With a bot token every later event edits the incident's message (chat.update): one message
  // that told open, the approval request and the resolution.
  WriteWorkspace("  slack: {token: \"xoxb-secret\", channel: C0SHOP}\n");
  auto r = Replay("receivers:\n  slack: {token: xoxb-secret, channels: [C0SHOP]}\n",
                  "  - message: {channel: slack, count: 1}\n"
                  "  - message: {channel: slack, event: open, count: 1}\n"
                  "  - message: {channel: slack, event: approval_requested, count: 1}\n"
                  "  - message: {channel: slack, event: resolved, count: 1}\n"
                  "  - message: {channel: slack, event: open, count: 2}\n");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // the last one cannot hold
  Json j = Json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  ASSERT_EQ(j["verdicts"].size(), 5u);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(j["verdicts"][i]["ok"].get<bool>()) << j["verdicts"][i].dump();
  EXPECT_NE(j["verdicts"][0]["detail"].get<std::string>().find("edit(s)"), std::string::npos) << j["verdicts"][0].dump();
  std::string failed = j["verdicts"][4]["detail"];
  EXPECT_NE(failed.find("but 1 arrived"), std::string::npos) << failed;
  EXPECT_NE(failed.find("(an edit) resolved: [SEV"), std::string::npos) << failed;
}

TEST_F(ReplayNotifyTest, PagerDutyTriggersAndResolvesOneIncident) {
  WriteWorkspace("  pagerduty: {routing_key: \"pd-secret\"}\n");
  auto r = Replay("receivers:\n  pagerduty: {routing_keys: [pd-secret]}\n",
                  "  - message: {channel: pagerduty, event: open, count: 1, contains: [table://main/orders]}\n"
                  "  - message: {channel: pagerduty, event: resolved, count: 1}\n"
                  "  - alert: {channel: pagerduty, state: resolved, count: 1}\n"
                  "  - alert: {channel: pagerduty, state: triggered, count: 0}\n");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("pd-secret"), std::string::npos);
}

TEST_F(ReplayNotifyTest, WithoutReceiversTheChannelsAreLeftOut) {
  auto r = Replay("", "  - incident: {asset: table://main/orders, verified: true}\n");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  Json j = Json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  EXPECT_NE(j["errors"].dump().find("notify channel slack has no receiver in the scenario: left out of the replay"),
            std::string::npos) << j["errors"].dump();
}

TEST_F(ReplayNotifyTest, AReceiverForAChannelTheWorkspaceLacksExitsTwo) {
  auto r = Replay("receivers:\n  teams: {}\n", "  - message: {channel: teams}\n");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("scenario.yaml:14: receivers.teams: no channel 'teams' under the workspace's notify: "
                       "(it has: email, opsgenie, slack)"),
            std::string::npos) << r.err;
}

TEST_F(ReplayNotifyTest, MalformedMessageAndAlertKeysExitTwoWithFileLineAndKey) {
  struct Case {
    std::string expect, error;
  };
  for (const Case& c : std::vector<Case>{
           {"  - message: {channel: slack, event: opened}\n", "scenario.yaml:27: expect[0].message.event: expected open,"},
           {"  - message: {channel: slack, count: -1}\n", "scenario.yaml:27: expect[0].message.count: expected a whole number"},
           {"  - message: {channel: slack, sent_to: [a]}\n", "scenario.yaml:27: expect[0].message.sent_to: unknown key"},
           {"  - message: {channel: teams}\n", "scenario.yaml:27: expect[0].message.channel: no receiver 'teams' in the scenario"},
           {"  - alert: {channel: opsgenie, state: resolved}\n", "scenario.yaml:27: expect[0].alert.state: an Opsgenie alert is open or closed"},
           {"  - alert: {channel: slack, state: open}\n", "scenario.yaml:27: expect[0].alert.channel: alerts are kept by opsgenie or pagerduty"},
       }) {
    auto r = Replay(kReceivers, c.expect);
    EXPECT_EQ(r.exit_code, 2) << c.expect << r.out << r.err;
    EXPECT_NE(r.err.find(c.error), std::string::npos) << c.expect << r.err;
  }
  auto bad_receiver = Replay("receivers:\n  sms: {}\n", "  - no_incident: {}\n");
  EXPECT_EQ(bad_receiver.exit_code, 2);
  EXPECT_NE(bad_receiver.err.find("scenario.yaml:14: receivers.sms: not a notification channel"), std::string::npos)
      << bad_receiver.err;
}

// The replay reads the event from the headline words platforms/notify/ writes, and a scenario may
// name every event: the three agree on every kind the notify stage has (a kind added there fails
// here until the replay knows its words).
TEST(ReplayNotifyHeadlineTest, EveryEventIsReadBackFromItsHeadlineAndCanBeExpected) {
  TempDir dir;
  dir.Write("workspace/dataworkers.yaml", "version: 1\nname: t\n");
  int kinds = 0;
  for (int k = 0;; ++k) {
    auto kind = static_cast<platforms::notify::EventKind>(k);
    const std::string name = platforms::notify::EventKindName(kind);
    if (name == "unknown") break;
    ++kinds;
    platforms::notify::IncidentNotice n;
    n.incident_id = "inc-1";
    n.severity = "SEV2";
    n.title = "orders: 3 rows below zero";
    n.event = kind;
    EXPECT_EQ(EventOfHeadline(platforms::notify::Headline(n)), name) << platforms::notify::Headline(n);
    dir.Write("scenario.yaml",
              "version: 1\nname: t\nstory: s\nworkspace: workspace\n"
              "clock: {start: 2026-11-24T08:00:00Z, end: 2026-11-24T09:00:00Z}\n"
              "receivers: {slack: {}}\nexpect:\n  - message: {channel: slack, event: " + name + "}\n");
    auto read = ReadScenario(dir.path());
    EXPECT_TRUE(read.ok()) << name << ": " << read.status().message();
  }
  EXPECT_GE(kinds, 7);
  EXPECT_EQ(EventOfHeadline("Test message from Data Workers"), "");
}

}  // namespace
}  // namespace dw::replay
