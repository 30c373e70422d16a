// `changes.initial_lookback` (Workspace::changes_initial_lookback): how far back the first
// collection pass reads; 24 h (the diagnosis window) when the file sets none, a positive duration
// otherwise, with the file's line on an error.
#include <gtest/gtest.h>

#include "tests/config/workspace_test_support.h"

namespace dw::config {
namespace {

using testing::TempWorkspace;

TEST(ChangesSettingsTest, InitialLookbackIsReadAndDefaultsToTheDiagnosisWindow) {
  TempWorkspace ws;
  auto plain = ws.Load(testing::kMinimal);
  ASSERT_TRUE(plain.workspace.has_value()) << (plain.errors.empty() ? "" : plain.errors[0].ToString());
  EXPECT_EQ(plain.workspace->changes_initial_lookback, std::chrono::hours(24));

  auto set = ws.Load(std::string(testing::kMinimal) + "changes:\n  initial_lookback: 3d\n");
  ASSERT_TRUE(set.workspace.has_value()) << (set.errors.empty() ? "" : set.errors[0].ToString());
  EXPECT_EQ(set.workspace->changes_initial_lookback, std::chrono::hours(72));
}

TEST(ChangesSettingsTest, AZeroLookbackOrAnUnknownKeyIsAnErrorWithItsLine) {
  TempWorkspace ws;
  auto zero = ws.Load(std::string(testing::kMinimal) + "changes:\n  initial_lookback: 0s\n");
  EXPECT_FALSE(zero.workspace.has_value());
  testing::ExpectError(zero, "changes.initial_lookback", 6, "longer than zero");
  auto unknown = ws.Load(std::string(testing::kMinimal) + "changes:\n  lookback: 5h\n");
  EXPECT_FALSE(unknown.workspace.has_value());
  ASSERT_FALSE(unknown.errors.empty());
  EXPECT_NE(unknown.errors[0].ToString().find("changes.lookback"), std::string::npos) << unknown.errors[0].ToString();
}

}  // namespace
}  // namespace dw::config
