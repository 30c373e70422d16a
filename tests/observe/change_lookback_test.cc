// The first collection pass reads a lookback window (changes.initial_lookback, 24 h by default)
// instead of a blind baseline: generated families of Kestra revisions and executions and of Flink
// restores, at random times inside and outside the window (seeded), are reported exactly when
// inside it, once, also when a job moves later; a Kestra revision carries the diff of its source
// against the revision it replaced, cut when long; a connector's state Connect cannot date says
// that its time is an upper bound.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <set>

#include "base/iso_time.h"
#include "observe/changes/change_kinds.h"
#include "observe/changes/collector.h"
#include "tests/observe/change_test_support.h"
#include "tests/platforms/platform_test_support.h"

namespace dw::observe::changes {
namespace {

using dw::testing::LoadScript;
using dw::testing::PlatformAt;
using dw::testing::StartSim;
using test_support::At;

constexpr int64_t kHour = 3600 * 1000;

class ChangeLookbackTest : public test_support::ChangeStoreTest {
 protected:
  ChangeLookbackTest() : ChangeStoreTest(At("2026-11-25T02:36:00Z")) {}

  int64_t NowMs() const { return ToUnixMillis(clock_.Now()); }
  // A store that has never collected (each seed's world is onboarded afresh).
  void FreshStore() {
    store_.reset();
    for (const char* f : {"state.db", "state.db-wal", "state.db-shm"}) std::filesystem::remove(dir_.path() / f);
    OpenStore();
  }
  void MoveSimClock(const std::string& url, TimePoint t) {
    net::HttpRequest req;
    req.method = "POST";
    req.url = url + "/_sim/clock";
    req.body = Json{{"now", FormatRfc3339(t)}}.dump();
    ASSERT_TRUE(http_->Send(req).ok());
  }
  // Times in (now - 3 lookbacks, now], plus the window's edge and a millisecond beyond it.
  static std::vector<int64_t> Offsets(std::mt19937& rng, int n, int64_t lookback_ms) {
    std::vector<int64_t> out = {lookback_ms, lookback_ms + 1};
    std::uniform_int_distribution<int64_t> d(0, 3 * lookback_ms);
    for (int i = 0; i < n; ++i) out.push_back(d(rng));
    return out;
  }
};

std::string FlowSource(const std::string& id, int revision) {
  return "id: " + id + "\nnamespace: gen\ntasks:\n  - id: fetch\n    type: io.kestra.plugin.core.http.Request\n"
         "    uri: https://api.example.com/v" + std::to_string(revision) + "/rates\n";
}

// Kestra: each flow saved its revision 2 at a random time; each has one execution started at
// another. With the default lookback (24 h, not the 7 days of before), the first pass reports
// exactly the revisions saved and the executions started inside it, each once.
TEST_F(ChangeLookbackTest, TheFirstKestraPassReportsExactlyTheRevisionsAndExecutionsInsideTheWindow) {
  for (unsigned seed : {35u, 36u, 37u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const int64_t now = NowMs(), lookback = 24 * kHour;
    const auto offsets = Offsets(rng, 10, lookback);
    Json flows = Json::array(), executions = Json::array();
    std::set<std::string> revised_in_window, executed_in_window;
    ws_ = {};
    for (size_t i = 0; i < offsets.size(); ++i) {
      const std::string id = "flow_" + std::to_string(i);
      const int64_t saved = now - offsets[i];
      flows.push_back({{"namespace", "gen"}, {"id", id}, {"revision", 2}, {"source", FlowSource(id, 2)},
                       {"revisions", {{{"revision", 1}, {"at", FormatRfc3339(FromUnixMillis(now - 40 * 24 * kHour))},
                                       {"source", FlowSource(id, 1)}},
                                      {{"revision", 2}, {"at", FormatRfc3339(FromUnixMillis(saved))},
                                       {"source", FlowSource(id, 2)}}}}});
      if (saved >= now - lookback) revised_in_window.insert("kestra://kestra/gen." + id);
      const int64_t started = now - offsets[(i + 3) % offsets.size()];
      const std::string exec_id = "exec" + std::to_string(seed) + "x" + std::to_string(i);
      executions.push_back({{"id", exec_id}, {"namespace", "gen"}, {"flowId", id}, {"flowRevision", 2},
                            {"state", "SUCCESS"}, {"start", FormatRfc3339(FromUnixMillis(started))},
                            {"end", FormatRfc3339(FromUnixMillis(std::min(now, started + 60000)))}});
      if (started >= now - lookback) executed_in_window.insert(exec_id);
      config::AssetNote note;
      note.id = "kestra://kestra/gen." + id;
      ws_.assets.push_back(note);
    }
    auto kestra = StartSim(sim::Platform::kKestra,
                           {{"now", FormatRfc3339(clock_.Now())}, {"flows", flows}, {"executions", executions}});
    ASSERT_NE(kestra, nullptr);
    ws_.platforms["kestra"] = PlatformAt("kestra", "kestra", kestra->url());
    FreshStore();
    auto first = Collect();
    ASSERT_EQ(first.platforms.size(), 1u);
    EXPECT_TRUE(first.platforms[0].errors.empty()) << first.platforms[0].errors[0];

    std::multiset<std::string> revised, executed;
    for (const auto& e : Events(kFlowRevision)) {
      revised.insert(e.asset_id);
      EXPECT_EQ(e.evidence["from_revision"], 1);
      EXPECT_EQ(e.evidence["time_source"], "platform");
    }
    for (const auto& e : Events(kExecution)) executed.insert(e.evidence["execution_id"].get<std::string>());
    EXPECT_EQ(revised, std::multiset<std::string>(revised_in_window.begin(), revised_in_window.end()));
    EXPECT_EQ(executed, std::multiset<std::string>(executed_in_window.begin(), executed_in_window.end()));
    EXPECT_FALSE(revised_in_window.empty());
    EXPECT_LT(revised_in_window.size(), offsets.size());

    // Later passes add nothing: what was outside the window stays the baseline.
    clock_.Advance(std::chrono::hours(1));
    MoveSimClock(kestra->url(), clock_.Now());
    EXPECT_EQ(Collect().new_events(), 0);
    clock_.Set(At("2026-11-25T02:36:00Z"));
  }
}

// The key sets the window: 72 h reads the three days before, and the workspace loader reads it.
TEST_F(ChangeLookbackTest, TheWindowIsTheWorkspaceKey) {
  const int64_t now = NowMs();
  Json flows = Json::array();
  for (int hours : {30, 60, 100}) {
    const std::string id = "saved_" + std::to_string(hours) + "h_ago";
    flows.push_back({{"namespace", "gen"}, {"id", id}, {"revision", 2}, {"source", FlowSource(id, 2)},
                     {"revisions", {{{"revision", 1}, {"at", "2026-09-01T00:00:00Z"}, {"source", FlowSource(id, 1)}},
                                    {{"revision", 2}, {"at", FormatRfc3339(FromUnixMillis(now - hours * kHour))},
                                     {"source", FlowSource(id, 2)}}}}});
    config::AssetNote note;
    note.id = "kestra://kestra/gen." + id;
    ws_.assets.push_back(note);
  }
  auto kestra = StartSim(sim::Platform::kKestra, {{"now", FormatRfc3339(clock_.Now())}, {"flows", flows}});
  ws_.platforms["kestra"] = PlatformAt("kestra", "kestra", kestra->url());
  ws_.changes_initial_lookback = std::chrono::hours(72);
  OpenStore();
  Collect();
  std::set<std::string> got;
  for (const auto& e : Events(kFlowRevision)) got.insert(e.asset_id);
  EXPECT_EQ(got, (std::set<std::string>{"kestra://kestra/gen.saved_30h_ago", "kestra://kestra/gen.saved_60h_ago"}));
}

// Flink: jobs running for weeks, each restored at a random time. The first pass reports exactly
// the restores inside the window; when every job moves later (a restart), the jobs are read
// again and the old restores are still the baseline.
TEST_F(ChangeLookbackTest, TheFirstFlinkPassReportsExactlyTheRestoresInsideTheWindowAndNeverTheOlderOnes) {
  for (unsigned seed : {35u, 36u, 37u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const int64_t now = NowMs(), lookback = 24 * kHour;
    const auto offsets = Offsets(rng, 10, lookback);
    Json jobs = Json::array();
    std::set<int64_t> in_window;
    for (size_t i = 0; i < offsets.size(); ++i) {
      char jid[33];
      std::snprintf(jid, sizeof jid, "%08x%024zx", seed, i);
      const int64_t restored = now - offsets[i];
      const int64_t id = static_cast<int64_t>(1000 * seed + i);
      jobs.push_back({{"jid", jid}, {"name", "job-" + std::to_string(i)}, {"state", "RUNNING"},
                      {"start_time", FormatRfc3339(FromUnixMillis(now - 40 * 24 * kHour))},
                      {"restores", {{{"id", id}, {"at", FormatRfc3339(FromUnixMillis(restored))},
                                     {"is_savepoint", i % 2 == 0}, {"external_path", "s3://sp/" + std::to_string(id)}}}},
                      {"states", {{{"at", FormatRfc3339(FromUnixMillis(now + kHour))}, {"state", "RESTARTING"}},
                                  {{"at", FormatRfc3339(FromUnixMillis(now + kHour + 1000))}, {"state", "RUNNING"}}}}});
      if (restored >= now - lookback) in_window.insert(id);
    }
    auto flink = StartSim(sim::Platform::kFlink, {{"now", FormatRfc3339(clock_.Now())}, {"jobs", jobs}});
    ASSERT_NE(flink, nullptr);
    ws_ = {};
    ws_.platforms["flink"] = PlatformAt("flink", "flink", flink->url());
    FreshStore();
    auto restores = [&] {
      std::multiset<int64_t> ids;
      for (const auto& e : Events(kRestore)) ids.insert(e.evidence["checkpoint_id"].get<int64_t>());
      return ids;
    };
    auto first = Collect();
    EXPECT_TRUE(first.platforms[0].errors.empty()) << first.platforms[0].errors[0];
    EXPECT_EQ(restores(), std::multiset<int64_t>(in_window.begin(), in_window.end()));
    EXPECT_FALSE(in_window.empty());
    EXPECT_LT(in_window.size(), offsets.size());

    clock_.Advance(std::chrono::hours(2));
    MoveSimClock(flink->url(), clock_.Now());
    Collect();
    EXPECT_EQ(restores(), std::multiset<int64_t>(in_window.begin(), in_window.end()));
    clock_.Set(At("2026-11-25T02:36:00Z"));
  }
}

// A revision's evidence is the diff of its source against the revision it replaced: on the first
// pass the one before it in Kestra's history, later the one the last pass saw. A long diff is cut
// at a line end, and the evidence says so and how long it was.
TEST_F(ChangeLookbackTest, ARevisionCarriesTheDiffOfItsSourceCutWhenLong) {
  Json k = LoadScript("examples/ev-kestra/sim/kestra.json");
  Json& flow = k["flows"][0];  // pricing.tariff_sync
  ASSERT_EQ(flow["id"], "tariff_sync");
  const std::string eight = flow["source"].get<std::string>();
  const std::string nine = "id: tariff_sync\nnamespace: pricing\n# revision nine\n" + eight.substr(eight.find('\n', eight.find('\n') + 1) + 1);
  Json revisions = Json::array();
  revisions.push_back({{"revision", 8}, {"at", "2026-10-20T11:12:00Z"}, {"source", eight}});
  revisions.push_back({{"revision", 9}, {"at", "2026-11-24T22:05:00Z"}, {"source", nine}});
  std::string ten = nine;
  for (int i = 0; i < 2000; ++i) ten += "# padding line " + std::to_string(i) + "\n";
  revisions.push_back({{"revision", 10}, {"at", "2026-11-25T03:10:00Z"}, {"source", ten}});
  flow["revisions"] = revisions;
  flow["revision"] = 8;
  k["now"] = "2026-11-25T02:36:00Z";
  auto kestra = StartSim(sim::Platform::kKestra, k);
  WatchTariffFlowAt(kestra->url());
  OpenStore();
  Collect();
  auto events = Events(kFlowRevision);
  ASSERT_EQ(events.size(), 1u);
  const Json& ev = events[0].evidence;
  EXPECT_EQ(ev["to_revision"], 9);
  EXPECT_EQ(ev["from_revision"], 8);
  EXPECT_EQ(ev["diff_against_revision"], 8);
  const std::string diff = ev["diff"].get<std::string>();
  EXPECT_EQ(diff.rfind("--- a/pricing/tariff_sync.yml\n+++ b/pricing/tariff_sync.yml\n@@ ", 0), 0u) << diff;
  EXPECT_NE(diff.find("\n+# revision nine\n"), std::string::npos) << diff;
  EXPECT_FALSE(ev.contains("diff_truncated"));

  clock_.Set(At("2026-11-25T03:30:00Z"));
  MoveSimClock(kestra->url(), clock_.Now());
  Collect();
  events = Events(kFlowRevision);
  ASSERT_EQ(events.size(), 2u);
  const Json& cut = events[0].evidence["to_revision"] == 10 ? events[0].evidence : events[1].evidence;
  EXPECT_EQ(cut["from_revision"], 9);
  EXPECT_EQ(cut["diff_truncated"], true);
  const std::string cut_diff = cut["diff"].get<std::string>();
  EXPECT_LE(cut_diff.size(), CollectOptions{}.max_diff_bytes);
  EXPECT_GT(cut_diff.size(), CollectOptions{}.max_diff_bytes - 100);
  EXPECT_EQ(cut_diff.back(), '\n');
  EXPECT_GT(cut["diff_bytes"].get<size_t>(), CollectOptions{}.max_diff_bytes);
  EXPECT_NE(cut_diff.find("+# padding line 0\n"), std::string::npos);
}

// Connect keeps no time of a transition: a connector found failing by the first pass is on the
// timeline at the pass's time, and the evidence says that it happened at or before it.
TEST_F(ChangeLookbackTest, AConnectorTheFirstPassFindsFailingSaysItsTimeIsAnUpperBound) {
  Json script = LoadScript("examples/loyalty-flink/sim/connect.json");
  script["now"] = FormatRfc3339(clock_.Now());  // its task failed at 18:30 the evening before
  auto connect = StartSim(sim::Platform::kKafkaConnect, script);
  ws_.platforms["connect"] = PlatformAt("connect", "kafka-connect", connect->url());
  OpenStore();
  Collect();
  auto states = Events(kConnectorState);
  ASSERT_EQ(states.size(), 1u);
  EXPECT_EQ(states[0].evidence["verdict"], "unhealthy");
  EXPECT_TRUE(states[0].evidence["previous"].is_null());
  EXPECT_EQ(states[0].evidence["time_source"], "observed");
  EXPECT_EQ(states[0].evidence["time_bound"], "at_or_before");
  EXPECT_EQ(FormatRfc3339(states[0].happened_at), "2026-11-25T02:36:00.000Z");
}

}  // namespace
}  // namespace dw::observe::changes
