#include "base/status.h"

#include <gtest/gtest.h>

namespace dw {
namespace {

Status FailsWith(StatusCode code) { return Status(code, "boom"); }

Status Chain(bool fail) {
  DW_RETURN_IF_ERROR(fail ? FailsWith(StatusCode::kNotFound) : Status::Ok());
  return Status(StatusCode::kInternal, "reached the end");
}

TEST(BaseStatusTest, OkStatusHasNoMessage) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "ok");
}

TEST(BaseStatusTest, ErrorNamesCodeAndMessage) {
  EXPECT_EQ(InvalidArgument("bad table").ToString(), "invalid_argument: bad table");
  EXPECT_EQ(FailsWith(StatusCode::kDataLoss).code(), StatusCode::kDataLoss);
}

TEST(BaseStatusTest, ReturnIfErrorStopsAtTheFirstFailure) {
  EXPECT_EQ(Chain(true).code(), StatusCode::kNotFound);
  EXPECT_EQ(Chain(false).code(), StatusCode::kInternal);
}

TEST(BaseStatusTest, ResultHoldsValueOrStatus) {
  Result<int> good = 42;
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 42);
  EXPECT_TRUE(good.status().ok());
  Result<int> bad = NotFound("no such metric");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "no such metric");
}

}  // namespace
}  // namespace dw
