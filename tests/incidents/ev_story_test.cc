// The Kestra EV story (seeds/kestra-data-workers.txt) on examples/ev-kestra's graph: at 00:05
// pricing.tariff_sync called the frozen /v1 tariff endpoint, got 200 and stored September prices;
// every energy.rate_session execution then priced sessions at the stale tariff, all green.
#include <gtest/gtest.h>

#include "observe/changes/change_kinds.h"
#include "tests/incidents/incidents_test_support.h"

namespace dw::incidents {
namespace {
namespace ev_story_test {

using test_support::At;

constexpr const char* kSync = "kestra://kestra/pricing.tariff_sync";
constexpr const char* kRate = "kestra://kestra/energy.rate_session";
constexpr const char* kRated = "table://main/rated_sessions";
constexpr const char* kMismatches = "table://main/rate_mismatches";

class EvStory : public test_support::DeskTest {
 protected:
  void SetUp() override {
    DeskTest::SetUp();
    if (IsSkipped()) return;
    clock_.Set(At("2026-11-25T00:00:00Z"));
    UseExample("ev-kestra");
    // What the Kestra collector stores for the night's executions (risk 0.1: green runs).
    auto green = [](const std::string& id, const std::string& flow) {
      return Json{{"execution_id", id}, {"flow", flow}, {"state", "SUCCESS"},
                  {"url", "http://127.0.0.1:18080/api/v1/main/executions/" + id}};
    };
    Json tariff = green("4PqT9sW2mZbX8vLkR3nYc1", "pricing.tariff_sync");
    tariff["log_excerpt"] = Json::array({{{"message", "Request GET https://pricing.internal/v1/tariffs/current"}},
                                         {{"message", "Response 200 OK from https://pricing.internal/v1/tariffs/current (2318 bytes)"}}});
    AddEvent("kestra:kestra:4PqT9sW2mZbX8vLkR3nYc1:SUCCESS", kSync, observe::changes::kExecution,
             "2026-11-25T00:05:03Z", 0.1, tariff, "the execution succeeded; a green run can still write wrong output, so it is weighed low");
    for (int m = 6; m < 60; m += 3) {
      std::string id = "rate" + std::to_string(m);
      AddEvent("kestra:kestra:" + id + ":SUCCESS", kRate, observe::changes::kExecution,
               "2026-11-25T00:" + std::string(m < 10 ? "0" : "") + std::to_string(m) + ":13Z", 0.1,
               green(id, "energy.rate_session"), "the execution succeeded; a green run can still write wrong output, so it is weighed low");
    }
    AddEvent("kestra:kestra:marts:SUCCESS", "kestra://kestra/energy.revenue_marts", observe::changes::kExecution,
             "2026-11-25T02:04:00Z", 0.1, green("marts", "energy.revenue_marts"));
    AddEvent("kestra:kestra:audit:SUCCESS", "kestra://kestra/finance.rate_audit", observe::changes::kExecution,
             "2026-11-25T02:21:00Z", 0.1, green("audit", "finance.rate_audit"));
  }
};

TEST_P(EvStory, TheStaleTariffShowsAtTheFirstMonitorEvaluationAndTheAuditJoinsIt) {
  // The first check run after the first sessions priced at the stale tariff (00:06).
  clock_.Set(At("2026-11-25T01:00:00Z"));
  EvaluationReport first = Evaluate({CheckSignal(kRated, "custom:sessions_rated_at_stale_tariff", "2026-11-25T01:00:00Z",
                                                 true, SignalShape::kMismatchesFound)});
  ASSERT_EQ(first.opened.size(), 1u);
  // 02:30: the volume check on the audit table; the audit reads rated_sessions, so it joins.
  clock_.Set(At("2026-11-25T02:30:00Z"));
  EvaluationReport second = Evaluate({CheckSignal(kMismatches, "volume", "2026-11-25T02:30:00Z", true,
                                                  SignalShape::kMismatchesFound)});
  EXPECT_TRUE(second.opened.empty());
  EXPECT_EQ(second.updated, first.opened);
  Incident inc = Get(first.opened[0]);
  EXPECT_EQ(inc.damaged_assets, (std::vector<std::string>{kMismatches, kRated}));
  EXPECT_EQ(inc.root_asset, kRated);
  // The 07:30 fleet statements are customer-facing and act within 24 h.
  EXPECT_EQ(inc.severity.level, 1);
  EXPECT_EQ(inc.severity.consumer, "kestra://kestra/billing.fleet_statements");
}

TEST_P(EvStory, TheTariffSyncThatCalledV1IsRankedFirst) {
  // As the seed page tells it: the checks first run at 02:30, after the audit flow.
  clock_.Set(At("2026-11-25T02:30:00Z"));
  EvaluationReport r = Evaluate({CheckSignal(kRated, "custom:sessions_rated_at_stale_tariff", "2026-11-25T02:30:00Z",
                                             true, SignalShape::kMismatchesFound),
                                 CheckSignal(kMismatches, "volume", "2026-11-25T02:30:00Z", true,
                                             SignalShape::kMismatchesFound)});
  ASSERT_EQ(r.opened.size(), 1u);
  auto d = Desk().Diagnose(r.opened[0]);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_GE(d->ranked.size(), 2u);
  const Candidate& top = d->ranked[0];
  EXPECT_EQ(top.asset_id, kSync);
  EXPECT_EQ(top.cause_kind, "stale_input");
  EXPECT_EQ(top.happened_at, At("2026-11-25T00:05:03Z"));
  EXPECT_NE(top.explanation.find("api://pricing/v1/tariffs/current"), std::string::npos) << top.explanation;
  bool call = false;
  for (const std::string& e : top.evidence) call |= e.find("/v1/tariffs/current") != std::string::npos;
  EXPECT_TRUE(call);
  EXPECT_EQ(top.path, (std::vector<std::string>{kSync, "kv://kestra/pricing/tariffs_current", kRate, kRated}));
  // The green rate_session runs are one folded candidate, below it.
  EXPECT_EQ(d->ranked[1].asset_id, kRate);
  EXPECT_LT(d->ranked[1].score.total, top.score.total);
  // The audit ran downstream of the damaged rated_sessions: it cannot explain it.
  bool audit_ruled_out = false;
  for (const std::string& s : d->ruled_out) audit_ruled_out |= s.find("finance.rate_audit") != std::string::npos;
  EXPECT_TRUE(audit_ruled_out);
  for (const Candidate& c : d->ranked) EXPECT_NE(c.asset_id, "kestra://kestra/energy.revenue_marts");
}

INSTANTIATE_TEST_SUITE_P(Store, EvStory, ::testing::Values("sqlite", "postgresql"), test_support::BackendName);

}  // namespace ev_story_test
}  // namespace
}  // namespace dw::incidents
