// What only the PostgreSQL backend does: URLs, unreachable servers, dropped connections.
#include "store/postgres_connection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/state_store.h"
#include "store_test_support.h"

namespace dw::store {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(StorePostgresTest, AnUnreachableServerIsUnavailableAndThePasswordIsRedacted) {
  // Port 1 on loopback refuses at once; no server is needed for this test.
  std::string url = "postgresql://dw:s3cret-pw@127.0.0.1:1/dw?connect_timeout=2";
  Result<std::unique_ptr<StateStore>> store = OpenStateStore(url);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(store.status().message(), HasSubstr("postgresql://dw:***@127.0.0.1:1/dw"));
  EXPECT_THAT(store.status().message(), Not(HasSubstr("s3cret-pw")));
}

TEST(StorePostgresTest, APasswordInTheQueryIsRedactedToo) {
  std::string url = "postgres://127.0.0.1:1/dw?user=dw&password=s3cret-pw&connect_timeout=2";
  Result<std::unique_ptr<StateStore>> store = OpenStateStore(url);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(store.status().message(), HasSubstr("password=***"));
  EXPECT_THAT(store.status().message(), Not(HasSubstr("s3cret-pw")));
}

TEST(StorePostgresTest, AMalformedUrlIsAnErrorNotACrash) {
  Result<std::unique_ptr<StateStore>> store = OpenStateStore("postgresql://dw:pw@[::1/dw");
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(), Not(HasSubstr(":pw@")));
}

class StorePostgresServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (test_support::PostgresTestUrl().empty()) GTEST_SKIP() << test_support::kPgSkipMessage;
    Result<std::unique_ptr<test_support::ScratchLocation>> scratch =
        test_support::ScratchLocation::Create("postgresql");
    ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
    scratch_ = std::move(scratch).value();
  }
  std::unique_ptr<test_support::ScratchLocation> scratch_;
};

TEST_F(StorePostgresServerTest, ThePostgresSchemePrefixWorksToo) {
  std::string location = scratch_->location();
  ASSERT_EQ(location.rfind("postgresql://", 0), 0u);
  location.replace(0, std::string("postgresql://").size(), "postgres://");
  Result<std::unique_ptr<StateStore>> store = OpenStateStore(location);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->backend(), "postgresql");
}

TEST_F(StorePostgresServerTest, ReconnectsAfterTheServerDropsTheConnection) {
  std::string app = "dw_drop_" + test_support::UniqueSuffix();
  std::string location = scratch_->location() + "&application_name=" + app;
  Result<std::unique_ptr<StateStore>> store = OpenStateStore(location);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE((*store)->SetCursor("before", "1").ok());

  Result<std::unique_ptr<SqlConnection>> admin = scratch_->Connect();
  ASSERT_TRUE(admin.ok());
  Result<std::vector<SqlRow>> killed = (*admin)->Query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
      {SqlValue{app}});
  ASSERT_TRUE(killed.ok()) << killed.status().ToString();
  ASSERT_EQ(killed->size(), 1u);

  // A write starts with BEGIN, which reconnects and retries.
  Status s = (*store)->SetCursor("after", "2");
  EXPECT_TRUE(s.ok()) << s.ToString();
  Result<std::optional<std::string>> cursor = (*store)->GetCursor("before");
  ASSERT_TRUE(cursor.ok()) << cursor.status().ToString();
  EXPECT_EQ(cursor->value_or(""), "1");
}

}  // namespace
}  // namespace dw::store
