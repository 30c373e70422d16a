// `dw incidents ...` through the real binary, at a fixed --now: a scan opens the incident from a
// failed check stored by an earlier `dw check`, and a person moves it.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "base/rfc3339.h"
#include "store/state_store.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw {
namespace {

using testing::RunCommand;
using testing::TempDir;

TEST(IncidentsCliTest, ScanListShowDiagnoseAndAPersonsTransitions) {
  TempDir tmp;
  tmp.Write("dataworkers.yaml",
            "version: 1\nname: w\nwarehouses:\n  main: {type: sqlite, path: w.db}\n"
            "assets:\n"
            "  - id: flink://flink/job\n    owner: ana@example.com\n    writes: [table://main/t]\n"
            "  - id: sync://hightouch/emails\n    reads: [table://main/t]\n    schedule: \"0 22 * * *\"\n"
            "    customer_facing: true\n"
            "checks:\n  - table: main.t\n    not_null: [id]\n");
  {
    auto store = store::OpenStateStore((tmp.path() / ".dw" / "state.db").string());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store::CheckResultRow row;
    row.run_id = "r1";
    row.table_ref = "table://main/t";
    row.check_name = "not_null:id";
    row.status = store::CheckStatus::kFail;
    row.observed = {{"null_count", 7}, {"null_rate", 0.07}, {"rows", 100}};
    row.observed_at = *ParseRfc3339("2026-11-24T15:00:00Z");
    ASSERT_TRUE((*store)->RecordCheckResults({row}).ok());
    store::ChangeEvent e;
    e.dedup_key = "deploy-1";
    e.asset_id = "flink://flink/job";
    e.kind = "deploy";
    e.happened_at = *ParseRfc3339("2026-11-24T14:00:00Z");
    e.observed_at = e.happened_at;
    e.risk = 0.4;
    e.reason = "a new run of the job started";
    ASSERT_TRUE((*store)->AddChangeEvent(e).ok());
  }
  std::string dw = std::string(DW_BINARY) + " --workspace '" + tmp.path().string() + "' --now 2026-11-24T15:05:00Z";

  auto scan = RunCommand(dw + " incidents scan --format json");
  ASSERT_EQ(scan.exit_code, 0) << scan.err;
  Json r = Json::parse(scan.out);
  ASSERT_EQ(r["opened"].size(), 1u) << scan.out;
  std::string id = r["opened"][0];

  auto list = RunCommand(dw + " incidents list --status open");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find(id), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("SEV1"), std::string::npos) << list.out;

  auto diagnose = RunCommand(dw + " incidents diagnose " + id);
  ASSERT_EQ(diagnose.exit_code, 0) << diagnose.err;
  EXPECT_NE(diagnose.out.find("1. deploy on flink://flink/job"), std::string::npos) << diagnose.out;

  auto agent = RunCommand(dw + " incidents ack " + id + " --as dw");
  EXPECT_EQ(agent.exit_code, 2);
  EXPECT_NE(agent.err.find("email"), std::string::npos) << agent.err;
  auto ack = RunCommand(dw + " incidents ack " + id + " --as ana@example.com --reason 'on it'");
  ASSERT_EQ(ack.exit_code, 0) << ack.err;
  EXPECT_NE(ack.out.find("open -> acknowledged  by ana@example.com: on it"), std::string::npos) << ack.out;
  auto no_kind = RunCommand(dw + " incidents close " + id + " --as ana@example.com");
  EXPECT_EQ(no_kind.exit_code, 2);
  EXPECT_NE(no_kind.err.find("--expected or --false-positive"), std::string::npos) << no_kind.err;
  auto close = RunCommand(dw + " incidents close " + id + " --as ana@example.com --false-positive --format json");
  ASSERT_EQ(close.exit_code, 0) << close.err;
  EXPECT_EQ(Json::parse(close.out)["close_reason"], "false_positive");
  auto again = RunCommand(dw + " incidents ack " + id + " --as ana@example.com");
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("is closed"), std::string::npos) << again.err;

  auto unknown = RunCommand(dw + " incidents show " + id.substr(0, id.size() - 1) + "z");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find(id), std::string::npos) << unknown.err;
}

// Records a failed not_null check on `table` observed at `at`, and a deploy of its writer an hour
// before, so a scan opens an incident with a ranked cause.
void RecordFailureAndDeploy(const std::filesystem::path& ws, const std::string& table, const std::string& writer,
                            const std::string& at, const std::string& deployed_at) {
  auto store = store::OpenStateStore((ws / ".dw" / "state.db").string());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  store::CheckResultRow row;
  row.run_id = "r-" + at;
  row.table_ref = table;
  row.check_name = "not_null:id";
  row.status = store::CheckStatus::kFail;
  row.observed = {{"null_count", 7}, {"null_rate", 0.07}, {"rows", 100}};
  row.observed_at = *ParseRfc3339(at);
  ASSERT_TRUE((*store)->RecordCheckResults({row}).ok());
  store::ChangeEvent e;
  e.dedup_key = "deploy-" + deployed_at;
  e.asset_id = writer;
  e.kind = "deploy";
  e.happened_at = *ParseRfc3339(deployed_at);
  e.observed_at = e.happened_at;
  e.risk = 0.4;
  e.reason = "a new run of the job started";
  ASSERT_TRUE((*store)->AddChangeEvent(e).ok());
}

