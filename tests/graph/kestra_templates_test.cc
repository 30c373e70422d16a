// Kestra's templates: what is static resolves, what is run-time stays a template, and a template
// that never closes is refused with what never closed.
#include "graph/kestra_templates.h"

#include <gtest/gtest.h>

namespace dw::graph {
namespace {

using Kind = RenderedValue::Kind;

KestraTemplates Flow() {
  return KestraTemplates({{"vars.schema", "analytics"},
                          {"vars.table", "{{ vars.schema }}.orders"},
                          {"vars.loop", "{{ vars.loop }}"},
                          {"inputs.dest", "exports.snapshot"},
                          {"flow.namespace", "shop.etl"},
                          {"flow.id", "load"}});
}

TEST(KestraTemplates, PlainValuesAreLiterals) {
  RenderedValue r = Flow().Render("raw.orders");
  EXPECT_EQ(r.kind, Kind::kLiteral);
  EXPECT_EQ(r.text, "raw.orders");
  EXPECT_EQ(Flow().Render("a { b } c").kind, Kind::kLiteral);
}

TEST(KestraTemplates, StaticReferencesResolveInEverySpelling) {
  for (const auto& [in, out] : std::vector<std::pair<std::string, std::string>>{
           {"{{ vars.schema }}.t", "analytics.t"},
           {"{{vars['schema']}}.t", "analytics.t"},
           {"{{ vars[\"schema\"] }}.t", "analytics.t"},
           {"{{ inputs.dest }}", "exports.snapshot"},
           {"{{ flow.namespace }}.{{ flow.id }}", "shop.etl.load"},
           {"{{ vars.table }}", "analytics.orders"},             // a variable that is a template
           {"{{ render(vars.table) }}", "analytics.orders"},
           {"{{ 'raw_' ~ vars.schema }}", "raw_analytics"},      // a join of a literal and a variable
       }) {
    RenderedValue r = Flow().Render(in);
    EXPECT_EQ(r.kind, Kind::kResolved) << in;
    EXPECT_EQ(r.text, out) << in;
  }
}

TEST(KestraTemplates, RunTimeExpressionsBecomePlaceholders) {
  for (const auto& [in, out] : std::vector<std::pair<std::string, std::string>>{
           {"{{ inputs.destination_table }}", "$inputs_destination_table"},
           {"events_{{ now() | dateAdd(-1, 'DAYS') | date('yyyyMMdd') }}", "events_$now_dateAdd_1_DAYS_date_yyyyMMdd"},
           {"{{ secret('GCP_PROJECT_ID') }}", "$secret_GCP_PROJECT_ID"},
           {"{{ vars.missing }}", "$vars_missing"},
           {"{{ vars.loop }}", "$vars_loop"},  // a variable that names itself never resolves
           {"{{ vars.schema ~ trigger.date }}", "$vars_schema_trigger_date"},
           {"{% if x %}a{% endif %}", "$if_xa$endif"},
           {"{{ }}", "$template"},
       }) {
    RenderedValue r = Flow().Render(in);
    EXPECT_EQ(r.kind, Kind::kTemplated) << in;
    EXPECT_EQ(r.text, out) << in;
  }
  // Without placeholders (SQL) the run-time part is kept as written and the rest resolved.
  RenderedValue sql = Flow().Render("SELECT * FROM {{ vars.schema }}.t WHERE d = '{{ trigger.date }}'", false);
  EXPECT_EQ(sql.kind, Kind::kTemplated);
  EXPECT_EQ(sql.text, "SELECT * FROM analytics.t WHERE d = '{{ trigger.date }}'");
}

TEST(KestraTemplates, APlaceholderIsShortAndUsableInAnId) {
  std::string p = PlaceholderOf(std::string(300, 'x'));
  EXPECT_EQ(p.size(), 49u);
  EXPECT_EQ(p[0], '$');
  for (char c : PlaceholderOf("a.b/c d'e\"f{g}")) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$');
}

TEST(KestraTemplates, ATemplateThatNeverClosesIsRefusedWithWhatDidNotClose) {
  for (const std::string in : {"{{ inputs.table", "raw.{{ vars.schema }}.{{ x", "{% if a", "a {{ b } c"}) {
    RenderedValue r = Flow().Render(in);
    EXPECT_EQ(r.kind, Kind::kBroken) << in;
    EXPECT_NE(r.problem.find("never closes"), std::string::npos) << r.problem;
    EXPECT_TRUE(r.text.empty());
  }
}

}  // namespace
}  // namespace dw::graph
