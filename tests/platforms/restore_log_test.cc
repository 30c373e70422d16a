#include "platforms/flink/restore_log.h"

#include <gtest/gtest.h>

namespace dw::platforms::flink {
namespace {

TEST(RestoreLogTest, ParsesLog4jTimestamps) {
  EXPECT_EQ(ParseLog4jTimestamp("2026-11-24 14:02:03,409 INFO  x [] - y"), 1795528923409);
  EXPECT_FALSE(ParseLog4jTimestamp("\tat org.apache.flink.Foo").has_value());
  EXPECT_FALSE(ParseLog4jTimestamp("2026-13-24 14:02:03,409 INFO").has_value());
  EXPECT_FALSE(ParseLog4jTimestamp("2026-11-24").has_value());
}

TEST(RestoreLogTest, SkippedStateIsAFindingAndEmptyStateIsToldApart) {
  RestoreLogScanner s;
  s.Feed("2026-11-24 14:02:03,401 INFO  org.apache.flink.runtime.checkpoint.CheckpointCoordinator [] - "
         "Starting job a1b2c3d4e5f60718293a4b5c6d7e8f90 from savepoint s3://b/savepoint-1 (allowing non restored state)");
  s.Feed("2026-11-24 14:02:03,407 INFO  org.apache.flink.runtime.checkpoint.Checkpoints [] - "
         "Skipping empty savepoint state for operator cbc357ccb763df2852fee8c4fc7d55f2.");
  s.Feed("2026-11-24 14:02:03,409 INFO  org.apache.flink.runtime.checkpoint.Checkpoints [] - "
         "Skipping savepoint state for operator 90bea66de1c231edf33913ecd54406c1.");
  s.Feed("2026-11-24 14:05:00,000 INFO  x [] - Skipped checkpoint state for operator 7f1d2a8e9c3b4d5e6f7a8b9c0d1e2f3a.");
  s.Feed("2026-11-24 14:06:00,000 INFO  x [] - Completed checkpoint 20159 for job a1b2 (1 bytes)");
  ASSERT_EQ(s.findings().size(), 4u);
  EXPECT_EQ(s.lines_read(), 5u);
  const auto& start = s.findings()[0];
  EXPECT_EQ(start.kind, RestoreLineKind::kRestoreStarted);
  EXPECT_EQ(start.job_id, "a1b2c3d4e5f60718293a4b5c6d7e8f90");
  EXPECT_EQ(start.savepoint_path, "s3://b/savepoint-1");
  EXPECT_TRUE(start.allow_non_restored_state);
  EXPECT_EQ(s.findings()[1].kind, RestoreLineKind::kSkippedEmptyState);
  const auto& skipped = s.findings()[2];
  EXPECT_EQ(skipped.kind, RestoreLineKind::kSkippedState);
  EXPECT_EQ(skipped.operator_id, "90bea66de1c231edf33913ecd54406c1");
  EXPECT_EQ(skipped.job_id, "a1b2c3d4e5f60718293a4b5c6d7e8f90");  // from the Starting job line
  EXPECT_EQ(skipped.time_ms, 1795528923409);
  EXPECT_FALSE(skipped.from_checkpoint);
  EXPECT_TRUE(s.findings()[3].from_checkpoint);
}

TEST(RestoreLogTest, RestoreWithoutTheFlagAndRefusedRestore) {
  RestoreLogScanner s;
  s.Feed("2026-11-24 14:02:03,401 INFO  x [] - Starting job 0123456789abcdef0123456789abcdef from savepoint s3://b/sp ()");
  s.Feed("2026-11-24 14:02:04,000 ERROR x [] - Failed to rollback to checkpoint/savepoint s3://b/sp. Cannot map "
         "checkpoint/savepoint state for operator 90bea66de1c231edf33913ecd54406c1 to the new program");
  ASSERT_EQ(s.findings().size(), 2u);
  EXPECT_FALSE(s.findings()[0].allow_non_restored_state);
  EXPECT_EQ(s.findings()[1].kind, RestoreLineKind::kRestoreRefused);
  EXPECT_EQ(s.findings()[1].operator_id, "90bea66de1c231edf33913ecd54406c1");
}

}  // namespace
}  // namespace dw::platforms::flink
