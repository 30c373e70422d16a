// Loading the index from scanned store rows: the fast edge reader (no JSON document) must index
// exactly what the DOM reader indexes, fall back to it for anything unusual, and refuse bad rows.
#include <gtest/gtest.h>

#include "graph/graph_records.h"
#include "tests/graph/graph_test_support.h"

namespace dw::graph {
namespace {

void ExpectSameEdges(const GraphIndex& a, const GraphIndex& b) {
  ASSERT_EQ(a.edge_count(), b.edge_count());
  ASSERT_EQ(a.asset_count(), b.asset_count());
  for (EdgeIndex e = 0; e < a.edge_count(); ++e) {
    const EdgeEntry& x = a.edge(e);
    const EdgeEntry& y = b.edge(e);
    EXPECT_EQ(a.id(x.src), b.id(y.src));
    EXPECT_EQ(a.id(x.dst), b.id(y.dst));
    EXPECT_EQ(x.origins, y.origins) << a.id(x.src);
    EXPECT_EQ(x.stale, y.stale) << a.id(x.src);
    EXPECT_EQ(x.seen_s, y.seen_s) << a.id(x.src);
    EXPECT_EQ(x.relation, y.relation);
    EXPECT_EQ(a.edge_columns(e), b.edge_columns(e));
  }
}

TEST(GraphLoadTest, FastEdgeRowsIndexLikeTheDomReader) {
  std::vector<store::GraphEdge> rows;
  EdgeEntry plain;
  plain.origins = 1;
  plain.seen_s[0] = 1764000000;
  rows.push_back(EdgeRecord("kafka://k/a", "flink://f/j", plain, nullptr));
  EdgeEntry mixed;
  mixed.origins = 0b1101;
  mixed.stale = 0b0100;
  mixed.seen_s = {1764000001, 0, 1764000002, 1764000003};
  mixed.relation = Relation::kTriggers;
  rows.push_back(EdgeRecord("kestra://k/a.b", "kestra://k/a.c", mixed, nullptr));
  rows.push_back(EdgeRecord("flink://f/j", "kafka://k/b", plain,
                            Json::array({{{"column", "x"}, {"from", Json::array()}}})));
  // Hand-written attrs the store never writes but a person might have: each takes the DOM path.
  rows.push_back({"kafka://k/c", "flink://f/j", "feeds", "", Json::parse(R"({"sources": {"notes": {"last_seen": 5000.5, "stale": false}}})"), {}});
  rows.push_back({"kafka://k/d", "flink://f/j", "feeds", "", Json::parse(R"({"sources": {"dbt": 1, "kestra": {"last_seen": 9000}}})"), {}});
  rows.push_back({"kafka://k/e", "flink://f/j", "feeds", "", Json::parse(R"({"sources": {"nobody": {"stale": true}}, "extra": [1]})"), {}});
  rows.push_back({"kafka://k/f", "flink://f/j", "feeds", "", Json::parse(R"({})"), {}});
  GraphIndex dom, fast;
  for (const auto& r : rows) {
    ASSERT_TRUE(IndexEdgeRecord(r, &dom).ok());
    std::string attrs = r.attrs.dump();
    ASSERT_TRUE(IndexEdgeRow({r.src, r.dst, r.relation, attrs}, &fast).ok()) << attrs;
  }
  ExpectSameEdges(dom, fast);
  EXPECT_EQ(fast.edge(1).stale, 0b0100);
  EXPECT_EQ(fast.edge(1).seen_s[3], 1764000003u);
}

TEST(GraphLoadTest, BadRowsAreDataLoss) {
  GraphIndex ix;
  EXPECT_EQ(IndexEdgeRow({"kafka://k/a", "flink://f/j", "eats", "{}"}, &ix).code(), StatusCode::kDataLoss);
  EXPECT_EQ(IndexEdgeRow({"not an id", "flink://f/j", "feeds", R"({"sources": {}})"}, &ix).code(),
            StatusCode::kDataLoss);
  EXPECT_EQ(IndexEdgeRow({"kafka://k/a", "flink://f/j", "feeds", "{oops"}, &ix).code(), StatusCode::kDataLoss);
  EXPECT_EQ(IndexAssetRow({"kafka://k/a", "kafka", "", "", "[oops"}, &ix).code(), StatusCode::kDataLoss);
  EXPECT_EQ(IndexAssetRow({"bad id", "kafka", "", "", "{}"}, &ix).code(), StatusCode::kDataLoss);
  EXPECT_EQ(ix.edge_count(), 0u);
}

class GraphReloadTest : public test_support::GraphFixture {};

TEST_F(GraphReloadTest, AReloadedGraphEqualsTheOneThatWroteIt) {
  SourceBatch b = test_support::Batch(Origin::kDbt, {{"table://main/a", "dbt://p/m", "feeds", nullptr},
                                                     {"dbt://p/m", "dashboard://d/x", "feeds",
                                                      Json::array({{{"column", "c"}, {"from", Json::array()}}})}});
  AssetFacts m;
  m.id = "dbt://p/m";
  m.owner = "ana@example.com";
  m.aliases = {"db.main.m"};
  b.assets.push_back(m);
  Apply(b);
  Apply(test_support::Batch(Origin::kNotes, {{"table://main/a", "dbt://p/m", "feeds", nullptr}}));
  Apply(test_support::Batch(Origin::kDbt, {}));  // dbt no longer asserts its edges: stale
  GraphIndex before;
  graph_->Read([&](const GraphIndex& ix) {
    before = GraphIndex();
    for (AssetIndex a = 0; a < ix.asset_count(); ++a) before.Intern(ix.id(a), ix.asset(a).kind);
    for (EdgeIndex e = 0; e < ix.edge_count(); ++e) {
      before.AddEdge(ix.edge(e));
      before.set_edge_columns(e, ix.edge_columns(e));
    }
    return 0;
  });
  Open();
  graph_->Read([&](const GraphIndex& ix) {
    EXPECT_EQ(ix.FindAlias("db.main.m"), ix.Find("dbt://p/m"));
    EXPECT_EQ(ix.str(ix.asset(ix.Find("dbt://p/m")).owner), "ana@example.com");
    EXPECT_EQ(ix.edge_count(), before.edge_count());
    for (EdgeIndex e = 0; e < ix.edge_count(); ++e) {
      AssetIndex s = before.Find(ix.id(ix.edge(e).src)), d = before.Find(ix.id(ix.edge(e).dst));
      EdgeIndex was = s == kNone || d == kNone ? kNone : before.FindEdge(s, d, ix.edge(e).relation);
      EXPECT_NE(was, kNone) << ix.id(ix.edge(e).src);
      if (was == kNone) continue;
      EXPECT_EQ(before.edge(was).origins, ix.edge(e).origins);
      EXPECT_EQ(before.edge(was).stale, ix.edge(e).stale);
      EXPECT_EQ(before.edge(was).seen_s, ix.edge(e).seen_s);
      EXPECT_EQ(before.edge_columns(was), ix.edge_columns(e));
    }
    return 0;
  });
}

}  // namespace
}  // namespace dw::graph
