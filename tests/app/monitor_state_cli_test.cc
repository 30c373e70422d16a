// `dw monitor mark` and `dw monitor prune` through the real binary, at a fixed --now.
#include <gtest/gtest.h>

#include "store/state_store.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw {
namespace {
namespace monitor_state_cli_test {

using testing::RunCommand;
using testing::TempDir;

constexpr int64_t kDay = 24 * 3600 * 1000LL;
const int64_t kNow = 1767225600000LL + 100 * kDay;  // 2026-04-11 00:00 UTC

TEST(MonitorStateCliTest, MarksARangeExpectedAndPrunesOldPoints) {
  TempDir tmp;
  tmp.Write("dataworkers.yaml", "version: 1\nname: w\nmetrics:\n  retention: 30d\n");
  {
    auto store = store::OpenStateStore((tmp.path() / ".dw" / "state.db").string());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    std::vector<store::MetricPoint> pts;
    for (int d = 0; d <= 100; ++d) pts.push_back({FromUnixMillis(kNow - d * kDay), 10.0 + d % 3});
    ASSERT_TRUE((*store)->UpsertMetricPoints("orders", pts).ok());
  }
  std::string dw = std::string(DW_BINARY) + " --workspace '" + tmp.path().string() + "' --now 2026-04-11T00:00:00Z";

  auto mark = RunCommand(dw + " monitor mark orders --from 2026-04-08T00:00:00Z --to 2026-04-10T00:00:00Z --note 'Easter' --as ana@example.com");
  ASSERT_EQ(mark.exit_code, 0) << mark.err;
  EXPECT_NE(mark.out.find("marked orders expected from 2026-04-08T00:00:00"), std::string::npos) << mark.out;
  EXPECT_NE(mark.out.find("3 stored point(s) in the range"), std::string::npos) << mark.out;
  {
    auto store = store::OpenStateStore((tmp.path() / ".dw" / "state.db").string());
    ASSERT_TRUE(store.ok());
    auto marks = (*store)->MetricMarks("orders", FromUnixMillis(0), FromUnixMillis(kNow));
    ASSERT_TRUE(marks.ok());
    ASSERT_EQ(marks->size(), 1u);
    EXPECT_EQ((*marks)[0].note, "Easter");
    EXPECT_EQ((*marks)[0].author, "ana@example.com");
  }
  // A mark silences the monitor over its range: it names a person, never an agent or nobody.
  for (const std::string as : {"", " --as agent:dw-incidents", " --as 'ana @example.com'"}) {
    auto anonymous = RunCommand(dw + " monitor mark orders --from 2026-04-01T00:00:00Z --to 2026-04-02T00:00:00Z" + as);
    EXPECT_EQ(anonymous.exit_code, 2) << as;
    EXPECT_NE(anonymous.err.find("--as"), std::string::npos) << as << ": " << anonymous.err;
  }
  auto backwards = RunCommand(dw + " monitor mark orders --from 2026-04-10T00:00:00Z --to 2026-04-08T00:00:00Z --as ana@example.com");
  EXPECT_EQ(backwards.exit_code, 2);
  EXPECT_NE(backwards.err.find("is after"), std::string::npos) << backwards.err;
  auto no_zone = RunCommand(dw + " monitor mark orders --from 2026-04-08 --to 2026-04-10T00:00:00Z --as ana@example.com");
  EXPECT_EQ(no_zone.exit_code, 2);
  EXPECT_NE(no_zone.err.find("--from"), std::string::npos) << no_zone.err;
  auto unknown = RunCommand(dw + " monitor mark ordres --from 2026-04-08T00:00:00Z --to 2026-04-10T00:00:00Z --as ana@example.com");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("did you mean"), std::string::npos) << unknown.err;

  auto prune = RunCommand(dw + " monitor prune");
  ASSERT_EQ(prune.exit_code, 0) << prune.err;
  EXPECT_NE(prune.out.find("orders: deleted 70 point(s) older than 30d"), std::string::npos) << prune.out;
  EXPECT_NE(prune.out.find("deleted 70 metric point(s) in all"), std::string::npos) << prune.out;
  auto again = RunCommand(dw + " monitor prune");
  EXPECT_NE(again.out.find("deleted 0 metric point(s) in all"), std::string::npos) << again.out;
}

}  // namespace monitor_state_cli_test
}  // namespace
}  // namespace dw
