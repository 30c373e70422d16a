// The blast radius's impact_sql count on both warehouse backends: the damage query of a consumer
// runs read-only on the warehouse, with :since bound, and its count reaches the answer. On
// PostgreSQL this is the path a team on Postgres (or Redshift-like) warehouses takes.
#include <gtest/gtest.h>

#include <fstream>

#include "workspace/graph_answers.h"
#include "base/rfc3339.h"
#include "tests/support/subprocess.h"
#include "tests/warehouse/scratch_warehouse.h"

namespace dw::workspace {
namespace {

using warehouse::test_support::BackendName;
using warehouse::test_support::ScratchWarehouse;

class ImpactCountTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgres" && store::test_support::PostgresTestUrl().empty())
      GTEST_SKIP() << store::test_support::kPgSkipMessage;
    auto w = ScratchWarehouse::Create(GetParam());
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    wh_ = std::move(w).value();
    ASSERT_TRUE(wh_->Exec("CREATE TABLE " + wh_->Sql("balances") + " (member_id INTEGER, updated_at " +
                          wh_->TimestampType() + ")").ok());
    std::string rows;
    for (int i = 1; i <= 40; ++i)
      rows += std::string(rows.empty() ? "" : ",") + "(" + std::to_string(i) + ", '" +
              (i <= 12 ? "2026-11-24T14:30:00Z" : "2026-11-20T09:00:00Z") + "')";
    ASSERT_TRUE(wh_->Exec("INSERT INTO " + wh_->Sql("balances") + " VALUES " + rows).ok());
  }

  // A workspace whose only warehouse is the scratch one, with a sync downstream of the table.
  std::shared_ptr<Services> Load(const std::string& impact_sql) {
    const auto& c = wh_->config();
    std::ofstream(dir_.path() / "dataworkers.yaml")
        << "version: 1\nname: impact\ntimezone: Europe/Amsterdam\nwarehouses:\n  wh: {type: " << c.type
        << (wh_->postgres() ? ", dsn: \"" + c.dsn + "\"}" : ", path: \"" + c.path + "\"}") << "\n"
        << "assets:\n"
           "  - id: " << wh_->AssetId("balances") << "\n"
           "  - id: sync://hightouch/balances-to-braze\n"
           "    reads: [" << wh_->AssetId("balances") << "]\n"
           "    schedule: \"0 22 * * *\"\n"
           "    customer_facing: true\n"
           "    impact_sql: \"" << impact_sql << "\"\n";
    auto s = Services::Load(dir_.path(), clock_);
    EXPECT_TRUE(s->workspace_status().ok()) << s->workspace_status().message();
    return s;
  }

  std::unique_ptr<ScratchWarehouse> wh_;
  dw::testing::TempDir dir_;
  SimulatedClock clock_{*ParseRfc3339("2026-11-24T15:15:00Z")};
};

TEST_P(ImpactCountTest, CountsWhatTheDamageTouchesSinceTheRestore) {
  auto services = Load("SELECT count(*) FROM " + wh_->Sql("balances") + " WHERE updated_at >= :since");
  auto r = BlastRadiusAnswer(*services, {wh_->AssetId("balances")}, *ParseRfc3339("2026-11-24T14:02:00Z"), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ((*r)["impact"].size(), 1u) << r->dump();
  EXPECT_EQ((*r)["impact"][0]["asset"], "sync://hightouch/balances-to-braze");
  EXPECT_EQ((*r)["impact"][0]["count"], 12) << r->dump();
  ASSERT_EQ((*r)["consumers"].size(), 1u);
  EXPECT_EQ((*r)["consumers"][0]["next_run"], "2026-11-24T21:00:00.000Z");  // 22:00 in Amsterdam
}

TEST_P(ImpactCountTest, AFailingImpactQueryIsAnErrorInTheAnswerNotAZero) {
  auto services = Load("SELECT count(*) FROM " + wh_->Sql("no_such_table") + " WHERE updated_at >= :since");
  auto r = BlastRadiusAnswer(*services, {wh_->AssetId("balances")}, *ParseRfc3339("2026-11-24T14:02:00Z"), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ((*r)["impact"].size(), 1u);
  EXPECT_FALSE((*r)["impact"][0].contains("count"));
  EXPECT_NE((*r)["impact"][0].value("error", "").find("no_such_table"), std::string::npos) << r->dump();
}

TEST_P(ImpactCountTest, AnImpactQueryThatWritesIsRefusedByTheReadOnlyConnection) {
  auto services = Load("DELETE FROM " + wh_->Sql("balances") + " WHERE updated_at >= :since");
  auto r = BlastRadiusAnswer(*services, {wh_->AssetId("balances")}, *ParseRfc3339("2026-11-24T14:02:00Z"), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ((*r)["impact"].size(), 1u);
  EXPECT_TRUE((*r)["impact"][0].contains("error")) << r->dump();
  EXPECT_EQ(wh_->Scalar("SELECT count(*) FROM " + wh_->Sql("balances")), 40);
}

INSTANTIATE_TEST_SUITE_P(Backends, ImpactCountTest, ::testing::Values("sqlite", "postgres"), BackendName);

}  // namespace
}  // namespace dw::workspace
