#include <gtest/gtest.h>

#include "base/log.h"
#include "config/connection_secrets.h"
#include "workspace_test_support.h"

namespace dw::config {
namespace {

TEST(ConfigConnectionSecretsTest, FindsUrlAndKeywordPasswords) {
  EXPECT_EQ(EmbeddedPasswords("postgresql://dw:pa55word@db:5432/x"),
            std::vector<std::string>{"pa55word"});
  EXPECT_EQ(EmbeddedPasswords("host=db user=dw password=kw-secret dbname=x"),
            std::vector<std::string>{"kw-secret"});
  EXPECT_EQ(EmbeddedPasswords("host=db password='two words'"), std::vector<std::string>{"two words"});
  EXPECT_TRUE(EmbeddedPasswords("postgresql://dw@db/x").empty());
  EXPECT_TRUE(EmbeddedPasswords("http://127.0.0.1:8081").empty());
  EXPECT_TRUE(EmbeddedPasswords(".dw/state.db").empty());
}

TEST(ConfigConnectionSecretsTest, DsnPasswordIsRedactedButHostIsNot) {
  testing::TempWorkspace tmp;
  auto r = tmp.Load("version: 1\nname: t\n"
                    "warehouses:\n  pg: {type: postgres, dsn: \"postgresql://dw:${PGPW}@db.internal:5432/a\"}\n"
                    "state: postgresql://dw:state-pw-77@db.internal:5432/dw\n",
                    {{"PGPW", "dsn-pw-4242"}});
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  EXPECT_EQ(r.workspace->warehouses.at("pg").dsn, "postgresql://dw:dsn-pw-4242@db.internal:5432/a");
  EXPECT_EQ(RedactSecrets(r.workspace->warehouses.at("pg").dsn), "postgresql://dw:***@db.internal:5432/a");
  EXPECT_EQ(RedactSecrets(r.workspace->state), "postgresql://dw:***@db.internal:5432/dw");
}

}  // namespace
}  // namespace dw::config
