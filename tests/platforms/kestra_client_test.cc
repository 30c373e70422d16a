// The Kestra client against the Kestra simulator: the EV incident's execution, paging and
// filters, logs, flows, triggers, KV, and the failure modes (401, 404, malformed bodies).
#include "platforms/kestra/kestra_client.h"

#include <gtest/gtest.h>

#include "base/iso_time.h"
#include "tests/platforms/platform_test_support.h"

namespace dw::platforms::kestra {
namespace {

using dw::testing::LoadScript;
using dw::testing::PlatformAt;
using dw::testing::StartSim;

class KestraClientTest : public ::testing::Test {
 protected:
  void Start(const Json& script) {
    sim_ = StartSim(sim::Platform::kKestra, script);
    ASSERT_NE(sim_, nullptr);
    platform_ = PlatformAt("kestra", "kestra", sim_->url());
    platform_.username = "admin@kestra.io";
    platform_.password = "Admin1234!";
    client_ = std::make_unique<KestraClient>(platform_, *http_);
  }
  void StartEv() { Start(LoadScript("examples/ev-kestra/sim/kestra.json")); }

  std::unique_ptr<net::HttpClient> http_ = net::MakeCurlHttpClient();
  std::unique_ptr<sim::RunningSim> sim_;
  config::PlatformConfig platform_;
  std::unique_ptr<KestraClient> client_;
};

TEST_F(KestraClientTest, TariffSyncSucceededAtFiveAfterMidnightAfterCallingV1) {
  StartEv();
  ExecutionQuery q;
  q.namespace_ = "pricing";
  q.flow_id = "tariff_sync";
  auto page = client_->SearchExecutions(q);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->total, 1);
  const Execution& e = page->results[0];
  EXPECT_EQ(e.state, "SUCCESS");
  EXPECT_TRUE(e.terminal());
  ASSERT_TRUE(e.end_ms.has_value());
  EXPECT_EQ(FormatRfc3339(FromUnixMillis(*e.end_ms)), "2026-11-25T00:05:03.874Z");
  EXPECT_NEAR(e.duration_s, 3.762, 1e-6);  // state.duration is a JSON number of seconds
  ASSERT_EQ(e.task_runs.size(), 2u);
  EXPECT_EQ(e.task_runs[0].outputs["uri"], "https://pricing.internal/v1/tariffs/current");

  auto logs = client_->ExecutionLogs(e.id);
  ASSERT_TRUE(logs.ok()) << logs.status().ToString();
  ASSERT_EQ(logs->size(), 3u);
  EXPECT_NE((*logs)[0].message.find("/v1/tariffs/current"), std::string::npos);

  auto detail = client_->GetExecution(e.id);
  ASSERT_TRUE(detail.ok());
  EXPECT_EQ(detail->flow_revision, 8);

  auto kv = client_->GetKv("pricing", "tariffs_current");
  ASSERT_TRUE(kv.ok()) << kv.status().ToString();
  EXPECT_EQ(kv->type, "JSON");
  EXPECT_EQ(kv->value["DC_FAST"], 0.49);

  auto flow = client_->GetFlow("pricing", "tariff_sync");
  ASSERT_TRUE(flow.ok()) << flow.status().ToString();
  EXPECT_EQ(flow->revision, 8);
  // Revision 8's save time, as the script dates it (AbstractFlow.updated).
  ASSERT_TRUE(flow->updated_ms.has_value());
  EXPECT_EQ(*flow->updated_ms, *ParseIsoTimeMillis("2026-10-20T11:12:00Z"));
  EXPECT_NE(flow->source.find("/v1/tariffs/current"), std::string::npos);
  auto revisions = client_->FlowRevisions("pricing", "tariff_sync");
  ASSERT_TRUE(revisions.ok());
  std::vector<int64_t> numbers;
  for (const auto& r : *revisions) numbers.push_back(r.revision);
  EXPECT_EQ(numbers, (std::vector<int64_t>{7, 8}));
  EXPECT_EQ(revisions->back().updated_ms, *ParseIsoTimeMillis("2026-10-20T11:12:00Z"));
  EXPECT_NE(revisions->back().source.find("/v1/tariffs/current"), std::string::npos);
  auto triggers = client_->Triggers();
  ASSERT_TRUE(triggers.ok()) << triggers.status().ToString();
  EXPECT_EQ(triggers->size(), 5u);
}

TEST_F(KestraClientTest, PagesAndStartDateFilter) {
  Json s = {{"generate", {{"executions", 250}, {"namespace", "bench"}, {"flow", "load"},
                          {"from", "2026-11-25T00:00:00Z"}, {"every_ms", 1000}}}};
  Start(s);
  ExecutionQuery q;
  q.size = 100;
  q.page = 3;
  auto page = client_->SearchExecutions(q);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->total, 250);
  EXPECT_EQ(page->results.size(), 50u);
  q.page = 1;
  q.start_from_ms = *ParseIsoTimeMillis("2026-11-25T00:03:00Z");
  auto later = client_->SearchExecutions(q);
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->total, 70);  // started at 180 s .. 249 s
  EXPECT_EQ(FormatRfc3339(FromUnixMillis(later->results[0].start_ms)), "2026-11-25T00:03:00.000Z");
}

