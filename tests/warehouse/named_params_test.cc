#include "warehouse/named_params.h"

#include <gtest/gtest.h>

namespace dw::warehouse {
namespace {

TEST(NamedParamsTest, RewritesNamesOutsideQuotesCommentsAndCasts) {
  auto r = BindNamedParameters(
      "SELECT ':since', \":since\", $$ :since $$, x::text -- :since\n"
      "FROM t /* :since */ WHERE a >= :since AND b < :until AND c >= :since",
      {{"since", std::string("2026-11-24T14:02:00Z")}, {"until", int64_t{5}}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->sql,
            "SELECT ':since', \":since\", $$ :since $$, x::text -- :since\n"
            "FROM t /* :since */ WHERE a >= $1 AND b < $2 AND c >= $1");
  ASSERT_EQ(r->params.size(), 2u);
  EXPECT_EQ(std::get<std::string>(r->params[0]), "2026-11-24T14:02:00Z");
  EXPECT_EQ(std::get<int64_t>(r->params[1]), 5);
}

TEST(NamedParamsTest, AnEscapedQuoteDoesNotEndTheString) {
  auto r = BindNamedParameters("SELECT 'it''s :since' WHERE a = :since", {{"since", int64_t{1}}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->sql, "SELECT 'it''s :since' WHERE a = $1");
}

TEST(NamedParamsTest, NamesParameterReadsAsBindingDoes) {
  EXPECT_TRUE(NamesParameter("SELECT 1 WHERE a < :window_end", "window_end"));
  EXPECT_TRUE(NamesParameter("SELECT 1 WHERE a < :window_end::timestamptz", "window_end"));
  EXPECT_FALSE(NamesParameter("SELECT 1 WHERE a < :window_ends", "window_end"));
  EXPECT_FALSE(NamesParameter("SELECT ':window_end' -- :window_end", "window_end"));
  EXPECT_FALSE(NamesParameter("SELECT \":window_end\" /* :window_end */ FROM t", "window_end"));
  EXPECT_FALSE(NamesParameter("SELECT a::window_end FROM t", "window_end"));
  EXPECT_FALSE(NamesParameter("SELECT $$ :window_end $$", "window_end"));
}

TEST(NamedParamsTest, AParameterWithoutAValueIsNamed) {
  auto r = BindNamedParameters("SELECT :window_start", {{"since", int64_t{1}}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find(":window_start has no value (available: :since)"),
            std::string::npos);
}

}  // namespace
}  // namespace dw::warehouse