// Every command that takes an incident id takes a prefix one incident alone has, resolved once:
// what it stores and prints names the full id (a proposal drafted for `inc-20261124` is
// `inc-20261124-...-hold`, not `inc-20261124-hold`), and a prefix two incidents share exits 2
// naming both.
TEST(IncidentsCliTest, EveryCommandTakesAUniquePrefixOfAnIncidentId) {
  TempDir tmp;
  tmp.Write("dataworkers.yaml",
            "version: 1\nname: w\nwarehouses:\n  main: {type: sqlite, path: w.db}\n"
            "domains:\n  d: {autonomy: L1, owners: [ana@example.com]}\n"
            "assets:\n"
            "  - {id: flink://flink/job, domain: d, owner: ana@example.com, writes: [table://main/t]}\n"
            "  - {id: flink://flink/other, domain: d, owner: ana@example.com, writes: [table://main/u]}\n"
            "notify:\n  console: {}\n"
            "checks:\n  - {table: main.t, not_null: [id]}\n  - {table: main.u, not_null: [id]}\n");
  const std::string dw = std::string(DW_BINARY) + " --workspace '" + tmp.path().string() + "'";
  std::vector<std::string> ids;
  for (const auto& [table, writer, day] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"table://main/t", "flink://flink/job", "2026-11-24"}, {"table://main/u", "flink://flink/other", "2026-11-26"}}) {
    RecordFailureAndDeploy(tmp.path(), table, writer, day + "T15:00:00Z", day + "T14:00:00Z");
    auto scan = RunCommand(dw + " --now " + day + "T15:05:00Z incidents scan --format json");
    ASSERT_EQ(scan.exit_code, 0) << scan.err;
    Json r = Json::parse(scan.out);
    ASSERT_EQ(r["opened"].size(), 1u) << scan.out;
    ids.push_back(r["opened"][0]);
  }
  ASSERT_EQ(ids[0].rfind("inc-20261124", 0), 0u) << ids[0];
  ASSERT_EQ(ids[1].rfind("inc-20261126", 0), 0u) << ids[1];
  const std::string first = ids[0], prefix = "inc-20261124";
  const std::string at = dw + " --now 2026-11-26T16:00:00Z ";

  auto ambiguous = RunCommand(at + "incidents show inc-2026112");
  EXPECT_EQ(ambiguous.exit_code, 2) << ambiguous.out << ambiguous.err;
  EXPECT_NE(ambiguous.err.find(ids[0]), std::string::npos) << ambiguous.err;
  EXPECT_NE(ambiguous.err.find(ids[1]), std::string::npos) << ambiguous.err;
  auto ambiguous_list = RunCommand(at + "notify list inc-2026112");
  EXPECT_EQ(ambiguous_list.exit_code, 2) << ambiguous_list.out << ambiguous_list.err;
  EXPECT_NE(ambiguous_list.err.find(ids[1]), std::string::npos) << ambiguous_list.err;

  auto show = RunCommand(at + "incidents show " + prefix);
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(show.out.rfind(first, 0), 0u) << show.out;

  auto propose = RunCommand(at + "incidents propose " + prefix + " --format json");
  ASSERT_EQ(propose.exit_code, 0) << propose.out << propose.err;
  size_t stored = 0;
  const Json drafted = Json::parse(propose.out);
  for (const Json& p : drafted["proposals"]) {
    if (p["id"].get<std::string>().empty()) continue;  // not drafted: nothing stored
    ++stored;
    EXPECT_EQ(p["id"].get<std::string>().rfind(first + "-", 0), 0u) << p.dump(2);
  }
  EXPECT_GT(stored, 0u) << propose.out;

  auto listed = RunCommand(at + "notify list " + prefix);
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("console open"), std::string::npos) << listed.out;

  auto ack = RunCommand(at + "incidents ack " + prefix + " --as ana@example.com");
  ASSERT_EQ(ack.exit_code, 0) << ack.err;
  EXPECT_NE(ack.out.find(first + "  acknowledged"), std::string::npos) << ack.out;
  auto other = RunCommand(at + "incidents show " + ids[1] + " --format json");
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_EQ(Json::parse(other.out)["status"], "open") << other.out;
}

}  // namespace
}  // namespace dw
