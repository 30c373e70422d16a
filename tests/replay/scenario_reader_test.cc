// A malformed scenario names the file, the line and the key; a scenario that refers to a missing
// file, or whose times are out of order or outside its clock, is refused before anything runs.
#include "replay/replay.h"

#include <gtest/gtest.h>

#include "tests/support/subprocess.h"

namespace dw::replay {
namespace {
namespace scenario_reader_test {

using dw::testing::TempDir;

// A scenario folder with a minimal workspace; `yaml` is scenario.yaml.
class ScenarioReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.Write("workspace/dataworkers.yaml", "version: 1\nname: t\nwarehouses:\n  main: {type: sqlite, path: w.db}\n");
    dir_.Write("sql/seed.sql", "CREATE TABLE t (x INTEGER);\n");
  }
  Result<Scenario> Read(const std::string& yaml) {
    dir_.Write("scenario.yaml", yaml);
    return ReadScenario(dir_.path());
  }
  // The error message, which must name scenario.yaml and `line`.
  std::string Error(const std::string& yaml, int line) {
    auto s = Read(yaml);
    EXPECT_FALSE(s.ok());
    if (s.ok()) return "";
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
    std::string want = (dir_.path() / "scenario.yaml").string() + ":" + std::to_string(line) + ": ";
    EXPECT_EQ(s.status().message().rfind(want, 0), 0u) << s.status().message();
    return s.status().message();
  }
  TempDir dir_;
};

const char* kHead =
    "version: 1\n"                       // 1
    "name: t-1\n"                        // 2
    "story: a story\n"                   // 3
    "workspace: workspace\n"             // 4
    "clock:\n"                           // 5
    "  start: 2026-11-24T08:00:00Z\n"    // 6
    "  end: 2026-11-24T12:00:00Z\n";     // 7

TEST_F(ScenarioReaderTest, AWellFormedScenarioIsReadWithEveryKey) {
  auto s = Read(std::string(kHead) +
                "setup:\n  - warehouse: main\n    sql: sql/seed.sql\n"
                "events:\n"
                "  - at: 2026-11-24T09:00:00Z\n    system: Warehouse\n    says: rows\n    warehouse: main\n    sql_inline: \"INSERT INTO t VALUES (1)\"\n"
                "  - at: 2026-11-24T09:20:00Z\n    metric: {name: m, value: 412}\n"
                "  - at: 2026-11-24T10:00:00Z\n    person: {as: ana@example.com, does: approve, proposal: hold}\n"
                "expect:\n"
                "  - incident:\n      asset: table://main/t\n      opened_by: 2026-11-24T09:30:00Z\n"
                "      cause: {kind: [restore_skipped_state, restore], asset: flink://flink/j, evidence_contains: x}\n"
                "      severity: SEV2\n      acts_next: {asset: sync://h/s, at: 2026-11-24T22:00:00Z}\n"
                "  - no_incident: {}\n"
                "  - change: {kind: restore, asset: flink://flink/j, present: false}\n"
                "  - tool: {agent: dw-schema, name: check_compatibility, arguments: {subject: s, n: 3}, result_contains: [a]}\n");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->name, "t-1");
  ASSERT_EQ(s->events.size(), 3u);
  EXPECT_EQ(s->events[0].line, 12);
  EXPECT_EQ(s->events[1].metric->value, 412);
  EXPECT_EQ(s->events[2].person->proposal, "hold");
  EXPECT_EQ(s->events[2].system, "Owner");
  ASSERT_EQ(s->expect.size(), 4u);
  EXPECT_EQ(s->expect[0].incident->cause->kinds.size(), 2u);
  EXPECT_EQ(s->expect[0].incident->cause->evidence_contains, std::vector<std::string>{"x"});
  EXPECT_TRUE(s->expect[1].no_incident->asset.empty());
  EXPECT_FALSE(s->expect[2].change->present);
  EXPECT_EQ(s->expect[3].tool->arguments["n"], 3);
  EXPECT_EQ(s->expect[3].tool->arguments["subject"], "s");
}

TEST_F(ScenarioReaderTest, AnUnknownKeyIsNamedWithItsLine) {
  std::string m = Error(std::string(kHead) + "expect:\n  - no_incident: {}\nplatfroms: {}\n", 10);
  EXPECT_NE(m.find("platfroms: unknown key"), std::string::npos) << m;
}

TEST_F(ScenarioReaderTest, AMissingRequiredKeyNamesTheMappingItIsMissingFrom) {
  std::string m = Error(std::string(kHead) + "events:\n  - system: Flink\n    says: x\nexpect:\n  - no_incident: {}\n", 9);
  EXPECT_NE(m.find("events[0].at: is required"), std::string::npos) << m;
}

