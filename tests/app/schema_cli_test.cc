// `dw schema check|impact|register` against the Schema Registry simulator and the crm workspace,
// held to docs/cli.md's one exit-code convention: 0 the command did its work and what it checks
// passed, 1 it did its work and what it checks failed (incompatible; not registered, whether the
// registry refused it or its proposal waits for approval), 2 it could not do its work.
#include <gtest/gtest.h>

#include "tests/schema/crm_workspace.h"
#include "tests/support/build_paths.h"

namespace dw {
namespace {
namespace schema_cli_test {

using testing::CommandResult;
using testing::RunCommand;

std::string Q(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

class SchemaCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(testing::WriteCrmWorkspace(ws_));
    ws_.Write("renamed.avsc", testing::CrmFixture("orders-v2-renamed.avsc"));
  }
  CommandResult Dw(const std::string& args) {
    return RunCommand(std::string(DW_BINARY) + " --workspace " + Q(ws_.path()) + " --now 2026-11-24T15:00:00Z " + args);
  }
  std::string File(const std::string& name) { return Q(ws_.path() / name); }

  testing::AgentWorkspace ws_{FromUnixMillis(1795532400000)};  // 2026-11-24T15:00:00Z
};

TEST_F(SchemaCliTest, CompatibleIsZeroAndIncompatibleIsOne) {
  CommandResult none = Dw("schema check orders-value " + File("renamed.avsc"));  // the subject's level: NONE
  EXPECT_EQ(none.exit_code, 0) << none.out << none.err;
  CommandResult forward = Dw("schema check orders-value " + File("renamed.avsc") + " --level FORWARD");
  EXPECT_EQ(forward.exit_code, 1) << forward.out << forward.err;
  EXPECT_NE(forward.out.find("READER_FIELD_MISSING_DEFAULT_VALUE"), std::string::npos) << forward.out;
}

TEST_F(SchemaCliTest, WhatCannotBeDoneIsTwo) {
  CommandResult missing = Dw("schema check orders-value " + File("no-such.avsc"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot read schema file"), std::string::npos) << missing.err;
  CommandResult level = Dw("schema check orders-value " + File("renamed.avsc") + " --level SIDEWAYS");
  EXPECT_EQ(level.exit_code, 2) << level.err;
  CommandResult impact = Dw("schema impact payments-value " + File("renamed.avsc"));
  EXPECT_EQ(impact.exit_code, 2) << impact.out << impact.err;
  CommandResult assessed = Dw("schema impact orders-value " + File("renamed.avsc"));
  EXPECT_EQ(assessed.exit_code, 0) << assessed.out << assessed.err;
}

TEST_F(SchemaCliTest, AProposalWaitingForItsApprovalIsNotRegisteredAndIsOne) {
  CommandResult draft = Dw("schema register orders-value " + File("renamed.avsc"));
  EXPECT_EQ(draft.exit_code, 1) << draft.out << draft.err;
  EXPECT_NE(draft.out.find("nothing was registered"), std::string::npos) << draft.out;
  EXPECT_NE(draft.out.find("waits for the approval of ana@example.com"), std::string::npos) << draft.out;
  CommandResult unknown = Dw("schema register orders-value --proposal no-such-proposal");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.out << unknown.err;
}

}  // namespace schema_cli_test
}  // namespace
}  // namespace dw
