#include <gtest/gtest.h>

#include <algorithm>

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

TEST(ConfigConnectionSecretsTest, APasswordHoldingSeparatorsIsFoundWholeAndInThePiecesADriverPrints) {
  // '@' and '/' unencoded in the password: the userinfo still ends at the last '@'.
  EXPECT_EQ(EmbeddedPasswords("postgresql://dw:Sign@SecretPw3@127.0.0.1:5432/x"),
            std::vector<std::string>{"Sign@SecretPw3"});
  EXPECT_EQ(EmbeddedPasswords("postgresql://dw:pa/ss@db/x"), std::vector<std::string>{"pa/ss"});
  EXPECT_TRUE(EmbeddedPasswords("https://host:8443/a/b").empty()) << "a ':' without an '@' after it is a port";
  // An unquoted keyword password with a blank runs on over the words that are no keyword=value.
  EXPECT_EQ(EmbeddedPasswords("host=db password=Pw12 Pw12Secret dbname=x"),
            std::vector<std::string>{"Pw12 Pw12Secret"});
  const auto pieces = SecretFragments("postgresql://dw:Xy:Sl@Q9%40zz@db:5432/x");
  for (const std::string want : {"Xy:Sl@Q9%40zz", "Xy:Sl@Q9@zz", "Xy", "Sl", "Q9", "40zz", "zz"})
    EXPECT_NE(std::find(pieces.begin(), pieces.end(), want), pieces.end()) << want;
  EXPECT_EQ(std::find(pieces.begin(), pieces.end(), "db"), pieces.end()) << "the host is no secret";
  EXPECT_TRUE(SecretFragments("postgresql://dw@db/x").empty());
  EXPECT_TRUE(SecretUrlParts("postgresql://dw@db").empty());
  const auto hook = SecretUrlParts(
      "https://example.webhook.office.com/webhookb2/4c1d7e2a-1b2c-4d5e-8f90-a1b2c3d4e5f6/IncomingWebhook/9f8e7d6c5b4a3f2e1d0c?x=1");
  for (const std::string want : {"/webhookb2/4c1d7e2a-1b2c-4d5e-8f90-a1b2c3d4e5f6/IncomingWebhook/9f8e7d6c5b4a3f2e1d0c?x=1",
                                 "4c1d7e2a-1b2c-4d5e-8f90-a1b2c3d4e5f6", "9f8e7d6c5b4a3f2e1d0c"})
    EXPECT_NE(std::find(hook.begin(), hook.end(), want), hook.end()) << want;
  // Words of the path are no secret of their own: hidden everywhere, they would hide other text.
  for (const std::string word : {"IncomingWebhook", "webhookb2"})
    EXPECT_EQ(std::find(hook.begin(), hook.end(), word), hook.end()) << word;
}

TEST(ConfigConnectionSecretsTest, WhatADriverPrintsOfAMisreadPasswordIsHidden) {
  testing::TempWorkspace tmp;
  auto r = tmp.Load("version: 1\nname: t\n"
                    "warehouses:\n  pg: {type: postgres, dsn: \"postgresql://dw:Zq:Tk@Mis7typed@127.0.0.1:5432/a\"}\n"
                    "  kw: {type: postgres, dsn: \"host=db user=dw password=Vb12 Vb12Leaky dbname=a\"}\n"
                    "notify:\n  teams: {webhook: \"${TEAMS_HOOK}\"}\n",
                    {{"TEAMS_HOOK", "https://example.webhook.office.com/webhookb2/77aa1c9e-feed-4b1a-9d3c-0a1b2c3d4e5f/IncomingWebhook/c0ffee1234abcd5678ef"}});
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  // What libpq says of each, and what a failed webhook post records.
  const std::string said =
      "could not translate host name \"Mis7typed@127.0.0.1\" to address; invalid integer value \"Tk\" for "
      "connection option \"port\"; missing \"=\" after \"Vb12Leaky\" in connection info string; "
      "POST /webhookb2/77aa1c9e-feed-4b1a-9d3c-0a1b2c3d4e5f/IncomingWebhook/c0ffee1234abcd5678ef: 404; "
      "retrying .../IncomingWebhook/c0ffee1234abcd5678ef";
  const std::string shown = RedactSecrets(said);
  for (const std::string secret : {"Mis7typed", "\"Tk\"", "Vb12Leaky", "77aa1c9e-feed", "c0ffee1234abcd5678ef"})
    EXPECT_EQ(shown.find(secret), std::string::npos) << secret << " in: " << shown;
  EXPECT_NE(shown.find("127.0.0.1"), std::string::npos) << "the host stays readable: " << shown;
  EXPECT_NE(shown.find("\"port\""), std::string::npos) << shown;
}

}  // namespace
}  // namespace dw::config
