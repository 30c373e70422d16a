// The streaming OpenLineage reader against the DOM path it replaces on the hot paths: on every
// reference event (Flink's integration) and on a catalogue of malformed ones, both must give the
// same batch or the same error (JSON path and message).
#include <gtest/gtest.h>

#include <functional>

#include "graph/openlineage_event.h"
#include "graph/openlineage_reader.h"
#include "tests/graph/graph_test_support.h"

namespace dw::graph {
namespace {

using test_support::At;
using test_support::FlinkEvent;
using test_support::GraphFixture;
using test_support::TestData;

// Everything a batch holds, as JSON, so two batches compare in one EXPECT.
Json BatchJson(const SourceBatch& b) {
  Json j = {{"origin", OriginName(b.origin)}, {"stale_scope", b.stale_scope}, {"stale_assets", b.stale_assets}};
  j["assets"] = Json::array();
  for (const AssetFacts& a : b.assets)
    j["assets"].push_back({{"id", a.id}, {"domain", a.domain}, {"owner", a.owner}, {"schedule", a.schedule},
                           {"tags", a.tags}, {"notes", a.notes}, {"aliases", a.aliases}, {"columns", a.columns}});
  j["edges"] = Json::array();
  for (const EdgeFacts& e : b.edges)
    j["edges"].push_back({{"src", e.src}, {"dst", e.dst}, {"relation", e.relation}, {"columns", e.columns}});
  j["runs"] = Json::array();
  for (const JobRun& r : b.runs)
    j["runs"].push_back({{"job", r.job}, {"run_id", r.run_id}, {"type", r.event_type},
                         {"at", ToUnixMillis(r.at)}, {"message", r.message}});
  return j;
}

class OpenLineageReaderTest : public GraphFixture {
 protected:
  OpenLineageReaderTest() {
    // A warm graph: names resolve against recorded assets and aliases, not only derived ids.
    SourceBatch notes = test_support::Batch(Origin::kNotes, {{"kafka://prod/io.openlineage.flink.kafka.input1",
                                                              "flink://flink/flink_examples_stateful", "feeds", nullptr}});
    AssetFacts t;
    t.id = "table://main/public.orders";
    t.aliases = {"postgres://db:5432/shop.public.orders_v"};
    notes.assets.push_back(t);
    Apply(notes);
  }

