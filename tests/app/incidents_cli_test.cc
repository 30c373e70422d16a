// `dw incidents ...` through the real binary, at a fixed --now: a scan opens the incident from a
// failed check stored by an earlier `dw check`, and a person moves it.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace dw
