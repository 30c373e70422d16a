#include "mcp/uri_template.h"

#include <gtest/gtest.h>

namespace dw::mcp {
namespace {

TEST(McpUriTemplateTest, MatchesAndExtractsVariables) {
  auto vars = MatchUriTemplate("test://template/{id}/data", "test://template/123/data");
  ASSERT_TRUE(vars);
  EXPECT_EQ(vars->at("id"), "123");
}

TEST(McpUriTemplateTest, PercentDecodesValues) {
  auto vars = MatchUriTemplate("table://{warehouse}/{name}", "table://main/loyalty%2Ebalances");
  ASSERT_TRUE(vars);
  EXPECT_EQ(vars->at("warehouse"), "main");
  EXPECT_EQ(vars->at("name"), "loyalty.balances");
}

TEST(McpUriTemplateTest, RejectsWhatDoesNotMatch) {
  const char* tmpl = "test://template/{id}/data";
  EXPECT_FALSE(MatchUriTemplate(tmpl, "test://template//data"));         // empty value
  EXPECT_FALSE(MatchUriTemplate(tmpl, "test://template/1/2/data"));      // '/' inside a value
  EXPECT_FALSE(MatchUriTemplate(tmpl, "test://template/1/data/extra"));  // trailing text
  EXPECT_FALSE(MatchUriTemplate(tmpl, "test://other/1/data"));
  EXPECT_FALSE(MatchUriTemplate(tmpl, "test://template/%zz/data"));      // bad escape
}

TEST(McpUriTemplateTest, ChecksTemplates) {
  EXPECT_TRUE(CheckUriTemplate("test://template/{id}/data").ok());
  EXPECT_TRUE(CheckUriTemplate("plain://no-variables").ok());
  EXPECT_FALSE(CheckUriTemplate("test://{id").ok());
  EXPECT_FALSE(CheckUriTemplate("test://id}").ok());
  EXPECT_FALSE(CheckUriTemplate("test://{}").ok());
  EXPECT_FALSE(CheckUriTemplate("test://{a}{b}").ok());
  EXPECT_FALSE(CheckUriTemplate("test://{+path}").ok());  // level 2 is not supported
}

}  // namespace
}  // namespace dw::mcp
