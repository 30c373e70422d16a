// SqlOperation: what a failed statement was doing, for the store's error messages, without values.
#include <gtest/gtest.h>

#include "store/sql_operation.h"

namespace dw::store {
namespace {

TEST(SqlOperationTest, NamesTheVerbAndTableAndNothingAfter) {
  EXPECT_EQ(SqlOperation("INSERT INTO metric_points (metric, ts, value) VALUES ($1, $2, $3)"), "INSERT INTO metric_points");
  EXPECT_EQ(SqlOperation("COMMIT"), "COMMIT");
  EXPECT_EQ(SqlOperation("  UPDATE outbox\n   SET state = $1 WHERE id = $2"), "UPDATE outbox");
  EXPECT_EQ(SqlOperation("DELETE FROM metric_points WHERE ts < $1"), "DELETE FROM metric_points");
  EXPECT_EQ(SqlOperation("INSERT INTO a SELECT * FROM b"), "INSERT INTO a");
  EXPECT_EQ(SqlOperation("PRAGMA journal_mode=WAL"), "PRAGMA journal_mode=WAL");
  EXPECT_LE(SqlOperation(std::string(500, 'x')).size(), 60u);
  EXPECT_EQ(SqlOperation(""), "");
}

}  // namespace
}  // namespace dw::store
