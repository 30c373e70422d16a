// The context graph at scale: a generated graph of ASSETS assets and EDGES edges.
//  - building the in-memory index, and its bytes per edge (target <= 64);
//  - downstream blast radius: the walk alone and the whole answer (grouping, owners, schedules,
//    JSON), p50/p99 over QUERIES random roots, results capped at 10,000 (target p99 < 10 ms);
//  - with --store: writing the graph to a SQLite state store and loading it back (load time).
// usage: graph_bench [ASSETS] [EDGES] [QUERIES] [--store DIR [--compare-old-load]]
//   defaults: 1000000 3000000 2000
//
// The generated graph mimics lineage: assets in id order form a stream of layers, each asset
// feeding 3 (on average) assets a little further on, so walks fan out like real pipelines do and
// most roots reach the 10,000 cap while late ones reach less. One in 50 assets has a schedule,
// one in 200 is customer-facing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "base/clock.h"
#include "graph/blast_radius.h"
#include "graph/context_graph.h"
#include "graph/graph_records.h"
#include "store/state_store.h"

namespace {

using Steady = std::chrono::steady_clock;
using namespace dw;
using namespace dw::graph;

double Ms(Steady::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p / 100.0 * static_cast<double>(v.size() - 1))];
}

long RssKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return 0;
}

const char* kKinds[] = {"kafka", "flink", "table", "dbt", "sync", "dashboard"};

std::string AssetName(size_t i) {
  const char* kind = kKinds[i % 6];
  return std::string(kind) + "://gen/" + (std::strcmp(kind, "table") == 0 ? "s" + std::to_string(i % 97) + ".t" : "a") +
         std::to_string(i);
}

struct Generated {
  std::vector<std::pair<uint32_t, uint32_t>> edges;
};

Generated Generate(size_t assets, size_t edges) {
  std::mt19937_64 rng(42);
  Generated g;
  g.edges.reserve(edges);
  const size_t per = std::max<size_t>(1, edges / assets);
  for (size_t i = 0; g.edges.size() < edges; i = (i + 1) % assets) {
    for (size_t k = 0; k < per && g.edges.size() < edges; ++k) {
      size_t span = 1 + rng() % 2000;
      size_t j = i + span;
      if (j >= assets) continue;
      g.edges.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(j));
    }
  }
  return g;
}

void BuildIndex(GraphIndex* ix, size_t assets, const Generated& g) {
  ix->Reserve(assets, g.edges.size());
  const uint32_t seen = static_cast<uint32_t>(ToUnixMillis(RealClock().Now()) / 1000);
  uint32_t owner = ix->InternString("owner@example.com"), domain = ix->InternString("loyalty");
  for (size_t i = 0; i < assets; ++i) {
    AssetIndex a = ix->Intern(AssetName(i), static_cast<uint8_t>(KindIndex(kKinds[i % 6])));
    AssetEntry& e = ix->mutable_asset(a);
    e.flags = i % 200 == 0 ? kCustomerFacing : 0;
    e.owner = owner;
    e.domain = domain;
    if (i % 50 == 0) ix->mutable_details(a).schedule = "0 22 * * *";
  }
  for (auto [s, d] : g.edges) {
    EdgeEntry e;
    e.src = s;
    e.dst = d;
    e.origins = 1;
    e.seen_s[0] = seen;
    ix->AddEdge(e);
  }
}

}  // namespace

