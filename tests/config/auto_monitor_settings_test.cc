// `auto_monitor:` (Workspace::auto_monitor): on by default, `false` (or `enabled: false`) turns it
// off, `exclude` globs, `every` and `learning` durations; a bad value is an error with its line.
#include <gtest/gtest.h>

#include "tests/config/workspace_test_support.h"

namespace dw::config {
namespace {

using testing::TempWorkspace;

TEST(AutoMonitorSettingsTest, OnByDefaultEveryFifteenMinutesLearningAWeek) {
  TempWorkspace ws;
  auto plain = ws.Load(testing::kMinimal);
  ASSERT_TRUE(plain.workspace.has_value()) << (plain.errors.empty() ? "" : plain.errors[0].ToString());
  EXPECT_TRUE(plain.workspace->auto_monitor.enabled);
  EXPECT_TRUE(plain.workspace->auto_monitor.exclude.empty());
  EXPECT_EQ(plain.workspace->auto_monitor.every, std::chrono::minutes(15));
  EXPECT_EQ(plain.workspace->auto_monitor.learning, std::chrono::hours(24 * 7));
}

TEST(AutoMonitorSettingsTest, FalseTurnsItOffAndAMappingSetsItsKeys) {
  TempWorkspace ws;
  auto off = ws.Load(std::string(testing::kMinimal) + "auto_monitor: false\n");
  ASSERT_TRUE(off.workspace.has_value()) << (off.errors.empty() ? "" : off.errors[0].ToString());
  EXPECT_FALSE(off.workspace->auto_monitor.enabled);
  auto off_too = ws.Load(std::string(testing::kMinimal) + "auto_monitor:\n  enabled: false\n");
  ASSERT_TRUE(off_too.workspace.has_value());
  EXPECT_FALSE(off_too.workspace->auto_monitor.enabled);
  auto set = ws.Load(std::string(testing::kMinimal) +
                     "auto_monitor:\n  exclude: [\"main.stg_*\", \"*.tmp_?\"]\n  every: 1h\n  learning: 3d\n");
  ASSERT_TRUE(set.workspace.has_value()) << (set.errors.empty() ? "" : set.errors[0].ToString());
  EXPECT_TRUE(set.workspace->auto_monitor.enabled);
  EXPECT_EQ(set.workspace->auto_monitor.exclude, (std::vector<std::string>{"main.stg_*", "*.tmp_?"}));
  EXPECT_EQ(set.workspace->auto_monitor.every, std::chrono::hours(1));
  EXPECT_EQ(set.workspace->auto_monitor.learning, std::chrono::hours(72));
}

TEST(AutoMonitorSettingsTest, BadValuesAreErrorsWithTheirLine) {
  TempWorkspace ws;
  auto fast = ws.Load(std::string(testing::kMinimal) + "auto_monitor:\n  every: 10s\n");
  EXPECT_FALSE(fast.workspace.has_value());
  testing::ExpectError(fast, "auto_monitor.every", 6, "at least 1m");
  auto word = ws.Load(std::string(testing::kMinimal) + "auto_monitor: sometimes\n");
  EXPECT_FALSE(word.workspace.has_value());
  ASSERT_FALSE(word.errors.empty());
  EXPECT_NE(word.errors[0].ToString().find("auto_monitor"), std::string::npos) << word.errors[0].ToString();
  auto unknown = ws.Load(std::string(testing::kMinimal) + "auto_monitor:\n  include: [x]\n");
  EXPECT_FALSE(unknown.workspace.has_value());
  ASSERT_FALSE(unknown.errors.empty());
  EXPECT_NE(unknown.errors[0].ToString().find("auto_monitor.include"), std::string::npos) << unknown.errors[0].ToString();
  auto empty = ws.Load(std::string(testing::kMinimal) + "auto_monitor:\n  exclude: [\"\"]\n");
  EXPECT_FALSE(empty.workspace.has_value());
  testing::ExpectError(empty, "auto_monitor.exclude[0]", 6, "must not be empty");
}

}  // namespace
}  // namespace dw::config
