// docs/reference/ is generated from the code (`dw reference`): a command, option, workspace key or
// MCP tool added, renamed or removed without regenerating it fails here, naming the page.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw {
namespace {
namespace reference_test {

using testing::ReadWholeFile;
using testing::RunCommand;
using testing::TempDir;

const std::string kDw = DW_BINARY;

TEST(ReferenceTest, TheCommittedReferenceIsWhatTheCodeGenerates) {
  TempDir tmp;
  auto r = RunCommand(kDw + " reference --out " + (tmp.path() / "ref").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* page : {"commands.md", "workspace-keys.md", "tools.md"}) {
    const std::string generated = ReadWholeFile(tmp.path() / "ref" / page);
    const std::string committed = ReadWholeFile(std::filesystem::path(DW_SOURCE_DIR) / "docs/reference" / page);
    EXPECT_FALSE(generated.empty()) << page;
    EXPECT_EQ(generated, committed) << "docs/reference/" << page
                                    << " is out of date: run `build/dw reference --out docs/reference` and commit it";
  }
}

// The pages hold what they claim: every command, key and tool, each a heading or a row.
TEST(ReferenceTest, ThePagesNameEveryCommandKeyAndTool) {
  TempDir tmp;
  ASSERT_EQ(RunCommand(kDw + " reference --out " + tmp.path().string()).exit_code, 0);
  const std::string commands = ReadWholeFile(tmp.path() / "commands.md");
  for (const char* c : {"## `dw doctor`", "## `dw check`", "## `dw incidents verify`", "## `dw keys issue`",
                        "## `dw monitor mark`", "| `--timeout` |", "| `-w,--workspace` |"})
    EXPECT_NE(commands.find(c), std::string::npos) << c;
  const std::string keys = ReadWholeFile(tmp.path() / "workspace-keys.md");
  for (const char* k : {"| `warehouses.<name>.type` |", "| `checks[].freshness.max_age` |", "| `desk.url` |",
                        "| `people.<name>.keys` |"})
    EXPECT_NE(keys.find(k), std::string::npos) << k;
  const std::string tools = ReadWholeFile(tmp.path() / "tools.md");
  for (const char* t : {"## `describe_workspace`", "## `run_quality_check`", "## `diagnose_incident`",
                        "readOnlyHint true"})
    EXPECT_NE(tools.find(t), std::string::npos) << t;
}

TEST(ReferenceTest, AFolderThatCannotBeWrittenIsExitTwoAndNamed) {
  TempDir tmp;
  tmp.Write("blocker", "a file where the folder should be\n");
  auto r = RunCommand(kDw + " reference --out " + (tmp.path() / "blocker" / "ref").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("blocker"), std::string::npos) << r.err;
}

}  // namespace reference_test
}  // namespace
}  // namespace dw
