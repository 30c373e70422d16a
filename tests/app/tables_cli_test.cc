// `dw tables` on the loyalty example: with --refresh a metadata pass reads the SQLite catalog and
// every table is listed learning, with the checks the workspace declares beside it; the next pass
// sees a load (rows written, last load); a pattern narrows the list; `auto_monitor: false` says
// it is off. Nothing is queried without --refresh.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>

#include "base/json.h"
#include "tests/support/build_paths.h"
#include "tests/support/example_workspace.h"
#include "tests/support/subprocess.h"

namespace dw {
namespace {

using testing::CommandResult;
using testing::RunCommand;
using testing::TempDir;

class TablesCliTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::CopyExample(tmp_, "loyalty-flink"); }
  CommandResult Dw(const std::string& args) {
    return RunCommand(std::string(DW_BINARY) + " -w '" + dir_.string() + "' " + args);
  }
  void Sql(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir_ / "warehouse.db").c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
    sqlite3_free(err);
    sqlite3_close(db);
  }
  TempDir tmp_;
  std::filesystem::path dir_;
};

TEST_F(TablesCliTest, ARefreshListsEveryTableLearningWithItsDeclaredChecksThenSeesALoad) {
  CommandResult before = Dw("tables --now 2026-11-24T14:00:00Z");
  EXPECT_EQ(before.exit_code, 0) << before.err;
  EXPECT_NE(before.out.find("no table watched yet"), std::string::npos) << before.out;

  CommandResult first = Dw("tables --refresh --now 2026-11-24T14:00:00Z");
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_NE(first.out.find("warehouse main: "), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("main.member_balances: learning"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("learning until 2026-12-01T14:00:00Z"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("declared checks: "), std::string::npos) << first.out;

  const int64_t rows_before = [&] {
    CommandResult j = Dw("tables main.member_balances --format json --now 2026-11-24T14:00:00Z");
    Json doc = Json::parse(j.out, nullptr, false);
    return doc.is_object() && !doc["tables"].empty() ? doc["tables"][0].value("row_count", int64_t{-1}) : -1;
  }();
  ASSERT_GE(rows_before, 0);
  Sql("INSERT INTO member_balances (member_id, tier, balance, updated_at) SELECT member_id + 100000, tier, balance, "
      "updated_at FROM member_balances LIMIT 7");
  CommandResult second = Dw("tables main.member_balances --refresh --format json --now 2026-11-24T14:15:00Z");
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  Json doc = Json::parse(second.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << second.out;
  ASSERT_EQ(doc["tables"].size(), 1u) << second.out;
  const Json& t = doc["tables"][0];
  EXPECT_EQ(t["table"], "main.member_balances");
  EXPECT_EQ(t["verdict"], "learning");
  EXPECT_EQ(t["loads_seen"], 1);
  EXPECT_EQ(t["rows_last_load"], 7);
  EXPECT_EQ(t["row_count"], rows_before + 7);
  EXPECT_EQ(t["last_load"], "2026-11-24T14:15:00Z");
  EXPECT_EQ(t["monitors"], Json::array({"volume", "freshness", "schema"}));
  EXPECT_FALSE(t["declared"].empty());
  ASSERT_EQ(doc["passes"].size(), 1u);
  EXPECT_EQ(doc["passes"][0]["catalog_statements"], 2);

  CommandResult none = Dw("tables 'main.nothing*' --now 2026-11-24T14:15:00Z");
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_NE(none.out.find("no watched table matches main.nothing*"), std::string::npos) << none.out;
}

TEST_F(TablesCliTest, DwWatchRunsTheMetadataPassAsItsTablesJob) {
  CommandResult r = Dw("watch --once --now 2026-11-24T14:00:00Z");
  EXPECT_NE(r.out.find("tables main: 1 watched (1 learning, 0 late)"), std::string::npos) << r.out << r.err;
  CommandResult listed = Dw("tables --format json --now 2026-11-24T14:05:00Z");
  Json doc = Json::parse(listed.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << listed.out;
  ASSERT_EQ(doc["tables"].size(), 1u);
  EXPECT_EQ(doc["tables"][0]["first_seen"], "2026-11-24T14:00:00Z");
}

TEST_F(TablesCliTest, AutoMonitorFalseSaysItIsOffAndReadsNothing) {
  std::ofstream(dir_ / "dataworkers.yaml", std::ios::app) << "\nauto_monitor: false\n";
  CommandResult r = Dw("tables --refresh --now 2026-11-24T14:00:00Z");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("auto_monitor is off"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("warehouse main: "), std::string::npos) << r.out;
  CommandResult watch = Dw("watch --once --now 2026-11-24T14:00:00Z");
  EXPECT_EQ(watch.out.find(" tables main"), std::string::npos) << watch.out;
}

}  // namespace
}  // namespace dw
