// The incident's lifecycle feeds the notification outbox: opened, severity raised (once per new
// level), verified, each written with the incident in one transaction and deduplicated, with the
// incident's dedup key; nothing without notify:. The resolution is told with its receipt.
#include <gtest/gtest.h>

#include "tests/incidents/incidents_test_support.h"

namespace dw::incidents {
namespace {

using test_support::At;

class IncidentNotices : public test_support::DeskTest {
 protected:
  void SetUp() override {
    DeskTest::SetUp();
    if (IsSkipped()) return;
    ws_.name = "shop";
    ws_.notify = Json{{"teams", {{"webhook", "https://example.invalid/workflows/x"}}}};
    options_ = DeskOptionsFor(ws_);
    ASSERT_EQ(options_.notify, &ws_);
    clock_.Set(At("2026-11-24T15:00:00Z"));  // a Tuesday; the sync acts on Friday at 22:00
    UseEdges({{"flink://flink/job", "table://main/t"}, {"table://main/t", "sync://hightouch/weekly"}},
             {{"sync://hightouch/weekly", "", "", "0 22 * * 5", true, {}, {}, {}, {}, {}}});
    EvaluationReport r = Evaluate({MetricSignal("rows_t", "table://main/t", "2026-11-24T15:00:00Z", 10, 1000)});
    ASSERT_EQ(r.opened.size(), 1u);
    id_ = r.opened[0];
  }
  std::vector<std::string> Events() {
    auto all = store_->OutboxFor(id_);
    EXPECT_TRUE(all.ok()) << all.status().ToString();
    std::vector<std::string> out;
    if (all.ok())
      for (const auto& m : *all) out.push_back(m.channel + " " + m.event);
    return out;
  }
  Json Notice(size_t i) {
    auto all = store_->OutboxFor(id_);
    if (!all.ok() || all->size() <= i) return Json();
    return (*all)[i].payload["notice"];
  }
  std::string id_;
};

TEST_P(IncidentNotices, OpeningWritesTheOpenNoticeWithTheIncidentsDedupKey) {
  EXPECT_EQ(Events(), std::vector<std::string>{"teams open"});
  Json n = Notice(0);
  EXPECT_EQ(n["incident_id"], id_);
  EXPECT_EQ(n["dedup_key"], "dw:shop:" + id_);
  EXPECT_EQ(n["severity"], "SEV3");  // Friday's sync is more than 24 h away
  EXPECT_EQ(n["asset"], "table://main/t");
  // Another pass with nothing new writes nothing more.
  Evaluate({});
  EXPECT_EQ(Events().size(), 1u);
}

TEST_P(IncidentNotices, SeverityRaisedIsToldOncePerLevel) {
  clock_.Set(At("2026-11-26T23:00:00Z"));  // the customer-facing sync now acts within 24 h
  Evaluate({});
  ASSERT_EQ(Events(), (std::vector<std::string>{"teams open", "teams severity_raised:SEV1"}));
  EXPECT_EQ(Notice(1)["severity"], "SEV1");
  EXPECT_EQ(Notice(1)["consumer"], "sync://hightouch/weekly");
  EXPECT_EQ(Notice(1)["deadline"], "2026-11-27T22:00:00.000Z");
  clock_.Set(At("2026-11-27T01:00:00Z"));
  Evaluate({});
  EXPECT_EQ(Events().size(), 2u);
}

TEST_P(IncidentNotices, VerificationAndAPersonsResolveAreTold) {
  clock_.Set(At("2026-11-24T17:00:00Z"));
  EvaluationReport r = Evaluate({MetricSignal("rows_t", "table://main/t", "2026-11-24T17:00:00Z", 990, 1000, false)});
  ASSERT_EQ(r.resolved, std::vector<std::string>{id_});
  ASSERT_EQ(Events(), (std::vector<std::string>{"teams open", "teams verified"}));
  EXPECT_NE(Notice(1)["summary"].get<std::string>().find("back to normal"), std::string::npos) << Notice(1).dump();
}

TEST_P(IncidentNotices, APersonsResolveIsToldWithItsReceiptNotBeforeIt) {
  // The resolution reaches people with the receipt that records it (actions::NotifyResolved), so
  // the desk writes nothing that would take the receipt's place.
  clock_.Set(At("2026-11-24T16:00:00Z"));
  ASSERT_TRUE(Desk().Resolve(id_, "ana@example.com", "redeployed v4.1").ok());
  EXPECT_EQ(Events(), std::vector<std::string>{"teams open"});
}

TEST_P(IncidentNotices, AWorkspaceWithoutNotifyWritesNoMessage) {
  config::Workspace quiet;
  EXPECT_EQ(DeskOptionsFor(quiet).notify, nullptr);
  options_.notify = nullptr;
  desk_.reset();
  clock_.Set(At("2026-11-24T16:00:00Z"));
  EvaluationReport r = Evaluate({MetricSignal("rows_u", "table://main/u", "2026-11-24T16:00:00Z", 10, 1000)});
  ASSERT_EQ(r.opened.size(), 1u);
  auto all = store_->OutboxFor(r.opened[0]);
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->empty());
}

INSTANTIATE_TEST_SUITE_P(Store, IncidentNotices, ::testing::Values("sqlite", "postgresql"),
                         test_support::BackendName);

}  // namespace
}  // namespace dw::incidents
