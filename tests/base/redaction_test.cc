// Secrets are hidden by shape (any connection string's password) and by value (registered
// secrets of any length), in text and inside JSON documents.
#include "base/redaction.h"

#include <gtest/gtest.h>

namespace dw {
namespace {

TEST(BaseRedactionTest, HidesConnectionPasswordsOfEveryFormWithoutRegistration) {
  EXPECT_EQ(RedactConnectionPasswords("at host=db port=5432 password=plainsecret1 dbname=x"),
            "at host=db port=5432 password=*** dbname=x");
  EXPECT_EQ(RedactConnectionPasswords("host=db password='p@ss w0rd!' user=u"),
            "host=db password='***' user=u");
  EXPECT_EQ(RedactConnectionPasswords("host=db password = 'it\\'s' user=u"), "host=db password = '***' user=u");
  EXPECT_EQ(RedactConnectionPasswords("PASSWORD=x"), "PASSWORD=***");  // any length, any case
  EXPECT_EQ(RedactConnectionPasswords("postgresql://dw:a@b/c@db:5432/dw is down"),
            "postgresql://dw:***@db:5432/dw is down");
  EXPECT_EQ(RedactConnectionPasswords("mysql://bob:LeakMe1234@db/x"), "mysql://bob:***@db/x");
  EXPECT_EQ(RedactConnectionPasswords("postgresql://db/x?user=u&password=s&sslmode=require"),
            "postgresql://db/x?user=u&password=***&sslmode=require");
  // Inside a JSON text, the value ends at the string's closing quote.
  EXPECT_EQ(RedactConnectionPasswords(R"({"dsn":"host=h password=abc"})"), R"({"dsn":"host=h password=***"})");
}

// A platform's Basic credential goes out base64-encoded: that form is as secret as the password.
TEST(BaseRedactionTest, ABasicCredentialIsHiddenEncodedAsWellAsPlain) {
  RegisterBasicCredential("admin@kestra.io", "Kestra-Pw-7731");
  // base64("admin@kestra.io:Kestra-Pw-7731"), computed independently of the product.
  const std::string encoded = "YWRtaW5Aa2VzdHJhLmlvOktlc3RyYS1Qdy03NzMx";
  EXPECT_EQ(RedactSecrets("Authorization: Basic " + encoded), "Authorization: Basic ***");
  EXPECT_EQ(RedactSecrets("password Kestra-Pw-7731 refused"), "password *** refused");
  EXPECT_EQ(RedactSecrets("user admin@kestra.io"), "user admin@kestra.io") << "the user name is no secret";
}

TEST(BaseRedactionTest, LeavesTextWithoutSecretsAlone) {
  for (const std::string s :
       {"http://127.0.0.1:8081/jobs/overview", "table://main/loyalty.member_balances",
        "the password was rejected", "passwordless=true", "https://example.com/a@b", "x = 1",
        "file:///tmp/state.db"})
    EXPECT_EQ(RedactConnectionPasswords(s), s);
}

TEST(BaseRedactionTest, RegisteredSecretsOfAnyLengthAreHidden) {
  RegisterSecret("hunter2-long-secret");
  RegisterSecret("q\"z");  // short, and JSON escapes its quote
  RegisterSecret("k9");  // unusual on purpose: the registry is process-wide
  EXPECT_EQ(RedactSecrets("login with hunter2-long-secret failed"), "login with *** failed");
  // A short secret is hidden where it stands alone, not inside other words.
  EXPECT_EQ(RedactSecrets("user k9: tk9 k9c k9"), "user ***: tk9 k9c ***");
  EXPECT_EQ(RedactSecrets(R"({"t":"q\"z"})"), R"({"t":"***"})");
  Json doc = {{"error", "auth failed for k9 with hunter2-long-secret"},
              {"list", {"q\"z", 3, {{"dsn", "host=h password=zz"}}}},
              {"k9", "keys are kept"}};
  RedactSecretsIn(doc);
  EXPECT_EQ(doc["error"], "auth failed for *** with ***");
  EXPECT_EQ(doc["list"][0], "***");
  EXPECT_EQ(doc["list"][1], 3);
  EXPECT_EQ(doc["list"][2]["dsn"], "host=h password=***");
  EXPECT_TRUE(doc.contains("k9"));
}

}  // namespace
}  // namespace dw
