// Hostile names and values in every position a caller controls: table, column and value. None may
// execute: each is refused (a name the catalog does not hold) or treated as data (a bound value),
// and the canary table survives every one, on both backends.
#include <gtest/gtest.h>

#include "observe/quality/quality_run.h"
#include "config/duration.h"
#include "tests/observe/quality/quality_fixture.h"

namespace dw::observe::quality {
namespace {

using test_support::FixtureNow;
using test_support::QualityFixture;

// 36 payloads: quotes, statement separators, comments, unions, placeholders, encodings and unicode
// look-alikes of quotes and letters.
const std::vector<std::string>& Payloads() {
  static const std::vector<std::string> p = {
      "x'; DROP TABLE canary; --",
      "\"; DROP TABLE canary; --",
      "balances; DELETE FROM canary",
      "balances\"; DELETE FROM canary; --",
      "1 OR 1=1",
      "' OR '1'='1",
      "balance) FROM canary; --",
      "*/ DROP TABLE canary /*",
      "/* c */ balance",
      "-- balance",
      "balance--",
      "ba\"lance",
      "bal`ance",
      "[balance]",
      "balance; SELECT pg_sleep(10)",
      "balance UNION SELECT count(*) FROM canary",
      "t\xd1\x96" "er",                 // Cyrillic i in "tier"
      "b\xd0\xb0lance",                 // Cyrillic a in "balance"
      "\xef\xbd\x82\xef\xbd\x81lance",  // fullwidth "ba"
      "balance\xe2\x80\x8b",            // zero-width space
      "balance\n",
      "\\x27; DROP TABLE canary",
      "%27%3B DROP TABLE canary",
      "$1",
      "?",
      ":since",
      "NULL",
      "1e309",
      "../../etc/passwd",
      "\xca\xbc OR 1=1 --",                   // modifier letter apostrophe
      "\xef\xbc\x87; DROP TABLE canary;--",   // fullwidth apostrophe
      std::string("tier\0x", 6),              // an embedded NUL
      "balance\" IS NULL OR \"1\"=\"1",
      "\"balances\"",
      "main.canary",
      "balance'||(SELECT count(*) FROM canary)||'",
  };
  return p;
}

class InjectionTest : public QualityFixture {
 protected:
  void SetUp() override {
    QualityFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_TRUE(wh_->Exec("CREATE TABLE " + wh_->Sql("canary") + " (x INTEGER); INSERT INTO " +
                          wh_->Sql("canary") + " VALUES (1)")
                    .ok());
  }
  void ExpectCanaryAlive() {
    EXPECT_EQ(wh_->Scalar("SELECT count(*) FROM " + wh_->Sql("canary")), 1);
    EXPECT_EQ(wh_->Scalar("SELECT count(*) FROM " + wh_->Sql("balances")), 20);
  }
};

TEST_P(InjectionTest, PayloadsAsTableNamesAreRefused) {
  ASSERT_GE(Payloads().size(), 30u);
  for (const std::string& p : Payloads()) {
    QualityRequest req;
    req.tables = {(wh_->postgres() ? "wh." + wh_->schema() + "." : "wh.") + p};
    req.inline_check = Json::parse(R"({"not_null": ["balance"]})");
    auto r = Run(req);
    if (r.ok()) {
      // Only a payload that names a real table may run, and then only the requested check on it.
      for (const TableReport& t : r->tables)
        for (const CheckOutcome& o : t.outcomes) EXPECT_NE(o.verdict, Verdict::kPass) << p;
    } else {
      EXPECT_TRUE(r.status().code() == StatusCode::kNotFound ||
                  r.status().code() == StatusCode::kInvalidArgument)
          << p << ": " << r.status().ToString();
    }
    ExpectCanaryAlive();
  }
}

TEST_P(InjectionTest, PayloadsAsColumnNamesAreRefusedByName) {
  for (const std::string& p : Payloads()) {
    QualityRequest req;
    req.tables = {wh_->Ref("balances")};
    Json check = Json::object();
    check["not_null"] = Json::array({p});
    check["range"] = Json::object({{p, {{"min", 0}}}});
    check["accepted_values"] = Json::object({{p, {"a"}}});
    check["unique"] = Json::array({Json::array({"member_id", p})});
    req.inline_check = check;
    auto r = Run(req);
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << p << r.status().ToString();
    } else {
      for (const CheckOutcome& o : r->tables[0].outcomes) {
        EXPECT_EQ(o.verdict, Verdict::kError) << p << " " << o.name;
        EXPECT_NE(o.message.find("not found"), std::string::npos) << o.message;
      }
      EXPECT_EQ(r->tables[0].queries, 0) << p;  // nothing reached the warehouse
    }
    ExpectCanaryAlive();
  }
}

TEST_P(InjectionTest, PayloadsAsValuesAreData) {
  for (const std::string& p : Payloads()) {
    QualityRequest req;
    req.tables = {wh_->Ref("balances")};
    Json check = Json::object();
    check["accepted_values"] = Json::object({{"tier", {p, "bronze", "silver", "gold"}}});
    req.inline_check = check;
    auto r = Run(req);
    ASSERT_TRUE(r.ok()) << p << ": " << r.status().ToString();
    const CheckOutcome& o = r->tables[0].outcomes.at(0);
    // Every tier is bronze, silver or gold: the payload is just one more accepted string.
    EXPECT_EQ(o.verdict, Verdict::kPass) << p << ": " << o.message;
    EXPECT_EQ(o.observed["invalid_count"], 0);
    ExpectCanaryAlive();
    // As a value to compare with, it matches nothing.
    check["accepted_values"] = Json::object({{"tier", {p}}});
    req.inline_check = check;
    auto none = Run(req);
    ASSERT_TRUE(none.ok()) << p;
    EXPECT_EQ(none->tables[0].outcomes.at(0).observed["invalid_count"], 20) << p;
    ExpectCanaryAlive();
    // As a point in time, it is refused.
    EXPECT_FALSE(config::ParseTimeOrAgo("since", p, FixtureNow()).ok()) << p;
  }
}

TEST_P(InjectionTest, HostileColumnNamesThatExistAreQuotedAndChecked) {
  // Table names in requests are limited to identifier characters; column names come from the
  // catalog and may hold anything, so they are quoted.
  const std::string table = "odd_names";
  const std::string column = "co'l\"umn; DELETE FROM canary";
  auto quote = [](std::string s) {
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  };
  std::string qualified = wh_->postgres() ? wh_->schema() + "." + quote(table) : quote(table);
  ASSERT_TRUE(wh_->Exec("CREATE TABLE " + qualified + " (" + quote(column) + " INTEGER); INSERT INTO " +
                        qualified + " VALUES (1), (NULL), (3)")
                  .ok());
  QualityRequest req;
  req.tables = {"table://wh/" + (wh_->postgres() ? wh_->schema() + "." : std::string()) + table};
  config::AssetNote note;
  note.id = req.tables[0];
  workspace_.assets.push_back(note);
  req.inline_check = Json::object({{"not_null", {column}}, {"range", {{column, {{"max", 2}}}}}});
  auto r = Run(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->tables[0].outcomes[0].observed["null_count"], 1) << Dump(*r);
  EXPECT_EQ(r->tables[0].outcomes[1].observed["max"], 3);
  ExpectCanaryAlive();
}

INSTANTIATE_TEST_SUITE_P(Backends, InjectionTest, ::testing::Values("sqlite", "postgres"),
                         warehouse::test_support::BackendName);

}  // namespace
}  // namespace dw::observe::quality
