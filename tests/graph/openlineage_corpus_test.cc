// OpenLineage as real producers send it: the corpus under testdata/ol-corpus/ (one JSON-lines file
// per failure class, written to the spec and to the shapes Airflow, Spark, Flink, dbt-ol and Marquez
// emit) must give the asset ids, edges, column lineage and refusals its expected.json names, both
// through `dw ingest openlineage FILE` (Ingest of a file: every good line stored, each bad one
// named by line) and through the HTTP intake one line per request, as a producer posts them.
#include <gtest/gtest.h>

#include "graph/dbt_manifest.h"
#include "graph/ingest.h"
#include "graph/openlineage_event.h"
#include "net/http_client.h"
#include "tests/graph/graph_test_support.h"

namespace dw::graph {
namespace {

using test_support::GraphFixture;
using test_support::ReadJson;
using test_support::TestData;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  for (size_t p = 0; p < text.size();) {
    size_t q = text.find('\n', p);
    if (q == std::string::npos) q = text.size();
    out.push_back(text.substr(p, q - p));
    p = q + 1;
  }
  return out;
}

class OpenLineageCorpusTest : public GraphFixture {
 protected:
  static Json Expected(const std::string& file) {
    return ReadJson(TestData("ol-corpus/expected.json")).at(file);
  }

  void ApplyManifest(const Json& expect) {
    if (!expect.contains("manifest")) return;
    Json m = ReadJson(TestData("ol-corpus/" + expect["manifest"].get<std::string>()));
    auto b = graph_->Read([&](const GraphIndex& ix) { return DbtManifestBatch(m, "main", ix); });
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    Apply(*b);
  }

  // The file through the front door `dw ingest openlineage` calls.
  Json IngestFile(const std::string& file) {
    config::Workspace ws;
    auto http = net::MakeCurlHttpClient();
    auto r = Ingest(ws, *http, *graph_, IngestSource::OpenLineageFile(TestData("ol-corpus/" + file)));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : Json();
  }

  // Each non-blank line as one HTTP body; the refused ones by line number -> the intake's error.
  std::map<std::string, std::string> PostLines(const std::string& file) {
    std::map<std::string, std::string> refused;
    std::vector<std::string> lines = Lines(dw::testing::ReadWholeFile(TestData("ol-corpus/" + file)));
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].find_first_not_of(" \t\r") == std::string::npos) continue;
      auto read = ReadOpenLineageBody(lines[i], 64);
      Status st = read.status();
      if (read.ok()) {
        auto r = IngestRunEvents(*graph_, *read);
        st = r.status();
      }
      if (!st.ok()) refused[std::to_string(i + 1)] = st.message();
    }
    return refused;
  }

  void ExpectGraph(const Json& expect, const std::string& how) {
    graph_->Read([&](const GraphIndex& ix) {
      for (const Json& id : expect.value("assets", Json::array()))
        EXPECT_NE(ix.Find(id.get<std::string>()), kNone) << how << ": no asset " << id;
      for (const Json& prefix : expect.value("no_assets_with_prefix", Json::array()))
        for (AssetIndex a = 0; a < ix.asset_count(); ++a)
          EXPECT_FALSE(ix.id(a).starts_with(prefix.get<std::string>())) << how << ": unexpected asset " << ix.id(a);
      for (AssetIndex a = 0; a < ix.asset_count(); ++a)
        EXPECT_EQ(ix.FindEdge(a, a, Relation::kFeeds), kNone) << how << ": a self-cycle on " << ix.id(a);
      auto edge = [&](const Json& e) {
        AssetIndex s = ix.Find(e[0].get<std::string>()), d = ix.Find(e[1].get<std::string>());
        return s == kNone || d == kNone ? kNone : ix.FindEdge(s, d, Relation::kFeeds);
      };
      for (const Json& e : expect.value("edges", Json::array())) EXPECT_NE(edge(e), kNone) << how << ": no edge " << e;
      for (const Json& e : expect.value("no_edges", Json::array())) EXPECT_EQ(edge(e), kNone) << how << ": edge " << e;
      for (const Json& c : expect.value("edge_columns", Json::array())) {
        EdgeIndex e = edge(c["edge"]);
        if (e == kNone) {
          ADD_FAILURE() << how << ": no edge " << c["edge"];
          continue;
        }
        const Json& cols = ix.edge_columns(e);
        bool found = false;
        for (const Json& col : cols.is_array() ? cols : Json::array())
          if (col.value("column", "") == c["column"])
            for (const Json& f : col["from"]) found = found || f == c["from"];
        EXPECT_TRUE(found) << how << ": " << c.dump() << "\nthe edge's columns: " << cols.dump();
      }
      const Json columns = expect.value("columns", Json::object()), aliases = expect.value("aliases", Json::object());
      for (const auto& [id, names] : columns.items()) {
        AssetIndex a = ix.Find(id);
        if (a == kNone) continue;
        Json got = Json::array();
        for (const Json& c : ix.details(a).columns) got.push_back(c["name"]);
        EXPECT_EQ(got, names) << how << ": columns of " << id;
      }
      for (const auto& [id, alias] : aliases.items())
        EXPECT_EQ(ix.FindAlias(alias.get<std::string>()), ix.Find(id)) << how << ": alias " << alias;
      return 0;
    });
  }

  void ExpectRefused(const Json& expect, const std::map<std::string, std::string>& refused, const std::string& how) {
    std::map<std::string, std::string> want = expect["refused"].get<std::map<std::string, std::string>>();
    EXPECT_EQ(refused.size(), want.size()) << how;
    for (const auto& [line, reason] : want) {
      auto it = refused.find(line);
      if (it == refused.end()) {
        ADD_FAILURE() << how << ": line " << line << " was not refused";
        continue;
      }
      EXPECT_EQ(it->second.rfind(reason, 0), 0u) << how << ": line " << line << ": " << it->second;
    }
  }

  // The whole check of one corpus file, through the file intake and then, on a fresh graph, line
  // by line through the HTTP intake.
  void Check(const std::string& file) {
    const Json expect = Expected(file);
    ApplyManifest(expect);
    Json r = IngestFile(file);
    std::map<std::string, std::string> refused;
    for (const Json& l : r.value("refused", Json::array()))
      refused[std::to_string(l["line"].get<size_t>())] = l["error"].get<std::string>();
    EXPECT_EQ(r.value("refused_count", size_t{0}), refused.size());
    ExpectRefused(expect, refused, file + " as a file");
    ExpectGraph(expect, file + " as a file");

    graph_.reset();
    store_.reset();
    for (const char* f : {"state.db", "state.db-wal", "state.db-shm"}) std::filesystem::remove(dir_.path() / f);
    Open();
    ApplyManifest(expect);
    ExpectRefused(expect, PostLines(file), file + " over HTTP");
    ExpectGraph(expect, file + " over HTTP");
  }
};

