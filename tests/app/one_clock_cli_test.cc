// Every command takes its clock from the global --now: a bad value is refused by each of them
// (before this, collect, watch, lineage, ingest, validate, describe and monitor plot ignored it).
#include <gtest/gtest.h>

#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw {
namespace {
namespace one_clock_cli_test {

using testing::RunCommand;

const std::string kDw = DW_BINARY;
const std::string kExample = std::string(DW_SOURCE_DIR) + "/examples/loyalty-flink";

TEST(OneClockCliTest, EveryCommandRefusesABadNow) {
  for (const char* cmd : {"validate", "describe --no-probe", "collect", "watch --once", "lineage x",
                          "ingest openlineage /nonexistent", "monitor plot m --out /tmp/x.svg",
                          "monitor prune", "check", "blast-radius table://main/t", "receipts verify",
                          "receipts head", "stop --lift", "approve P-1 --as a@example.com --key /nonexistent"}) {
    auto r = RunCommand(kDw + " --workspace '" + kExample + "' --now yesterday " + cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.err;
    EXPECT_NE(r.err.find("--now: 'yesterday' is not a timestamp"), std::string::npos) << cmd << "\n" << r.err;
  }
}

}  // namespace one_clock_cli_test
}  // namespace
}  // namespace dw
