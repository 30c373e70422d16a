// What the desk's routes read from a request (desk/request_parsing.h), without a workspace: the
// functions the desk_requests fuzz target drives.
#include "desk/request_parsing.h"

#include <gtest/gtest.h>

#include "desk/csrf_token.h"

namespace dw::desk {
namespace {

config::Workspace TwoDomains() {
  config::Workspace ws;
  ws.domains["payments"] = {};
  ws.domains["growth"] = {};
  return ws;
}

TEST(DeskRequestParsingTest, IncidentFiltersReadTheirVocabulary) {
  auto p = ParseIncidentListParams({{"domain", "payments"}, {"severity", "SEV2"}, {"status", "open"}}, TwoDomains());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->domain, "payments");
  EXPECT_EQ(p->severity, 2);
  ASSERT_TRUE(p->status.has_value());
  EXPECT_EQ(*p->status, incidents::IncidentStatus::kOpen);
  auto any = ParseIncidentListParams({{"domain", ""}, {"severity", ""}}, TwoDomains());
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->severity, 0);
}

TEST(DeskRequestParsingTest, ABadFilterNamesItsParameterAndQuotesAtMost80Characters) {
  const std::string huge(5000, 'x');
  for (const Query& q : {Query{{"domain", huge}}, Query{{"severity", huge}}, Query{{"status", huge}},
                         Query{{huge, "1"}}, Query{{"status", "open"}, {"status", "closed"}}}) {
    auto p = ParseIncidentListParams(q, TwoDomains());
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
    EXPECT_LT(p.status().message().size(), 300u) << p.status().message();
  }
}

TEST(DeskRequestParsingTest, TheAssetSearchTakesFourFieldsOfAtMost200Characters) {
  auto q = ParseAssetQuery({{"q", "fct_"}, {"kind", "table"}, {"owner", "pay"}, {"domain", "payments"}});
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->text, "fct_");
  EXPECT_EQ(q->limit, 200u);
  auto too_long = ParseAssetQuery({{std::string(500, 'k'), std::string(201, 'v')}});
  ASSERT_FALSE(too_long.ok());
  EXPECT_LT(too_long.status().message().size(), 300u) << too_long.status().message();
  EXPECT_FALSE(ParseAssetQuery({{"size", "3"}}).ok());
  EXPECT_FALSE(ParseAssetQuery({{"q", "a"}, {"q", "b"}}).ok());
}

TEST(DeskRequestParsingTest, APositiveDecimalIsDigitsOnlyAndNotZero) {
  EXPECT_EQ(ParsePositiveDecimal("7", 18), 7);
  EXPECT_EQ(ParsePositiveDecimal("007", 18), 7);
  EXPECT_EQ(ParsePositiveDecimal("999999999999999999", 18), 999999999999999999);
  for (const char* bad : {"", "0", "00", "-1", "+1", "1x", " 1", "x7", "1234567890123456789"})
    EXPECT_FALSE(ParsePositiveDecimal(bad, 18).has_value()) << bad;
  // The decision form's version: 9 digits at most, and a version 0 (the newest, to the store) is
  // not one the form ever shows.
  EXPECT_FALSE(ParsePositiveDecimal("1234567890", 9).has_value());
  EXPECT_FALSE(ParsePositiveDecimal("0", 9).has_value());
}

TEST(DeskRequestParsingTest, TheFormDecodesAndRefusesRepeatsAndBadEscapes) {
  std::map<std::string, std::string> f;
  ASSERT_TRUE(ParseForm("verdict=approve&reason=hold+it%21&&csrf=", &f));
  EXPECT_EQ(f["reason"], "hold it!");
  EXPECT_EQ(f["csrf"], "");
  std::map<std::string, std::string> g;
  EXPECT_FALSE(ParseForm("a=1&a=2", &g));
  std::map<std::string, std::string> h;
  EXPECT_FALSE(ParseForm("a=%zz", &h));
  std::map<std::string, std::string> i;
  EXPECT_FALSE(ParseForm("a=%4", &i));
}

TEST(DeskRequestParsingTest, TheCsrfCookieIsReadByItsExactName) {
  EXPECT_EQ(CookieValue("dw_session=s; dw_csrf=abc", kCsrfCookie), "abc");
  EXPECT_EQ(CookieValue("x_dw_csrf=abc", kCsrfCookie), "");
}

// A token matches only with its own binding, in both the form and the cookie; a token anyone can
// write (a planted cookie with the same value in the form) never does.
TEST(DeskCsrfTokenTest, ATokenMatchesOnlyItsBindingAndItsOwnCookie) {
  const std::string token = NewCsrfToken("approve:link-A");
  ASSERT_EQ(token.size(), 113u);
  EXPECT_TRUE(CsrfMatches("dw_session=s; dw_csrf=" + token, token, "approve:link-A"));
  EXPECT_FALSE(CsrfMatches("dw_csrf=" + token, token, "approve:link-B"));
  EXPECT_FALSE(CsrfMatches("dw_csrf=" + token, token, "decide:P1\nana@example.com"));
  EXPECT_FALSE(CsrfMatches("dw_csrf=" + NewCsrfToken("approve:link-A"), token, "approve:link-A"));  // another form's cookie
  EXPECT_FALSE(CsrfMatches("", token, "approve:link-A"));
  std::string altered = token;
  altered.back() = altered.back() == '0' ? '1' : '0';
  EXPECT_FALSE(CsrfMatches("dw_csrf=" + altered, altered, "approve:link-A"));
  const std::string planted = std::string(48, 'a') + "." + std::string(64, 'b');
  EXPECT_FALSE(CsrfMatches("dw_csrf=" + planted, planted, "approve:link-A"));
  EXPECT_FALSE(CsrfMatches("dw_csrf=abc", "abc", "approve:link-A"));
  EXPECT_FALSE(CsrfMatches("dw_csrf=", "", ""));
  EXPECT_NE(NewCsrfToken("approve:link-A"), token);  // a fresh nonce each time
}

}  // namespace
}  // namespace dw::desk
