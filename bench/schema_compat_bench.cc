// dw-schema speed (docs/PERFORMANCE.md): a 500-field Avro record checked against 100 earlier
// versions at FULL_TRANSITIVE (target under 50 ms), and the whole compatibility corpus (target
// under 1 s). Parsing the 101 schemas alone is measured in the same run as the baseline of the
// first figure (the check re-parses every version, as a call from a tool does).
//   build/schema_compat_bench --benchmark_min_time=0.5 --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "schema/corpus_case.h"
#include "schema/schema.h"
#include "tests/support/build_paths.h"

namespace {

using dw::Json;
namespace schema = dw::schema;

// Version v of a 500-field record: fields 0..499 (a mix of types, nested records and unions),
// plus v optional fields added with defaults, so every version is FULL compatible with every other.
std::string Version(int v) {
  Json fields = Json::array();
  const char* types[] = {"int", "long", "string", "double", "boolean"};
  for (int i = 0; i < 500; ++i) {
    Json f = {{"name", "f" + std::to_string(i)}};
    if (i % 50 == 0)
      f["type"] = {{"type", "record"}, {"name", "Nested" + std::to_string(i)},
                   {"fields", {{{"name", "a"}, {"type", "string"}}, {{"name", "b"}, {"type", {{"type", "array"}, {"items", "long"}}}}}}};
    else if (i % 7 == 0)
      f["type"] = Json::array({"null", types[i % 5]}), f["default"] = nullptr;
    else
      f["type"] = types[i % 5];
    fields.push_back(f);
  }
  for (int k = 0; k < v; ++k) fields.push_back({{"name", "added" + std::to_string(k)}, {"type", {"null", "string"}}, {"default", nullptr}});
  return Json{{"type", "record"}, {"name", "Wide"}, {"namespace", "bench"}, {"fields", fields}}.dump();
}

struct Wide {
  std::vector<schema::EarlierSchema> history;
  std::string fresh;
  Wide() {
    for (int v = 0; v < 100; ++v) history.push_back({v + 1, Version(v), schema::Format::kAvro});
    fresh = Version(100);
  }
};
const Wide& TheWide() {
  static Wide w;
  return w;
}

void BM_ParseOnly_101Schemas500Fields(benchmark::State& state) {
  const Wide& w = TheWide();
  for (auto _ : state) {
    for (const auto& e : w.history) benchmark::DoNotOptimize(schema::Parse(e.text, schema::Format::kAvro));
    benchmark::DoNotOptimize(schema::Parse(w.fresh, schema::Format::kAvro));
  }
}
BENCHMARK(BM_ParseOnly_101Schemas500Fields)->Unit(benchmark::kMillisecond);

// The JSON decoding alone (nlohmann), the floor under any parse of the 101 texts.
void BM_JsonDecodeOnly_101Schemas500Fields(benchmark::State& state) {
  const Wide& w = TheWide();
  for (auto _ : state) {
    for (const auto& e : w.history) benchmark::DoNotOptimize(Json::parse(e.text));
    benchmark::DoNotOptimize(Json::parse(w.fresh));
  }
}
BENCHMARK(BM_JsonDecodeOnly_101Schemas500Fields)->Unit(benchmark::kMillisecond);

void BM_FullTransitive_500Fields_100Versions(benchmark::State& state) {
  const Wide& w = TheWide();
  for (auto _ : state) {
    auto r = schema::CheckCompatibility(w.fresh, schema::Format::kAvro, w.history, schema::Level::kFullTransitive);
    if (!r.ok() || !r->compatible || r->checked_versions.size() != 100) state.SkipWithError("the wide check did not pass all 100 versions");
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_FullTransitive_500Fields_100Versions)->Unit(benchmark::kMillisecond);

std::vector<schema::CorpusCase> LoadCorpus() {
  std::vector<schema::CorpusCase> all;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(DW_SOURCE_DIR) / "tests/schema/corpus")) {
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    auto cases = schema::ParseCorpus(Json::parse(ss.str()));
    if (cases.ok()) all.insert(all.end(), cases->begin(), cases->end());
  }
  return all;
}

void BM_WholeCorpus(benchmark::State& state) {
  static const std::vector<schema::CorpusCase> corpus = LoadCorpus();
  size_t disagreements = 0;
  for (auto _ : state)
    for (const auto& c : corpus) disagreements += schema::ReplayCorpusCase(c).empty() ? 0 : 1;
  state.counters["cases"] = static_cast<double>(corpus.size());
  if (disagreements) state.SkipWithError("a corpus case disagrees");
}
BENCHMARK(BM_WholeCorpus)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
