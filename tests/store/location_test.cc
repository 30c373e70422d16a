#include "store/location.h"

#include <gtest/gtest.h>

namespace dw::store {
namespace {

TEST(StoreLocationTest, RecognisesPostgresUrls) {
  EXPECT_TRUE(IsPostgresLocation("postgresql://dw@127.0.0.1:5432/dw"));
  EXPECT_TRUE(IsPostgresLocation("postgres://dw@db/dw"));
  EXPECT_FALSE(IsPostgresLocation(".dw/state.db"));
  EXPECT_FALSE(IsPostgresLocation("/var/lib/postgresql://not-a-url"));
  EXPECT_FALSE(IsPostgresLocation("sqlite://x"));
}

TEST(StoreLocationTest, RedactsTheUserinfoPassword) {
  EXPECT_EQ(RedactLocation("postgresql://dw:s3cret@127.0.0.1:5432/dw"),
            "postgresql://dw:***@127.0.0.1:5432/dw");
  EXPECT_EQ(RedactLocation("postgres://dw:p%40ss@db/dw?sslmode=require"),
            "postgres://dw:***@db/dw?sslmode=require");
  // An unencoded '@' or '/' in the password is still covered.
  EXPECT_EQ(RedactLocation("postgresql://dw:a@b/c@db:5432/dw"), "postgresql://dw:***@db:5432/dw");
}

TEST(StoreLocationTest, RedactsAPasswordQueryParameter) {
  EXPECT_EQ(RedactLocation("postgresql://db/dw?user=dw&password=s3cret&sslmode=require"),
            "postgresql://db/dw?user=dw&password=***&sslmode=require");
  EXPECT_EQ(RedactLocation("postgresql://dw:one@db/dw?password=two"),
            "postgresql://dw:***@db/dw?password=***");
}

TEST(StoreLocationTest, LeavesLocationsWithoutPasswordsAlone) {
  EXPECT_EQ(RedactLocation("postgresql://dw@127.0.0.1:5432/dw"),
            "postgresql://dw@127.0.0.1:5432/dw");
  EXPECT_EQ(RedactLocation("postgresql://127.0.0.1:5432/dw"), "postgresql://127.0.0.1:5432/dw");
  EXPECT_EQ(RedactLocation("/tmp/user:pass@host/state.db"), "/tmp/user:pass@host/state.db");
}

TEST(StoreLocationTest, RedactsThePasswordInsideDriverMessages) {
  std::string url = "postgresql://dw:p%40ssword@db/dw";
  EXPECT_EQ(RedactPasswordIn("auth failed for p@ssword and p%40ssword", url),
            "auth failed for *** and ***");
  EXPECT_EQ(RedactPasswordIn("nothing secret", "/tmp/state.db"), "nothing secret");
}

}  // namespace
}  // namespace dw::store
