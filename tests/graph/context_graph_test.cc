// The graph's storage promises: idempotent re-ingestion, stale rather than deleted, placeholders
// for unknown assets, facts kept per source, nothing written on bad input, and the index agreeing
// with the store after a reload.
#include "graph/context_graph.h"

#include <gtest/gtest.h>

#include "graph/asset_lookup.h"
#include "graph/graph_records.h"
#include "graph/notes_source.h"
#include "tests/graph/graph_test_support.h"

namespace dw::graph {
namespace {

using test_support::Batch;
using test_support::GraphFixture;

class ContextGraphTest : public GraphFixture {};

TEST_F(ContextGraphTest, ReingestingTheSameSourceIsIdempotent) {
  SourceBatch b = Batch(Origin::kDbt, {{"table://main/a", "dbt://p/b", "feeds", nullptr},
                                       {"dbt://p/b", "dbt://p/c", "feeds", nullptr}});
  auto first = Apply(b);
  EXPECT_EQ(first.edges_added, 2);
  EXPECT_EQ(first.placeholders_added, 3);
  clock_.Advance(std::chrono::hours(1));
  auto second = Apply(b);
  EXPECT_EQ(second.edges_added, 0);
  EXPECT_EQ(second.edges_refreshed, 2);
  EXPECT_EQ(second.placeholders_added, 0);
  auto edges = store_->Edges();
  ASSERT_TRUE(edges.ok());
  EXPECT_EQ(edges->size(), 2u);
  // Last-seen moved to the second ingestion.
  const EdgeEntry* e = Edge("table://main/a", "dbt://p/b");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(int64_t{e->seen_s[static_cast<int>(Origin::kDbt)]} * 1000,
            ToUnixMillis(test_support::At("2026-11-24T15:00:00Z")));
}

TEST_F(ContextGraphTest, AnEdgeASourceNoLongerAssertsGoesStaleNotAway) {
  Apply(Batch(Origin::kDbt, {{"table://main/a", "dbt://p/b", "feeds", nullptr},
                             {"table://main/a", "dbt://p/old", "feeds", nullptr}}));
  auto r = Apply(Batch(Origin::kDbt, {{"table://main/a", "dbt://p/b", "feeds", nullptr}}));
  EXPECT_EQ(r.edges_marked_stale, 1);
  const EdgeEntry* old = Edge("table://main/a", "dbt://p/old");
  ASSERT_NE(old, nullptr);
  EXPECT_TRUE(old->IsStale());
  EXPECT_FALSE(Edge("table://main/a", "dbt://p/b")->IsStale());
  // Stored too: a reload sees the same.
  Open();
  ASSERT_NE(Edge("table://main/a", "dbt://p/old"), nullptr);
  EXPECT_TRUE(Edge("table://main/a", "dbt://p/old")->IsStale());
  // Asserting it again revives it.
  Apply(Batch(Origin::kDbt, {{"table://main/a", "dbt://p/old", "feeds", nullptr}}));
  EXPECT_FALSE(Edge("table://main/a", "dbt://p/old")->IsStale());
}

TEST_F(ContextGraphTest, AnEdgeStaysLiveWhileAnotherSourceStillAssertsIt) {
  Apply(Batch(Origin::kNotes, {{"table://main/a", "dbt://p/b", "feeds", nullptr}}));
  Apply(Batch(Origin::kDbt, {{"table://main/a", "dbt://p/b", "feeds", nullptr}}));
  Apply(Batch(Origin::kDbt, {}));  // dbt dropped it; the notes still say so
  const EdgeEntry* e = Edge("table://main/a", "dbt://p/b");
  ASSERT_NE(e, nullptr);
  EXPECT_FALSE(e->IsStale());
  EXPECT_TRUE(e->stale & (1u << static_cast<int>(Origin::kDbt)));
  auto edges = store_->Edges();
  ASSERT_TRUE(edges.ok());
  ASSERT_EQ(edges->size(), 1u);
  EXPECT_EQ((*edges)[0].origin, "notes");
  EXPECT_TRUE((*edges)[0].attrs["sources"]["dbt"]["stale"].get<bool>());
}

TEST_F(ContextGraphTest, AnEdgeToAnUnknownAssetCreatesAPlaceholder) {
  Apply(Batch(Origin::kOpenLineage, {{"kafka://prod/x", "flink://flink/job", "feeds", nullptr}}, ""));
  auto stored = store_->GetAsset("kafka://prod/x");
  ASSERT_TRUE(stored.ok());
  ASSERT_TRUE(stored->has_value());
  EXPECT_TRUE((**stored).attrs["placeholder"].get<bool>());
  EXPECT_EQ((**stored).kind, "kafka");
  // Describing it later turns it into a real asset; an edge naming it again does not undo that.
  SourceBatch notes;
  notes.origin = Origin::kNotes;
  notes.assets.push_back({.id = "kafka://prod/x", .owner = "ana@example.com"});
  Apply(notes);
  Apply(Batch(Origin::kOpenLineage, {{"kafka://prod/x", "flink://flink/job", "feeds", nullptr}}, ""));
  graph_->Read([](const GraphIndex& ix) {
    AssetIndex a = ix.Find("kafka://prod/x");
    EXPECT_FALSE(ix.asset(a).flags & kPlaceholder);
    EXPECT_EQ(ix.str(ix.asset(a).owner), "ana@example.com");
    return 0;
  });
}

TEST_F(ContextGraphTest, BadIdsAreRefusedAndNothingIsWritten) {
  SourceBatch b = Batch(Origin::kDbt, {{"table://main/a", "dbt://p/b", "feeds", nullptr},
                                       {"table://main/a", "not an id", "feeds", nullptr}});
  auto r = graph_->Apply(b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("edges[1].dst"), std::string::npos) << r.status().message();
  EXPECT_TRUE(store_->Edges()->empty());
  EXPECT_TRUE(store_->Assets()->empty());
  b.edges.pop_back();
  b.edges[0].relation = "owns";
  EXPECT_FALSE(graph_->Apply(b).ok());
  EXPECT_TRUE(store_->Edges()->empty());
}

TEST_F(ContextGraphTest, EachSourceKeepsItsOwnFactsAndNotesWin) {
  SourceBatch dbt;
  dbt.origin = Origin::kDbt;
  dbt.assets.push_back({.id = "dbt://p/m", .owner = "dbt-owner@example.com", .notes = "from dbt",
                        .aliases = {"\"db\".\"main\".\"m\""}});
  Apply(dbt);
  SourceBatch notes;
  notes.origin = Origin::kNotes;
  notes.assets.push_back({.id = "dbt://p/m", .owner = "team@example.com", .schedule = "0 22 * * *"});
  Apply(notes);
  Apply(dbt);  // dbt again: must not erase the notes' owner or schedule
  Open();
  graph_->Read([](const GraphIndex& ix) {
    AssetIndex a = ix.Find("dbt://p/m");
    EXPECT_EQ(ix.str(ix.asset(a).owner), "team@example.com");
    EXPECT_EQ(ix.details(a).schedule, "0 22 * * *");
    EXPECT_EQ(ix.details(a).notes, "from dbt");
    EXPECT_EQ(ix.FindAlias("\"db\".\"main\".\"m\""), a);
    return 0;
  });
}

TEST_F(ContextGraphTest, AnOpenLineageEventWithoutASchemaKeepsTheKnownColumns) {
  const Json columns = Json::array({{{"name", "id"}, {"type", "string"}}});
  auto ol = [&](Json cols, const std::string& owner = "") {
    SourceBatch b;
    b.origin = Origin::kOpenLineage;
    b.assets.push_back({.id = "kafka://k/t", .owner = owner, .columns = std::move(cols)});
    return b;
  };
  Apply(ol(columns));
  EXPECT_EQ(Apply(ol(nullptr)).assets_described, 1);  // no schema facet this time
  auto stored_columns = [&] {
    return graph_->Read([](const GraphIndex& ix) { return ix.details(ix.Find("kafka://k/t")).columns; });
  };
  EXPECT_EQ(stored_columns(), columns);
  Apply(ol(nullptr, "team@example.com"));  // other facts still change; the columns stay
  Open();
  EXPECT_EQ(stored_columns(), columns);
  graph_->Read([](const GraphIndex& ix) {
    EXPECT_EQ(ix.str(ix.asset(ix.Find("kafka://k/t")).owner), "team@example.com");
    return 0;
  });
  const Json other = Json::array({{{"name", "n"}, {"type", "long"}}});
  Apply(ol(other));  // a new schema replaces the old one
  EXPECT_EQ(stored_columns(), other);
  // A source read whole (dbt) that stops giving columns drops its own.
  SourceBatch dbt;
  dbt.origin = Origin::kDbt;
  dbt.assets.push_back({.id = "dbt://p/m", .columns = columns});
  Apply(dbt);
  dbt.assets[0].columns = nullptr;
  Apply(dbt);
  graph_->Read([](const GraphIndex& ix) {
    EXPECT_TRUE(ix.details(ix.Find("dbt://p/m")).columns.is_null());
    return 0;
  });
}

// A source repeating itself within kAssetSeenRefreshMs is not written again, but any change is,
// whichever fact it is; after the refresh interval the row is confirmed again. The first repeat is
// judged from the stored JSON, the later ones from what this process merged.
TEST_F(ContextGraphTest, RepeatedFactsAreNotRewrittenButEveryChangeIs) {
  auto event = [](AssetFacts f) {
    SourceBatch b;
    b.origin = Origin::kOpenLineage;
    f.id = "kafka://k/t";
    b.assets.push_back(std::move(f));
    return b;
  };
  auto stored = [&] {
    auto row = store_->GetAsset("kafka://k/t");
    EXPECT_TRUE(row.ok() && row->has_value());
    return row.ok() && row->has_value() ? (**row).attrs["sources"]["openlineage"] : Json();
  };
  const Json cols = Json::array({{{"name", "id"}, {"type", "string"}}});
  const int64_t t0 = ToUnixMillis(clock_.Now());
  Apply(event({.owner = "a@example.com", .columns = cols}));
  Open();  // the next write starts from the stored row
  for (int i = 0; i < 3; ++i) {
    clock_.Advance(std::chrono::seconds(5));
    Apply(event({.owner = "a@example.com", .columns = cols}));
    Apply(event({.owner = "a@example.com"}));  // no schema facet: the columns are kept
    EXPECT_EQ(stored()["last_seen"], t0) << "a repeat was written again";
  }
  const std::vector<AssetFacts> changes = {
      {.owner = "b@example.com", .columns = cols},
      {.owner = "b@example.com", .tags = {"customer_facing"}, .columns = cols},
      {.owner = "b@example.com", .tags = {"customer_facing"}, .notes = "n", .columns = cols},
      {.owner = "b@example.com", .tags = {"customer_facing"}, .notes = "n",
       .columns = Json::array({{{"name", "id"}, {"type", "long"}}})},
      {.owner = "b@example.com", .tags = {"customer_facing"}, .notes = "n", .columns = Json::array()},
  };
  for (const AssetFacts& f : changes) {
    clock_.Advance(std::chrono::seconds(1));
    Apply(event(f));
    Json s = stored();
    EXPECT_EQ(s["owner"], "b@example.com");
    EXPECT_EQ(s.value("tags", Json()), f.tags.empty() ? Json() : Json(f.tags));
    EXPECT_EQ(s.value("notes", Json()), f.notes.empty() ? Json() : Json(f.notes));
    EXPECT_EQ(s["columns"], f.columns);
    EXPECT_EQ(s["last_seen"], ToUnixMillis(clock_.Now()));
  }
  const int64_t changed_at = ToUnixMillis(clock_.Now());
  clock_.Advance(std::chrono::seconds(30));
  Apply(event(changes.back()));
  EXPECT_EQ(stored()["last_seen"], changed_at);
  clock_.Advance(std::chrono::milliseconds(kAssetSeenRefreshMs));
  Apply(event(changes.back()));
  EXPECT_EQ(stored()["last_seen"], ToUnixMillis(clock_.Now()) / 1000 * 1000);
}

TEST_F(ContextGraphTest, AnotherProcessesWritesAreSeenOnRefresh) {
  auto other = ContextGraph::Load(store_.get(), clock_);
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE((*other)->Apply(Batch(Origin::kDbt, {{"table://main/a", "dbt://p/b", "feeds", nullptr}})).ok());
  EXPECT_EQ(Edge("table://main/a", "dbt://p/b"), nullptr);
  ASSERT_TRUE(graph_->Refresh().ok());
  EXPECT_NE(Edge("table://main/a", "dbt://p/b"), nullptr);
}

// Two processes writing one graph: a write computed from a view that another process's write has
// since changed is computed again from the store, so neither write is lost.
TEST_F(ContextGraphTest, AWriteAfterAnotherProcessesWriteKeepsBoth) {
  SourceBatch dbt;
  dbt.origin = Origin::kDbt;
  dbt.assets.push_back({.id = "dbt://p/m", .owner = "dbt-owner@example.com", .notes = "v1"});
  Apply(dbt);  // this process now caches the row
  auto other = ContextGraph::Load(store_.get(), clock_);
  ASSERT_TRUE(other.ok());
  SourceBatch notes;
  notes.origin = Origin::kNotes;
  notes.assets.push_back({.id = "dbt://p/m", .schedule = "0 22 * * *"});
  ASSERT_TRUE((*other)->Apply(Batch(Origin::kKestra, {{"kestra://k/a.b", "dbt://p/m", "feeds", nullptr}})).ok());
  ASSERT_TRUE((*other)->Apply(notes).ok());
  dbt.assets[0].notes = "v2";
  const ApplySummary s = Apply(dbt);
  EXPECT_EQ(s.assets_described, 1);
  auto row = store_->GetAsset("dbt://p/m");
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_EQ((**row).attrs["schedule"], "0 22 * * *");  // the other process's fact survived
  EXPECT_EQ((**row).attrs["notes"], "v2");
  // And this process's index now holds the other's edge and facts too.
  EXPECT_NE(Edge("kestra://k/a.b", "dbt://p/m"), nullptr);
  graph_->Read([](const GraphIndex& ix) {
    EXPECT_EQ(ix.details(ix.Find("dbt://p/m")).schedule, "0 22 * * *");
    return 0;
  });
}

TEST_F(ContextGraphTest, RunsAreKeptAsChangeEventsOnce) {
  SourceBatch b;
  b.origin = Origin::kOpenLineage;
  b.runs.push_back({"flink://flink/job", "run-1", "FAIL", test_support::At("2026-11-24T13:00:00Z"), "boom"});
  EXPECT_EQ(Apply(b).runs_recorded, 1);
  EXPECT_EQ(Apply(b).runs_recorded, 0);
  auto events = store_->ChangeEventsFor("flink://flink/job", test_support::At("2026-11-24T00:00:00Z"),
                                        test_support::At("2026-11-25T00:00:00Z"));
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].evidence["message"], "boom");
  EXPECT_EQ((*events)[0].evidence["event_type"], "FAIL");
}