TEST_F(OpenLineageCorpusTest, RunJobAndDatasetEventsAreEachReadAndAnUntoldTypeIsRefusedByLine) {
  Check("event-types.jsonl");
}

TEST_F(OpenLineageCorpusTest, JobsAndDatasetsOfDifferentNamespacesNeverMerge) { Check("namespaces.jsonl"); }

TEST_F(OpenLineageCorpusTest, DbtOlBesideItsManifestIsTheManifestsModelWithItsColumnLineage) {
  Check("dbt-ol.jsonl");
}

TEST_F(OpenLineageCorpusTest, ColumnLineageNamesInputsByAssetIdWhenTheyCameOnlyWithStart) {
  Check("column-lineage-start-inputs.jsonl");
}

TEST_F(OpenLineageCorpusTest, EventTimesWithoutAnOffsetAreUtcAndUnparseableOnesAreRefused) {
  Check("times.jsonl");
  const Json expect = Expected("times.jsonl");
  std::vector<std::string> lines = Lines(dw::testing::ReadWholeFile(TestData("ol-corpus/times.jsonl")));
  for (const auto& [line, at] : expect["runs"].items()) {
    const std::string text = lines.at(std::stoul(line) - 1);
    auto b = graph_->Read([&](const GraphIndex& ix) { return RunEventTextBatch(text, ix, clock_.Now()); });
    ASSERT_TRUE(b.ok()) << line << ": " << b.status().ToString();
    ASSERT_EQ(b->runs.size(), 1u);
    EXPECT_EQ(FormatRfc3339(b->runs[0].at), at.get<std::string>()) << line;
    // The DOM path reads the same time.
    auto dom = graph_->Read([&](const GraphIndex& ix) { return RunEventBatch(Json::parse(text), ix, clock_.Now()); });
    ASSERT_TRUE(dom.ok()) << dom.status().ToString();
    EXPECT_EQ(dom->runs.at(0).at, b->runs[0].at);
  }
}

TEST_F(OpenLineageCorpusTest, AFileOfOnlyBadLinesIsRefusedNamingItsFirstLine) {
  dir_.Write("bad.jsonl", "\n{oops\n{\"producer\": \"x\"}\n");
  config::Workspace ws;
  auto http = net::MakeCurlHttpClient();
  auto r = Ingest(ws, *http, *graph_, IngestSource::OpenLineageFile(dir_.path() / "bad.jsonl"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("bad.jsonl:2: not valid JSON (no line of 2 could be read)"), std::string::npos)
      << r.status().message();
}

TEST_F(OpenLineageCorpusTest, AManifestOfEveryVersionFromV7IsRead) {
  Json m = ReadJson(TestData("ol-corpus/dbt-manifest-v7-jaffle.json"));
  for (const char* v : {"v7", "v8", "v9", "v10", "v11", "v12", "v20"}) {
    m["metadata"]["dbt_schema_version"] = std::string("https://schemas.getdbt.com/dbt/manifest/") + v + ".json";
    auto b = graph_->Read([&](const GraphIndex& ix) { return DbtManifestBatch(m, "main", ix); });
    ASSERT_TRUE(b.ok()) << v << ": " << b.status().ToString();
    bool model_edge = false;
    for (const EdgeFacts& e : b->edges) model_edge = model_edge || (e.src == "table://main/public.stg_orders" && e.dst == "dbt://jaffle_shop/orders");
    EXPECT_TRUE(model_edge) << v;
  }
}

}  // namespace
}  // namespace dw::graph
