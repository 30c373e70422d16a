// `dw check` end to end on the example workspaces: text and JSON output, exit codes a CI step can
// gate on (0 pass, 1 a check failed, 2 an error or a refused run), and --now to replay an example.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <sstream>

#include "base/json.h"
#include "tests/support/build_paths.h"
#include "tests/support/example_workspace.h"
#include "tests/support/subprocess.h"

namespace dw {
namespace {
namespace check_cli_test {

using testing::RunCommand;
using testing::TempDir;

const std::string kDw = DW_BINARY;

std::string Q(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

using testing::CopyExample;

TEST(CheckCliTest, LoyaltyExamplePassesAsOfItsOwnTime) {
  TempDir tmp;
  auto ws = CopyExample(tmp, "loyalty-flink");
  auto r = RunCommand(kDw + " --workspace " + Q(ws) + " --now 2026-11-24T14:00:00Z check");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("9 checks on 1 table: 9 passed, 0 failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("PASS   unique:member_id"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(ws / ".dw" / "state.db"));
}

TEST(CheckCliTest, StaleDataFailsFreshnessWithExitOne) {
  TempDir tmp;
  auto ws = CopyExample(tmp, "loyalty-flink");
  auto r = RunCommand(kDw + " --workspace " + Q(ws) + " --now 2026-11-24T16:00:00Z check");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL   freshness"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2h 4m old, older than 30m"), std::string::npos) << r.out;
}

TEST(CheckCliTest, EvExampleFindsTheNightsMismatches) {
  TempDir tmp;
  auto ws = CopyExample(tmp, "ev-kestra");
  auto r = RunCommand(kDw + " --workspace " + Q(ws) + " --now 2026-11-25T02:30:00Z check --format json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  Json report = Json::parse(r.out);
  EXPECT_EQ(report["status"], "fail");
  const Json& mismatches = report["tables"][0];
  EXPECT_EQ(mismatches["table"], "table://main/rate_mismatches");
  EXPECT_EQ(mismatches["checks"][0]["name"], "volume");
  EXPECT_EQ(mismatches["checks"][0]["status"], "fail");
  EXPECT_EQ(mismatches["checks"][0]["observed"]["rows_in_window"], 1946);
  const Json& sessions = report["tables"][1];
  for (const Json& c : sessions["checks"]) {
    if (c["name"] == "custom:sessions_rated_at_stale_tariff") {
      EXPECT_EQ(c["status"], "fail");
      EXPECT_EQ(c["observed"]["value"], 1946);
    } else {
      EXPECT_EQ(c["status"], "pass") << c.dump();
    }
  }
}

// --no-record stores nothing, so a first run must not say it set a baseline; the next recorded run
// is still a first run.
TEST(CheckCliTest, NoRecordSaysNoBaselineWasSetAndStoresNone) {
  TempDir tmp;
  auto ws = CopyExample(tmp, "loyalty-flink");
  const std::string dw = kDw + " --workspace " + Q(ws) + " --now 2026-11-24T14:00:00Z check ";
  auto dry = RunCommand(dw + "--no-record");
  EXPECT_EQ(dry.exit_code, 0) << dry.out << dry.err;
  EXPECT_EQ(dry.out.find("baseline of"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("not recorded, so no baseline is set"), std::string::npos) << dry.out;
  auto recorded = RunCommand(dw);
  EXPECT_EQ(recorded.exit_code, 0) << recorded.out << recorded.err;
  EXPECT_NE(recorded.out.find("first run: baseline of"), std::string::npos) << recorded.out;
}

// A warehouse that cannot be reached fails every check of every table the same way: the text
// output says the error once, not once per check; the JSON keeps every check's own.
TEST(CheckCliTest, AnUnreachableWarehouseIsSaidOnce) {
  TempDir tmp;
  tmp.Write("dataworkers.yaml",
            "version: 1\nname: w\nwarehouses:\n"
            "  pg: {type: postgres, dsn: \"postgresql://dw@127.0.0.1:1/nowhere?connect_timeout=2\"}\n"
            "checks:\n"
            "  - {table: pg.public.orders, not_null: [id, amount, customer], unique: [id], volume: {min_rows: 1}}\n"
            "  - {table: pg.public.customers, not_null: [id, email], unique: [id, email]}\n");
  auto r = RunCommand(kDw + " --workspace " + Q(tmp.path()) + " check");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  size_t lines_with_error = 0, same = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    lines_with_error += line.find("127.0.0.1") != std::string::npos;
    same += line.find("checks: the same error as table://pg/") != std::string::npos;
  }
  EXPECT_EQ(lines_with_error, 1u) << r.out;
  EXPECT_EQ(same, 1u) << r.out;
  auto json = RunCommand(kDw + " --workspace " + Q(tmp.path()) + " check --no-record --format json");
  Json report = Json::parse(json.out);
  for (const Json& t : report["tables"])
    for (const Json& c : t["checks"]) EXPECT_EQ(c["status"], "error") << c.dump();
}

TEST(CheckCliTest, ErrorsAndRefusalsExitTwo) {
  TempDir tmp;
  auto ws = CopyExample(tmp, "loyalty-flink");
  const std::string dw = kDw + " --workspace " + Q(ws) + " --now 2026-11-24T14:00:00Z check ";
  auto unknown = RunCommand(dw + "main.member_balance");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("closest: table://main/member_balances"), std::string::npos) << unknown.err;
  auto since = RunCommand(dw + "--since yesterday");
  EXPECT_EQ(since.exit_code, 2);
  EXPECT_NE(since.err.find("since: 'yesterday'"), std::string::npos) << since.err;
  auto budget = RunCommand(dw + "--max-scan-rows 100");
  EXPECT_EQ(budget.exit_code, 2);
  EXPECT_NE(budget.err.find("over its budget of 100"), std::string::npos) << budget.err;
  auto now = RunCommand(kDw + " --workspace " + Q(ws) + " --now soon check");
  EXPECT_EQ(now.exit_code, 2);
  EXPECT_NE(now.err.find("--now"), std::string::npos);
}

TEST(CheckCliTest, IncrementalRunAndSelectedChecks) {
  TempDir tmp;
  auto ws = CopyExample(tmp, "loyalty-flink");
  auto r = RunCommand(kDw + " --workspace " + Q(ws) +
                      " --now 2026-11-24T14:00:00Z check --since 10m --checks not_null,freshness --format json");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  Json report = Json::parse(r.out);
  EXPECT_TRUE(report["incremental"].get<bool>());
  EXPECT_EQ(report["summary"]["checks"], 3);
  EXPECT_LT(report["tables"][0]["rows_scanned"].get<int>(), 500);
}

}  // namespace check_cli_test
}  // namespace
}  // namespace dw
