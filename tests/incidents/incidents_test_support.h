// Test support for the judgement stage: a desk on a private state store (SQLite, or PostgreSQL
// under scripts/with-postgres.sh) with a simulated clock and a context graph built from an example
// workspace's notes or from edges a test lists; helpers that store change events and make signals
// of the shapes the collectors, checks and monitors produce.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/rfc3339.h"
#include "config/workspace.h"
#include "graph/context_graph.h"
#include "graph/notes_source.h"
#include "incidents/incidents.h"
#include "store/state_store.h"
#include "tests/store/store_test_support.h"
#include "tests/support/build_paths.h"

namespace dw::incidents::test_support {

inline TimePoint At(const std::string& rfc3339) { return *ParseRfc3339(rfc3339); }

class DeskTest : public store::test_support::StoreOnEachBackend {
 protected:
  DeskTest() : StoreOnEachBackend(At("2026-11-24T13:00:00Z")) {}

  void SetUp() override {
    StoreOnEachBackend::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    auto g = graph::ContextGraph::Load(store_.get(), clock_);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(g).value();
  }

  // Loads examples/<name> and puts its notes into the graph; the desk uses its settings.
  void UseExample(const std::string& name) {
    auto loaded = config::LoadWorkspace(std::filesystem::path(DW_SOURCE_DIR) / "examples" / name);
    ASSERT_TRUE(loaded.ok()) << loaded.ErrorText();
    ws_ = *loaded.workspace;
    auto applied = graph_->Apply(graph::NotesBatch(ws_.assets));
    ASSERT_TRUE(applied.ok()) << applied.status().ToString();
    options_ = DeskOptionsFor(ws_);
  }

  // Notes a test writes itself: each entry is {id, reads..., "|", writes...} reduced to edges.
  void UseEdges(const std::vector<std::pair<std::string, std::string>>& edges,
                const std::vector<graph::AssetFacts>& assets = {}) {
    graph::SourceBatch b;
    b.origin = graph::Origin::kNotes;
    b.stale_scope = "*";
    b.assets = assets;
    for (const auto& [src, dst] : edges) b.edges.push_back({src, dst, "feeds", Json()});
    auto applied = graph_->Apply(b);
    ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  }

  IncidentDesk& Desk() {
    if (!desk_) desk_ = std::make_unique<IncidentDesk>(*store_, graph_.get(), clock_, options_);
    return *desk_;
  }

  // Stores a change event as a collector would.
  store::ChangeEvent AddEvent(const std::string& key, const std::string& asset, const std::string& kind,
                              const std::string& at, double risk, Json evidence = Json::object(),
                              const std::string& reason = "") {
    store::ChangeEvent e;
    e.dedup_key = key;
    e.asset_id = asset;
    e.kind = kind;
    e.happened_at = At(at);
    e.observed_at = At(at);
    e.evidence = std::move(evidence);
    e.risk = risk;
    e.reason = reason.empty() ? kind + " on " + asset : reason;
    auto added = store_->AddChangeEvent(e);
    EXPECT_TRUE(added.ok()) << added.status().ToString();
    return e;
  }

  static Signal ChangeSignal(const store::ChangeEvent& e) {
    Signal s;
    s.kind = SignalKind::kChange;
    s.key = "change:" + e.dedup_key;
    s.asset_id = e.asset_id;
    s.at = e.happened_at;
    s.shape = SignalShape::kStateDropped;
    s.value = e.risk;
    s.summary = e.kind + " on " + e.asset_id + ": " + e.reason;
    return s;
  }

  static Signal MetricSignal(const std::string& metric, const std::string& asset, const std::string& at,
                             double value, double expected, bool bad = true) {
    Signal s;
    s.kind = SignalKind::kMetric;
    s.key = "metric:" + metric;
    s.asset_id = asset;
    s.at = At(at);
    s.bad = bad;
    s.value = value;
    s.expected = expected;
    s.shape = bad ? (value <= expected * 0.5 ? SignalShape::kLevelDrop : SignalShape::kUnknown) : SignalShape::kUnknown;
    s.summary = metric + (bad ? " is anomalous" : " is normal");
    return s;
  }

  static Signal CheckSignal(const std::string& table, const std::string& check, const std::string& at, bool bad = true,
                            SignalShape shape = SignalShape::kUnknown) {
    Signal s;
    s.kind = SignalKind::kCheck;
    s.key = "check:" + table + ":" + check;
    s.asset_id = table;
    s.at = At(at);
    s.bad = bad;
    s.shape = bad ? shape : SignalShape::kUnknown;
    s.summary = check + " on " + table + (bad ? " failed" : " passed");
    return s;
  }

  EvaluationReport Evaluate(std::vector<Signal> signals) {
    SignalBatch b;
    b.signals = std::move(signals);
    auto r = Desk().Evaluate(b);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : EvaluationReport{};
  }

  Incident Get(const std::string& id) {
    auto i = Desk().Get(id);
    EXPECT_TRUE(i.ok()) << i.status().ToString();
    return i.ok() ? *i : Incident{};
  }

  std::unique_ptr<graph::ContextGraph> graph_;
  config::Workspace ws_;
  DeskOptions options_;
  std::unique_ptr<IncidentDesk> desk_;
};

inline std::string BackendName(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

}  // namespace dw::incidents::test_support
