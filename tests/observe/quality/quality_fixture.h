// Test support for quality runs: a scratch warehouse on either backend holding a `balances` table
// built for the checks, a workspace pointing at it, a simulated clock and a state store.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "base/clock.h"
#include "base/time_text.h"
#include "observe/quality/quality_run.h"
#include "store/state_store.h"
#include "tests/support/subprocess.h"
#include "tests/warehouse/scratch_warehouse.h"

namespace dw::observe::quality::test_support {

using warehouse::test_support::ScratchWarehouse;

// 2026-11-24T14:00:00Z: the loyalty incident's savepoint.
inline TimePoint FixtureNow() { return FromUnixMillis(1795528800000); }

class QualityFixture : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgres" && store::test_support::PostgresTestUrl().empty())
      GTEST_SKIP() << store::test_support::kPgSkipMessage;
    auto s = ScratchWarehouse::Create(GetParam());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    wh_ = std::move(s).value();
    // member i (1..20) landed i minutes before now, with balance 10*i.
    std::string sql = "CREATE TABLE " + wh_->Sql("balances") +
                      " (member_id INTEGER, balance " + wh_->DoubleType() +
                      ", tier TEXT, email TEXT, updated_at " + wh_->TimestampType() + ");";
    for (int i = 1; i <= 20; ++i) Insert(i, std::to_string(10 * i), Tier(i), i);
    ASSERT_TRUE(wh_->Exec(sql).ok());
    ASSERT_TRUE(wh_->Exec(pending_).ok()) << pending_;
    pending_.clear();
    workspace_.warehouses["wh"] = wh_->config();
    // The team's note about the table: inline checks may run on it (quality_run.cc's rule).
    config::AssetNote note;
    note.id = wh_->AssetId("balances");
    workspace_.assets = {note};
    auto st = store::OpenStateStore((dir_.path() / "state.db").string(), clock_);
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    store_ = std::move(st).value();
  }

  static std::string Tier(int i) {
    static const char* kTiers[] = {"bronze", "silver", "gold"};
    return kTiers[i % 3];
  }

  // Queues an INSERT of member `id` that landed `minutes_ago` before FixtureNow(); Flush() runs it.
  void Insert(int id, const std::string& balance, const std::string& tier, int minutes_ago,
              const std::string& email = "") {
    std::string ts = FormatTimestamp(ToUnixMillis(FixtureNow()) - minutes_ago * 60000LL,
                                     {false, 'T', 3, "Z"});
    std::string mail = email.empty() ? "'m" + std::to_string(id) + "@example.com'" : "'" + email + "'";
    pending_ += "INSERT INTO " + wh_->Sql("balances") + " VALUES (" + std::to_string(id) + ", " +
                balance + ", " + (tier == "NULL" ? tier : "'" + tier + "'") + ", " + mail + ", '" +
                ts + "');";
  }
  void Flush() {
    ASSERT_TRUE(wh_->Exec(pending_).ok()) << pending_;
    pending_.clear();
  }

  // A configured check block on `balances`.
  void Configure(Json spec) {
    config::CheckConfig c;
    c.table = wh_->Ref("balances");
    c.warehouse = "wh";
    c.asset_id = wh_->AssetId("balances");
    spec["table"] = c.table;
    c.spec = spec;
    workspace_.checks = {c};
  }

  Result<QualityReport> Run(QualityRequest req = {}) {
    return RunQuality(workspace_, store_.get(), clock_, req);
  }

  // The outcome called `name` in the only table of `report`.
  static const CheckOutcome& Outcome(const QualityReport& report, const std::string& name) {
    for (const CheckOutcome& o : report.tables.at(0).outcomes)
      if (o.name == name) return o;
    static CheckOutcome missing;
    ADD_FAILURE() << "no outcome " << name;
    return missing;
  }

  static std::string Dump(const QualityReport& r) { return r.ToJson().dump(2); }

  ::dw::testing::TempDir dir_;
  SimulatedClock clock_{FixtureNow()};
  std::unique_ptr<ScratchWarehouse> wh_;
  config::Workspace workspace_;
  std::unique_ptr<store::StateStore> store_;
  std::string pending_;
};

}  // namespace dw::observe::quality::test_support
