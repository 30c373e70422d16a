// Test support for the context graph: a graph on a private SQLite state store with a simulated
// clock, and paths to the real-shaped inputs in testdata/.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "base/rfc3339.h"
#include "graph/context_graph.h"
#include "store/state_store.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw::graph::test_support {

inline TimePoint At(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

inline std::filesystem::path TestData(const std::string& name) {
  return std::filesystem::path(DW_SOURCE_DIR) / "tests/graph/testdata" / name;
}

inline Json ReadJson(const std::filesystem::path& p) {
  return Json::parse(dw::testing::ReadWholeFile(p));
}

// The Flink integration's template events (testdata/OL-*.json) with a real time and run id in place
// of the matchers; `type` replaces the eventType when given.
inline Json FlinkEvent(const std::string& name, const std::string& type = "") {
  std::string text = dw::testing::ReadWholeFile(TestData(name));
  const std::string any = "\"${json-unit.any-string}\"";
  for (std::string::size_type p; (p = text.find(any)) != std::string::npos;)
    text.replace(p, any.size(), "\"2026-11-24T14:02:00Z\"");
  Json e = Json::parse(text);
  e["run"]["runId"] = "0193a1f2-7c1e-7d4a-9f00-" + name.substr(3, 12);
  if (!type.empty()) e["eventType"] = type;
  return e;
}

class GraphFixture : public ::testing::Test {
 protected:
  GraphFixture() : clock_(At("2026-11-24T14:00:00Z")) { Open(); }

  void Open() {
    graph_.reset();
    store_.reset();
    auto s = store::OpenStateStore((dir_.path() / "state.db").string(), clock_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
    auto g = ContextGraph::Load(store_.get(), clock_);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(g).value();
  }

  ApplySummary Apply(const SourceBatch& b) {
    auto r = graph_->Apply(b);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ApplySummary{};
  }

  // The edge src -> dst (feeds), or nullptr.
  const EdgeEntry* Edge(const std::string& src, const std::string& dst) {
    return graph_->Read([&](const GraphIndex& ix) -> const EdgeEntry* {
      AssetIndex s = ix.Find(src), d = ix.Find(dst);
      if (s == kNone || d == kNone) return nullptr;
      EdgeIndex e = ix.FindEdge(s, d, Relation::kFeeds);
      return e == kNone ? nullptr : &ix.edge(e);
    });
  }

  dw::testing::TempDir dir_;
  SimulatedClock clock_;
  std::unique_ptr<store::StateStore> store_;
  std::unique_ptr<ContextGraph> graph_;
};

inline SourceBatch Batch(Origin origin, std::vector<EdgeFacts> edges, std::string scope = "*") {
  SourceBatch b;
  b.origin = origin;
  b.stale_scope = std::move(scope);
  b.edges = std::move(edges);
  return b;
}

}  // namespace dw::graph::test_support