TEST_F(ContextGraphTest, WorkspaceNotesBecomeAssetsAndEdges) {
  config::AssetNote n;
  n.id = "flink://flink/points-balance";
  n.owner = "ana@example.com";
  n.reads = {"kafka://prod/points-events"};
  n.writes = {"kafka://prod/member-balances"};
  Apply(NotesBatch({n}));
  EXPECT_NE(Edge("kafka://prod/points-events", "flink://flink/points-balance"), nullptr);
  EXPECT_NE(Edge("flink://flink/points-balance", "kafka://prod/member-balances"), nullptr);
  // The note drops its write: the edge goes stale.
  n.writes.clear();
  EXPECT_EQ(Apply(NotesBatch({n})).edges_marked_stale, 1);
}

TEST_F(ContextGraphTest, UnknownIdsAnswerWithClosestMatches) {
  Apply(Batch(Origin::kNotes, {{"table://main/member_balances", "dbt://loyalty/fct_member_tier", "feeds", nullptr}}));
  graph_->Read([](const GraphIndex& ix) {
    auto r = FindAsset(ix, "table://main/member_balance");
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
    EXPECT_NE(r.status().message().find("table://main/member_balances"), std::string::npos);
    auto close = ClosestIds(ix, "fct_member", 3);
    EXPECT_FALSE(close.empty());
    if (!close.empty()) {
      EXPECT_EQ(close[0], "dbt://loyalty/fct_member_tier");
    }
    return 0;
  });
}

}  // namespace
}  // namespace dw::graph