int main(int argc, char** argv) {
  size_t assets = 1000000, edges = 3000000, queries = 2000;
  std::string store_dir;
  bool compare_old_load = false;
  std::vector<std::string> pos;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--compare-old-load") {
      compare_old_load = true;
    } else if (std::string(argv[i]) == "--store" && i + 1 < argc) {
      store_dir = argv[++i];
    } else {
      pos.push_back(argv[i]);
    }
  }
  if (pos.size() > 0) assets = std::stoul(pos[0]);
  if (pos.size() > 1) edges = std::stoul(pos[1]);
  if (pos.size() > 2) queries = std::stoul(pos[2]);

  std::printf("graph: %zu assets, %zu edges\n", assets, edges);
  Generated g = Generate(assets, edges);
  long rss0 = RssKb();
  GraphIndex ix;
  auto t0 = Steady::now();
  BuildIndex(&ix, assets, g);
  double build_ms = Ms(Steady::now() - t0);
  long rss1 = RssKb();
  std::printf("index build (from memory): %.0f ms\n", build_ms);
  std::printf("edge bytes: %zu (%.1f bytes/edge: entries %zu B each, adjacency both ways, list headers)\n",
              ix.EdgeBytes(), static_cast<double>(ix.EdgeBytes()) / static_cast<double>(ix.edge_count()),
              sizeof(EdgeEntry));
  std::printf("asset bytes (approx.): %zu (%.1f bytes/asset); process RSS grew by %ld MB\n", ix.AssetBytes(),
              static_cast<double>(ix.AssetBytes()) / static_cast<double>(assets), (rss1 - rss0) / 1024);

  std::mt19937_64 rng(7);
  DownstreamWalker walker(ix);
  WalkResult walk;
  WalkOptions wo;
  std::vector<double> walk_ms, answer_ms, sizes;
  for (size_t q = 0; q < queries; ++q) {
    AssetIndex root = static_cast<AssetIndex>(rng() % assets);
    auto a = Steady::now();
    walker.Walk({root}, wo, &walk);
    walk_ms.push_back(Ms(Steady::now() - a));
    sizes.push_back(static_cast<double>(walk.reached.size()));
  }
  BlastRadiusOptions bo;
  const TimePoint now = RealClock().Now();
  for (size_t q = 0; q < std::min<size_t>(queries, 500); ++q) {
    std::string root = ix.id(static_cast<AssetIndex>(rng() % assets));
    auto a = Steady::now();
    auto r = BlastRadius(ix, {root}, bo, now);
    std::string body = r->body.dump();
    answer_ms.push_back(Ms(Steady::now() - a));
  }
  std::printf("blast radius results: p50 %.0f, p99 %.0f, max %.0f assets (cap 10000)\n", Percentile(sizes, 50),
              Percentile(sizes, 99), Percentile(sizes, 100));
  std::printf("blast radius walk, %zu queries: p50 %.3f ms, p99 %.3f ms\n", queries, Percentile(walk_ms, 50),
              Percentile(walk_ms, 99));
  std::printf("blast radius whole answer incl. JSON text, %zu queries: p50 %.2f ms, p99 %.2f ms\n",
              answer_ms.size(), Percentile(answer_ms, 50), Percentile(answer_ms, 99));

  if (!store_dir.empty()) {
    SimulatedClock clock(now);
    auto st = store::OpenStateStore(store_dir + "/state.db", clock);
    if (!st.ok()) {
      std::fprintf(stderr, "%s\n", st.status().ToString().c_str());
      return 1;
    }
    // A store already holding this generated graph (an earlier run on the same DIR) is reused.
    const std::string shape = std::to_string(assets) + "/" + std::to_string(edges);
    auto written = (*st)->GetCursor("bench.graph");
    const bool reuse = written.ok() && written->value_or("") == shape;
    auto w0 = Steady::now();
    std::vector<store::GraphAsset> rows;
    const size_t chunk = 100000;
    for (size_t i = 0; i < assets && !reuse; ++i) {
      store::GraphAsset r;
      r.id = ix.id(static_cast<AssetIndex>(i));
      r.kind = ix.kind_name(static_cast<AssetIndex>(i));
      r.owner = "owner@example.com";
      r.domain = "loyalty";
      r.attrs = Json{{"placeholder", false}};
      rows.push_back(std::move(r));
      if (rows.size() == chunk || i + 1 == assets) {
        if (Status s = (*st)->UpsertAssets(rows); !s.ok()) return std::fprintf(stderr, "%s\n", s.ToString().c_str()), 1;
        rows.clear();
      }
    }
    std::vector<store::GraphEdge> erows;
    for (EdgeIndex e = 0; e < ix.edge_count() && !reuse; ++e) {
      erows.push_back(EdgeRecord(ix.id(ix.edge(e).src), ix.id(ix.edge(e).dst), ix.edge(e), nullptr));
      if (erows.size() == chunk || e + 1 == ix.edge_count()) {
        if (Status s = (*st)->UpsertEdges(erows); !s.ok()) return std::fprintf(stderr, "%s\n", s.ToString().c_str()), 1;
        erows.clear();
      }
    }
    if (reuse) {
      std::printf("store write: skipped (%s already holds this graph)\n", store_dir.c_str());
    } else {
      (void)(*st)->SetCursor("bench.graph", shape);
      std::printf("store write (SQLite, %zu-row transactions): %.1f s\n", chunk, Ms(Steady::now() - w0) / 1000);
    }
    auto l0 = Steady::now();
    auto loaded = ContextGraph::Load(st->get(), clock);
    if (!loaded.ok()) return std::fprintf(stderr, "%s\n", loaded.status().ToString().c_str()), 1;
    double load_ms = Ms(Steady::now() - l0);
    long rss_loaded = RssKb();
    if (compare_old_load) {
      // The row-vector, JSON-document-per-row path the loader used before (for an A/B figure).
      auto o0 = Steady::now();
      GraphIndex old;
      auto assets_rows = (*st)->Assets();
      auto edge_rows = (*st)->Edges();
      if (!assets_rows.ok() || !edge_rows.ok()) return std::fprintf(stderr, "old load failed\n"), 1;
      old.Reserve(assets_rows->size(), edge_rows->size());
      for (const auto& a : *assets_rows) (void)IndexAssetRecord(a, &old);
      for (const auto& e : *edge_rows) (void)IndexEdgeRecord(e, &old);
      std::printf("old load path (row vectors, a JSON document per row), same store: %.1f s\n",
                  Ms(Steady::now() - o0) / 1000);
    }
    (*loaded)->Read([&](const GraphIndex& x) {
      std::printf("load from the state store into the index: %.1f s (%zu assets, %zu edges; RSS now %ld MB)\n",
                  load_ms / 1000, x.asset_count(), x.edge_count(), rss_loaded / 1024);
      std::printf("loaded index edge bytes: %.1f bytes/edge\n",
                  static_cast<double>(x.EdgeBytes()) / static_cast<double>(x.edge_count()));
      // The blast radius on the loaded index (the one `dw serve` answers from).
      DownstreamWalker w(x);
      WalkResult wr;
      std::vector<double> ms;
      for (size_t q = 0; q < queries; ++q) {
        AssetIndex root = static_cast<AssetIndex>(rng() % x.asset_count());
        auto a = Steady::now();
        w.Walk({root}, wo, &wr);
        ms.push_back(Ms(Steady::now() - a));
      }
      std::printf("blast radius walk on the loaded index, %zu queries: p50 %.3f ms, p99 %.3f ms\n", queries,
                  Percentile(ms, 50), Percentile(ms, 99));
      return 0;
    });
  }
  return 0;
}