TEST_F(ScenarioReaderTest, ABadTimeIsQuoted) {
  std::string m = Error("version: 1\nname: t\nstory: s\nworkspace: workspace\nclock:\n  start: yesterday\n  end: 2026-11-24T12:00:00Z\nexpect:\n  - no_incident: {}\n", 6);
  EXPECT_NE(m.find("clock.start: expected an RFC 3339 time"), std::string::npos) << m;
  EXPECT_NE(m.find("'yesterday'"), std::string::npos) << m;
}

TEST_F(ScenarioReaderTest, EventsOutOfOrderAreRefused) {
  std::string m = Error(std::string(kHead) +
                            "events:\n  - at: 2026-11-24T10:00:00Z\n    says: a\n  - at: 2026-11-24T09:00:00Z\n    says: b\n"
                            "expect:\n  - no_incident: {}\n",
                        11);
  EXPECT_NE(m.find("events[1].at"), std::string::npos) << m;
  EXPECT_NE(m.find("earlier than the event before it"), std::string::npos) << m;
}

TEST_F(ScenarioReaderTest, AnEventOutsideTheClockIsRefused) {
  std::string m = Error(std::string(kHead) + "events:\n  - at: 2026-11-24T13:00:00Z\n    says: late\nexpect:\n  - no_incident: {}\n", 9);
  EXPECT_NE(m.find("is outside the clock"), std::string::npos) << m;
  m = Error(std::string(kHead) + "expect:\n  - incident: {asset: table://main/t, opened_by: 2026-11-23T00:00:00Z}\n", 9);
  EXPECT_NE(m.find("opened_by: is outside the clock"), std::string::npos) << m;
}

TEST_F(ScenarioReaderTest, AMissingFileIsNamed) {
  std::string m = Error(std::string(kHead) + "setup:\n  - warehouse: main\n    sql: sql/nope.sql\nexpect:\n  - no_incident: {}\n", 10);
  EXPECT_NE(m.find("setup[0].sql: no such file"), std::string::npos) << m;
  EXPECT_NE(m.find("nope.sql"), std::string::npos) << m;
  m = Error(std::string(kHead) + "platforms:\n  flink: sim/flink.json\nexpect:\n  - no_incident: {}\n", 9);
  EXPECT_NE(m.find("platforms.flink: no such file"), std::string::npos) << m;
}

TEST_F(ScenarioReaderTest, AClockThatEndsBeforeItStartsIsRefused) {
  std::string m = Error("version: 1\nname: t\nstory: s\nworkspace: workspace\nclock:\n  start: 2026-11-24T12:00:00Z\n  end: 2026-11-24T08:00:00Z\nexpect:\n  - no_incident: {}\n", 7);
  EXPECT_NE(m.find("clock.end: must be later than clock.start"), std::string::npos) << m;
}

TEST_F(ScenarioReaderTest, BadValuesNameTheirKey) {
  EXPECT_NE(Error(std::string(kHead) + "expect:\n  - incident: {asset: a, severity: SEV5}\n", 9).find("severity: expected SEV1"),
            std::string::npos);
  EXPECT_NE(Error(std::string(kHead) + "events:\n  - at: 2026-11-24T09:00:00Z\n    person: {as: a@b.c, does: deploy}\nexpect:\n  - no_incident: {}\n", 10)
                .find("person.does: expected approve"),
            std::string::npos);
  EXPECT_NE(Error(std::string(kHead) + "events:\n  - at: 2026-11-24T09:00:00Z\n    metric: {name: m, value: lots}\nexpect:\n  - no_incident: {}\n", 10)
                .find("metric.value: expected a finite number"),
            std::string::npos);
  EXPECT_NE(Error(std::string(kHead) + "expect:\n  - tool: {agent: a, name: b}\n    extra: 1\n", 9).find("exactly one key"),
            std::string::npos);
  EXPECT_NE(Error("version: 1\nname: Bad_Name\n", 2).find("name: must match [a-z0-9-]+"), std::string::npos);
  EXPECT_NE(Error(std::string(kHead) + "expect: []\n", 8).find("expect: is required"), std::string::npos);
  EXPECT_NE(Error(std::string(kHead) + "events:\n  - at: 2026-11-24T09:00:00Z\n    warehouse: main\nexpect:\n  - no_incident: {}\n", 9)
                .find("needs exactly one of sql"),
            std::string::npos);
}

TEST_F(ScenarioReaderTest, AYamlSyntaxErrorNamesItsLine) {
  std::string m = Error(std::string(kHead) + "expect:\n  - no_incident: {asset: [\n", 10);
  EXPECT_NE(m.find("(syntax)"), std::string::npos) << m;
}

TEST_F(ScenarioReaderTest, AWorkspaceWithoutDataworkersYamlIsRefused) {
  dir_.Write("empty/readme.txt", "");
  std::string m = Error("version: 1\nname: t\nstory: s\nworkspace: empty\n", 4);
  EXPECT_NE(m.find("no dataworkers.yaml"), std::string::npos) << m;
}

}  // namespace scenario_reader_test
}  // namespace
}  // namespace dw::replay
