// `dw spend` through the binary: bad options exit 2 naming them; a workspace whose warehouses bill
// nothing per query says so and exits 0; one whose warehouse's accounting cannot be reached
// reports that warehouse's error and exits 1 (tests/observe/warehouse_spend_test.cc reads real
// accounting from the simulators).
#include <gtest/gtest.h>

#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw {
namespace {

using dw::testing::RunCommand;

TEST(SpendCliTest, BadOptionsExitTwoAndAWarehouseThatCannotBeReadExitsOne) {
  dw::testing::TempDir dir;
  dir.Write("dataworkers.yaml", "version: 1\nname: x\nwarehouses:\n  main: {type: sqlite, path: warehouse.db}\n");
  const std::string dw = std::string(DW_BINARY) + " --workspace " + dir.path().string() + " spend";
  auto since = RunCommand(dw + " --since yesterdayish");
  EXPECT_EQ(since.exit_code, 2) << since.out << since.err;
  EXPECT_NE(since.err.find("since"), std::string::npos) << since.err;
  auto by = RunCommand(dw + " --by cost");
  EXPECT_EQ(by.exit_code, 2) << by.out << by.err;
  EXPECT_NE(by.err.find("--by"), std::string::npos) << by.err;

  auto none = RunCommand(dw);
  EXPECT_EQ(none.exit_code, 0) << none.out << none.err;
  EXPECT_NE(none.out.find("no warehouse bills per query"), std::string::npos) << none.out;

  // A Snowflake account nobody answers for: its error, the run's exit 1, no key in the output.
  dir.Write("rsa_key.p8", "not a key");
  dir.Write("dataworkers.yaml",
            "version: 1\nname: x\nwarehouses:\n  sf: {type: snowflake, account: a, user: u, private_key: rsa_key.p8, "
            "database: D, api_url: \"http://127.0.0.1:1\"}\n");
  auto bad = RunCommand(dw + " --format json");
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  EXPECT_NE(bad.out.find("\"error\""), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("not an RSA private key"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace dw
