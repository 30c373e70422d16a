// Fingerprints stand in for comparing facts on the commit path: equal facts must give equal
// fingerprints, and every kind of difference a source can make must change them.
#include "graph/facts_fingerprint.h"

#include <gtest/gtest.h>

#include <set>

namespace dw::graph {
namespace {

AssetFacts Full() {
  return {.id = "kafka://k/t", .domain = "loyalty", .owner = "o@example.com", .schedule = "0 22 * * *",
          .customer_facing = true, .tags = {"a", "b"}, .impact_sql = "SELECT 1", .notes = "n",
          .aliases = {"x"}, .columns = Json::array({{{"name", "id"}, {"type", "string"}}})};
}

TEST(FactsFingerprintTest, EqualFactsGiveEqualFingerprints) {
  EXPECT_EQ(FactsFingerprint(Full()), FactsFingerprint(Full()));
  EXPECT_EQ(JsonFingerprint(Full().columns), JsonFingerprint(Json::parse(Full().columns.dump())));
  AssetFacts other_id = Full();
  other_id.id = "kafka://k/u";  // the id and the columns are not part of the facts' fingerprint
  other_id.columns = nullptr;
  EXPECT_EQ(FactsFingerprint(other_id), FactsFingerprint(Full()));
}

TEST(FactsFingerprintTest, EveryFactChangesTheFingerprint) {
  std::vector<AssetFacts> variants(11, Full());
  variants[1].domain = "";
  variants[2].owner = "p@example.com";
  variants[3].schedule = "0 23 * * *";
  variants[4].customer_facing = false;
  variants[5].customer_facing.reset();
  variants[6].tags = {"b", "a"};  // order is part of what a source said
  variants[7].impact_sql = "SELECT 2";
  variants[8].notes = "";
  variants[9].aliases = {};
  // Moving text from one field to the next must not cancel out.
  variants[10].owner = variants[10].domain + variants[10].owner;
  variants[10].domain = "";
  std::set<uint64_t> seen;
  for (const AssetFacts& f : variants) seen.insert(FactsFingerprint(f));
  EXPECT_EQ(seen.size(), variants.size());
  AssetFacts split = Full(), joined = Full();
  split.tags = {"ab", "c"};
  joined.tags = {"a", "bc"};
  EXPECT_NE(FactsFingerprint(split), FactsFingerprint(joined));
}

TEST(FactsFingerprintTest, JsonTypesAndStructureChangeTheFingerprint) {
  const std::vector<Json> values = {
      nullptr, Json::array(), Json::object(), 1, 2, "1", 1.5, true, false,
      Json::array({1, 2}), Json::array({2, 1}), Json::array({Json::array({1}), 2}), Json::array({1, Json::array({2})}),
      Json{{"name", "id"}}, Json{{"name", "ID"}}, Json{{"nam", "eid"}}, Json{{"a", Json::object()}}, Json{{"a", nullptr}},
  };
  std::set<uint64_t> seen;
  for (const Json& v : values) seen.insert(JsonFingerprint(v));
  EXPECT_EQ(seen.size(), values.size());
  // Object keys are sorted, so the order they were written in does not matter.
  EXPECT_EQ(JsonFingerprint(Json::parse(R"({"a":1,"b":2})")), JsonFingerprint(Json::parse(R"({"b":2,"a":1})")));
}

}  // namespace
}  // namespace dw::graph
