// `watch.lease_history` (Workspace::watch_lease_history): checked by the loader with file:line
// errors (a duration of at least 10m), 24h when the file sets none.
#include "config/watch_settings.h"

#include <gtest/gtest.h>

#include "tests/config/workspace_test_support.h"

namespace dw::config {
namespace {

using testing::TempWorkspace;

TEST(WatchSettingsTest, LeaseHistoryIsReadAndDefaultsTo24Hours) {
  TempWorkspace ws;
  auto plain = ws.Load(testing::kMinimal);
  ASSERT_TRUE(plain.workspace.has_value()) << (plain.errors.empty() ? "" : plain.errors[0].ToString());
  EXPECT_EQ(plain.workspace->watch_lease_history, std::chrono::hours(24));

  auto set = ws.Load(std::string(testing::kMinimal) + "watch:\n  lease_history: 6h\n");
  ASSERT_TRUE(set.workspace.has_value()) << (set.errors.empty() ? "" : set.errors[0].ToString());
  EXPECT_EQ(set.workspace->watch_lease_history, std::chrono::hours(6));
}

TEST(WatchSettingsTest, ALeaseHistoryUnderTenMinutesOrAnUnknownWatchKeyIsAnErrorWithItsLine) {
  TempWorkspace ws;
  auto short_history = ws.Load(std::string(testing::kMinimal) + "watch:\n  lease_history: 5m\n");
  EXPECT_FALSE(short_history.workspace.has_value());
  testing::ExpectError(short_history, "watch.lease_history", 6, "at least 10m");
  auto unknown = ws.Load(std::string(testing::kMinimal) + "watch:\n  keep: 5m\n");
  EXPECT_FALSE(unknown.workspace.has_value());
  ASSERT_FALSE(unknown.errors.empty());
  EXPECT_NE(unknown.errors[0].ToString().find("watch.keep"), std::string::npos) << unknown.errors[0].ToString();
}

}  // namespace
}  // namespace dw::config