TEST_F(KestraClientTest, WrongPasswordIs401WithWhatToSet) {
  StartEv();
  platform_.password = "wrong-password";
  KestraClient client(platform_, *http_);
  auto r = client.SearchExecutions({});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(r.status().message().find("kestra 'kestra'"), std::string::npos);
  EXPECT_EQ(r.status().message().find("wrong-password"), std::string::npos);
}

TEST_F(KestraClientTest, NotFoundCarriesKestrasMessage) {
  StartEv();
  auto r = client_->GetExecution("nope");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("Unable to find execution nope"), std::string::npos);
  auto kv = client_->GetKv("pricing", "no_such_key");
  EXPECT_EQ(kv.status().code(), StatusCode::kNotFound);
}

TEST_F(KestraClientTest, DurationOfTheWrongTypeIsNamed) {
  Json s = LoadScript("examples/ev-kestra/sim/kestra.json");
  s["faults"] = Json::array({{{"path", "/api/v1/main/executions/search"}, {"status", 200},
                              {"body", R"({"results":[{"id":"x","namespace":"n","flowId":"f","state":{"current":"SUCCESS","startDate":"2026-11-25T00:00:00Z","duration":"PT3S"}}],"total":1})"}}});
  Start(s);
  auto r = client_->SearchExecutions({});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(r.status().message().find("state.duration"), std::string::npos);
}

TEST_F(KestraClientTest, AFlowsUpdatedThatIsNotATimeIsNamed) {
  Json s = LoadScript("examples/ev-kestra/sim/kestra.json");
  s["faults"] = Json::array({{{"path", "/api/v1/main/flows/pricing/tariff_sync"}, {"status", 200},
                              {"body", R"({"id":"tariff_sync","namespace":"pricing","revision":9,"updated":"yesterday"})"}}});
  Start(s);
  auto r = client_->GetFlow("pricing", "tariff_sync");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(r.status().message().find("\"updated\" is not a date-time: yesterday"), std::string::npos)
      << r.status().message();
}

TEST_F(KestraClientTest, IsoTimes) {
  EXPECT_EQ(ParseIsoTimeMillis("2024-11-21T17:09:42.016Z"), 1732208982016);
  EXPECT_EQ(ParseIsoTimeMillis("2024-11-21T19:09:42.016+02:00"), 1732208982016);
  EXPECT_EQ(ParseIsoTimeMillis("2024-11-21T17:09:42.016123Z"), 1732208982016);
  EXPECT_FALSE(ParseIsoTimeMillis("2024-11-21T17:09:42").has_value());
  EXPECT_FALSE(ParseIsoTimeMillis("2024-02-30T00:00:00Z").has_value());
}

}  // namespace
}  // namespace dw::platforms::kestra

namespace dw::platforms::kestra {
namespace {

TEST(KestraBearerTest, EnterpriseTokenIsSentAsBearer) {
  auto sim = dw::testing::StartSim(sim::Platform::kKestra,
                                   Json{{"tenant", "acme"}, {"auth", {{"token", "ent-token-123456"}}},
                                        {"executions", Json::array()}});
  ASSERT_NE(sim, nullptr);
  auto http = net::MakeCurlHttpClient();
  auto p = dw::testing::PlatformAt("kestra", "kestra", sim->url());
  p.tenant = "acme";
  p.token = "ent-token-123456";
  auto ok = KestraClient(p, *http).SearchExecutions({});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->total, 0);
  p.token = "wrong-token-0000";
  auto denied = KestraClient(p, *http).SearchExecutions({});
  EXPECT_EQ(denied.status().code(), StatusCode::kPermissionDenied);
  p.tenant = "main";  // the tenant is part of the path: another tenant's URL does not exist
  p.token = "ent-token-123456";
  EXPECT_EQ(KestraClient(p, *http).SearchExecutions({}).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace dw::platforms::kestra