  // Both paths on `text`; returns the DOM path's outcome after checking they agree.
  void ExpectSame(const std::string& text, const std::string& what) {
    const TimePoint now = clock_.Now();
    graph_->Read([&](const GraphIndex& ix) {
      Json dom = Json::parse(text, nullptr, false);
      auto sax = RunEventTextBatch(text, ix, now);
      if (dom.is_discarded()) {
        EXPECT_FALSE(sax.ok()) << what;
        if (!sax.ok()) {
          EXPECT_EQ(sax.status().message(), "not valid JSON") << what;
        }
        return 0;
      }
      auto old = RunEventBatch(dom, ix, now);
      EXPECT_EQ(old.ok(), sax.ok()) << what << "\nDOM: " << old.status().ToString()
                                    << "\nSAX: " << sax.status().ToString();
      if (old.ok() && sax.ok()) {
        EXPECT_EQ(BatchJson(*old), BatchJson(*sax)) << what;
      } else if (!old.ok() && !sax.ok()) {
        EXPECT_EQ(old.status().message(), sax.status().message()) << what;
        EXPECT_EQ(sax.status().code(), StatusCode::kInvalidArgument) << what;
      }
      return 0;
    });
  }
};

const char* const kReference[] = {"OL-flink1-expected_kafka.json", "OL-flink1-expected_failed.json",
                                   "OL-flink2-expected_sql_kafka.json"};

TEST_F(OpenLineageReaderTest, AgreesWithTheDomPathOnEveryReferenceEventAndType) {
  for (const char* name : kReference) {
    Json e = FlinkEvent(name);
    ExpectSame(e.dump(), name);
    ExpectSame(e.dump(2), std::string(name) + " (indented)");
    for (const char* type : {"START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER"}) {
      Json t = e;
      t["eventType"] = type;
      ExpectSame(t.dump(), std::string(name) + " as " + type);
    }
    Json no_type = e;
    no_type.erase("eventType");
    no_type.erase("eventTime");
    ExpectSame(no_type.dump(), std::string(name) + " without type and time");
  }
}

TEST_F(OpenLineageReaderTest, ReadsTheFieldsOfTheFlinkEvent) {
  auto b = graph_->Read([&](const GraphIndex& ix) {
    return RunEventTextBatch(FlinkEvent("OL-flink2-expected_sql_kafka.json").dump(), ix, clock_.Now());
  });
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_FALSE(b->edges.empty());
  EXPECT_FALSE(b->assets.empty());
  EXPECT_EQ(b->assets[0].id.rfind("flink://", 0), 0u) << b->assets[0].id;
}

TEST_F(OpenLineageReaderTest, AgreesWithTheDomPathOnMalformedEvents) {
  const Json good = FlinkEvent("OL-flink1-expected_kafka.json");
  // Column lineage and symlinks, so their branches are reached too.
  Json rich = good;
  rich["outputs"][0]["facets"]["columnLineage"] = {
      {"fields", {{"b", {{"inputFields", {{{"namespace", "kafka://kafka-cluster-prod:9092"},
                                           {"name", "io.openlineage.flink.kafka.input1"}, {"field", "x"}}}}}},
                  {"a", {{"inputFields", Json::array()}}}}}};
  rich["inputs"][0]["facets"]["symlinks"] = {
      {"identifiers", {{{"namespace", "postgres://db:5432"}, {"name", "shop.public.orders_v"}, {"type", "TABLE"}}}}};
  ExpectSame(rich.dump(), "rich");
  std::vector<std::pair<std::string, std::function<void(Json&)>>> cases = {
      {"not an object", [](Json& e) { e = Json::array({1}); }},
      {"a string", [](Json& e) { e = "event"; }},
      {"null", [](Json& e) { e = nullptr; }},
      {"eventType unknown", [](Json& e) { e["eventType"] = "DONE"; }},
      {"eventType number", [](Json& e) { e["eventType"] = 3; }},
      {"eventType null", [](Json& e) { e["eventType"] = nullptr; }},
      {"eventType empty", [](Json& e) { e["eventType"] = ""; }},
      {"eventTime bad", [](Json& e) { e["eventTime"] = "yesterday"; }},
      {"eventTime null", [](Json& e) { e["eventTime"] = nullptr; }},
      {"eventTime object", [](Json& e) { e["eventTime"] = Json::object(); }},
      {"run missing", [](Json& e) { e.erase("run"); }},
      {"run array", [](Json& e) { e["run"] = Json::array(); }},
      {"run null", [](Json& e) { e["run"] = nullptr; }},
      {"runId missing", [](Json& e) { e["run"].erase("runId"); }},
      {"runId empty", [](Json& e) { e["run"]["runId"] = ""; }},
      {"runId number", [](Json& e) { e["run"]["runId"] = 5; }},
      {"run facets string", [](Json& e) { e["run"]["facets"] = "x"; }},
      {"run facets null", [](Json& e) { e["run"]["facets"] = nullptr; }},
      {"errorMessage not object", [](Json& e) { e["run"]["facets"]["errorMessage"] = 1; }},
      {"errorMessage message number", [](Json& e) { e["run"]["facets"]["errorMessage"] = {{"message", 1}}; }},
      {"engine name", [](Json& e) {
         e["job"]["facets"].erase("jobType");
         e["run"]["facets"]["processing_engine"] = {{"name", "Flink"}};
       }},
      {"engine name number", [](Json& e) {
         e["job"]["facets"].erase("jobType");
         e["run"]["facets"]["processing_engine"] = {{"name", 1}};
       }},
      {"integration number", [](Json& e) { e["job"]["facets"]["jobType"]["integration"] = 7; }},
      {"integration unknown", [](Json& e) {
         e["job"]["facets"]["jobType"]["integration"] = "SPARK";
         e["job"]["name"] = "never-seen";
       }},
      {"jobType not object", [](Json& e) { e["job"]["facets"]["jobType"] = "FLINK"; }},
      {"job missing", [](Json& e) { e.erase("job"); }},
      {"job string", [](Json& e) { e["job"] = "j"; }},
      {"job namespace missing", [](Json& e) { e["job"].erase("namespace"); }},
      {"job name number", [](Json& e) { e["job"]["name"] = 7; }},
      {"job name bad id", [](Json& e) { e["job"]["name"] = "a b/../"; }},
      {"job facets array", [](Json& e) { e["job"]["facets"] = Json::array(); }},
      {"inputs object", [](Json& e) { e["inputs"] = Json::object(); }},
      {"inputs null", [](Json& e) { e["inputs"] = nullptr; }},
      {"outputs string", [](Json& e) { e["outputs"] = "x"; }},
      {"input not object", [](Json& e) { e["inputs"][1] = 3; }},
      {"input name missing", [](Json& e) { e["inputs"][1].erase("name"); }},
      {"input namespace empty", [](Json& e) { e["inputs"][0]["namespace"] = ""; }},
      {"input facets string", [](Json& e) { e["inputs"][0]["facets"] = "f"; }},
      {"input facets null", [](Json& e) { e["inputs"][0]["facets"] = nullptr; }},
      {"schema not object", [](Json& e) { e["outputs"][0]["facets"]["schema"] = nullptr; }},
      {"schema fields object", [](Json& e) { e["outputs"][0]["facets"]["schema"]["fields"] = Json::object(); }},
      {"schema field string", [](Json& e) { e["outputs"][0]["facets"]["schema"]["fields"][2] = "x"; }},
      {"schema field name missing", [](Json& e) { e["outputs"][0]["facets"]["schema"]["fields"][0].erase("name"); }},
      {"schema field type number", [](Json& e) { e["outputs"][0]["facets"]["schema"]["fields"][0]["type"] = 1; }},
      {"schema empty fields", [](Json& e) { e["outputs"][0]["facets"]["schema"]["fields"] = Json::array(); }},
      {"symlinks array", [](Json& e) { e["inputs"][0]["facets"]["symlinks"] = Json::array(); }},
      {"identifiers object", [](Json& e) { e["inputs"][0]["facets"]["symlinks"]["identifiers"] = Json::object(); }},
      {"identifier name missing", [](Json& e) { e["inputs"][0]["facets"]["symlinks"]["identifiers"][0].erase("name"); }},
      {"identifier not object", [](Json& e) { e["inputs"][0]["facets"]["symlinks"]["identifiers"][0] = 1; }},
      {"columnLineage string", [](Json& e) { e["outputs"][0]["facets"]["columnLineage"] = "c"; }},
      {"columnLineage fields missing", [](Json& e) { e["outputs"][0]["facets"]["columnLineage"].erase("fields"); }},
      {"columnLineage fields array", [](Json& e) { e["outputs"][0]["facets"]["columnLineage"]["fields"] = Json::array(); }},
      {"column spec number", [](Json& e) { e["outputs"][0]["facets"]["columnLineage"]["fields"]["b"] = 1; }},
      {"inputFields missing", [](Json& e) { e["outputs"][0]["facets"]["columnLineage"]["fields"]["b"].erase("inputFields"); }},
      {"inputFields object", [](Json& e) { e["outputs"][0]["facets"]["columnLineage"]["fields"]["a"]["inputFields"] = Json::object(); }},
      {"input field missing field", [](Json& e) {
         e["outputs"][0]["facets"]["columnLineage"]["fields"]["b"]["inputFields"][0].erase("field");
       }},
      {"two problems: the first in validation order wins", [](Json& e) {
         e["outputs"][0]["facets"]["columnLineage"]["fields"]["b"]["inputFields"][0].erase("field");
         e["outputs"][0]["facets"]["columnLineage"]["fields"]["a"] = 1;
         e["inputs"][1].erase("namespace");
       }},
      {"unused facets of every shape", [](Json& e) {
         e["inputs"][0]["facets"]["custom"] = {{"deep", {{"er", {1, 2, {{"schema", "not this one"}}}}}}};
         e["run"]["facets"]["parent"] = {{"job", {{"name", 7}}}};
         e["extra"] = {{"run", 1}, {"job", nullptr}};
       }},
  };
  for (auto& [what, breakit] : cases) {
    Json e = rich;
    breakit(e);
    ExpectSame(e.dump(), what);
  }
}

TEST_F(OpenLineageReaderTest, AgreesOnRepeatedKeysAndBrokenText) {
  // nlohmann's DOM keeps the last of repeated keys; so must the reader.
  std::string base = FlinkEvent("OL-flink1-expected_kafka.json").dump();
  ASSERT_EQ(base.front(), '{');
  const std::vector<std::string> prefixes = {
      R"("run": {"runId": "first", "facets": {"errorMessage": {"message": "old"}}}, )",
      R"("job": "x", )",
      R"("inputs": [{"namespace": "kafka://a:1", "name": "gone"}], )",
      R"("outputs": 3, )",
      R"("eventType": "DONE", )",
  };
  for (const std::string& p : prefixes) ExpectSame("{" + p + base.substr(1), "prefix " + p);
  ExpectSame(base.substr(0, base.size() - 1) + R"(, "run": {"runId": "last"}, "eventType": "FAIL"})", "suffix run");
  ExpectSame(base.substr(0, base.size() - 1) + R"(, "inputs": null})", "suffix inputs null");
  for (const std::string& broken : {std::string("{not json"), base.substr(0, base.size() / 2), base + "x",
                                    base + " " + base, std::string(""), std::string("[1,]")})
    ExpectSame(broken, "broken: " + broken.substr(0, 20));
}

TEST_F(OpenLineageReaderTest, JsonLinesAcrossThreadsKeepLineOrderAndReportEveryBadLine) {
  Json e = FlinkEvent("OL-flink1-expected_kafka.json");
  std::string text;
  for (int i = 0; i < 1200; ++i) {
    e["run"]["runId"] = "run-" + std::to_string(i);
    e["eventType"] = "FAIL";
    text += e.dump() + (i % 100 == 0 ? "\n\n" : "\n");  // blank lines count as lines
  }
  for (int threads : {1, 4}) {
    auto b = graph_->Read([&](const GraphIndex& ix) { return RunEventLinesBatches(text, ix, clock_.Now(), threads); });
    ASSERT_TRUE(b.refused.empty()) << b.refused[0].reason;
    ASSERT_EQ(b.batches.size(), 1200u);
    EXPECT_EQ(b.batches[0].runs.at(0).run_id, "run-0");
    EXPECT_EQ(b.batches[1199].runs.at(0).run_id, "run-1199");
  }
  // Break the events on lines 302 and 1000 (line numbers count the blank lines).
  std::vector<std::string> lines;
  for (size_t p = 0, q; p < text.size(); p = q + 1) {
    q = text.find('\n', p);
    lines.push_back(text.substr(p, q - p));
  }
  lines[301] = "{oops";
  lines[999] = R"({"run": {}})";
  std::string broken;
  for (const std::string& l : lines) broken += l + "\n";
  for (int threads : {1, 4}) {
    auto b = graph_->Read([&](const GraphIndex& ix) { return RunEventLinesBatches(broken, ix, clock_.Now(), threads); });
    // Each bad line is refused on its own; the 1,198 others are read.
    ASSERT_EQ(b.refused.size(), 2u) << threads;
    EXPECT_EQ(b.refused[0].line, 302u);
    EXPECT_EQ(b.refused[0].reason, "not valid JSON");
    EXPECT_EQ(b.refused[1].line, 1000u);
    EXPECT_EQ(b.refused[1].reason, "$.run.runId: required");
    EXPECT_EQ(b.batches.size(), 1198u) << threads;
  }
}

TEST(OpenLineageReaderTextTest, ArraysAndDepth) {
  auto two = ParseRunEventText(R"([{"a": 1}, 2])", /*allow_array=*/true);
  ASSERT_TRUE(two.ok());
  EXPECT_TRUE(two->array);
  ASSERT_EQ(two->events.size(), 2u);
  EXPECT_EQ(two->events[0].shape, JsonShape::kObject);
  EXPECT_EQ(two->events[1].shape, JsonShape::kOther);
  auto one = ParseRunEventText(R"([{"a": 1}])", /*allow_array=*/false);
  ASSERT_TRUE(one.ok());
  EXPECT_FALSE(one->array);
  EXPECT_EQ(one->events.at(0).shape, JsonShape::kArray);
  RunEventTextError why = RunEventTextError::kNone;
  auto deep = ParseRunEventText(R"({"a": [[[{"b": 1}]]]})", true, 3, &why);
  EXPECT_FALSE(deep.ok());
  EXPECT_EQ(why, RunEventTextError::kTooDeep);
  EXPECT_FALSE(ParseRunEventText(R"({"a": [[{"b": 1}]]})", true, 3).ok());  // "b" is 4 deep
  EXPECT_TRUE(ParseRunEventText(R"({"a": [[1, {}]]})", true, 3).ok());
  auto bad = ParseRunEventText("{", true, 0, &why);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(why, RunEventTextError::kSyntax);
}

// Found by the openlineage fuzz target (UBSan: a signed overflow converting the time).
TEST(OpenLineageReaderTextTest, AnEventTimePastWhatATimePointHoldsIsRefusedWithItsPath) {
  auto read = ParseRunEventText(R"({"eventTime":"4725-12-01T00:00:00Z" })", /*allow_array=*/false);
  ASSERT_TRUE(read.ok());
  Status st = ValidateRunEventFields(read->events.at(0));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("$.eventTime"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace dw::graph
