// One `dw watch` replica's leases over the PostgreSQL store ($DW_TEST_PG_URL; skipped when
// unset), with an injected clock: a clock 45 s behind the database's refuses leases and says why
// (once), a clock back within 30 s takes them again, and a run it finishes is recorded once.
#include "observe/watch/replica_leases.h"

#include <gtest/gtest.h>

#include "tests/store/store_test_support.h"

namespace dw::observe::watch {
namespace {

using store::test_support::ScratchLocation;

TEST(ReplicaLeasesTest, AClockFarFromTheStoresRefusesLeasesUntilItAgrees) {
  if (store::test_support::PostgresTestUrl().empty()) GTEST_SKIP() << store::test_support::kPgSkipMessage;
  auto scratch = ScratchLocation::Create("postgresql");
  ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
  SystemClock real;
  auto opened = store::OpenStateStore((*scratch)->location(), real);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  store::WatchLeases* leases = store::WatchLeasesOf(**opened);
  ASSERT_NE(leases, nullptr);
  auto db_now = leases->DatabaseNowMs();
  ASSERT_TRUE(db_now.ok());

  // The replica's clock runs 45 s behind the database's.
  SimulatedClock clock{FromUnixMillis(*db_now - 45'000)};
  std::vector<std::string> said;
  ReplicaLeases replica(*leases, clock, ThisReplica(clock, 2'000), {.lease_ms = 2'000},
                        [&](const std::string& line) { said.push_back(line); });
  ASSERT_TRUE(replica.Beat().ok());
  EXPECT_NE(replica.refusing().find("behind the state store's"), std::string::npos) << replica.refusing();
  JobLeases::Answer refused = replica.Claim("monitor:m", 60'000);
  EXPECT_EQ(refused.verdict, JobLeases::Verdict::kRefused);
  EXPECT_NE(refused.why.find("its clock is 45"), std::string::npos) << refused.why;
  ASSERT_TRUE(replica.Beat().ok());
  ASSERT_EQ(said.size(), 1u) << "the refusal is said once, not at every heartbeat";
  EXPECT_NE(said[0].find("refuses to take leases"), std::string::npos) << said[0];
  auto replicas = leases->Replicas();
  ASSERT_TRUE(replicas.ok());
  ASSERT_EQ(replicas->size(), 1u);
  EXPECT_LT((*replicas)[0].clock_offset_ms, -44'000);
  EXPECT_FALSE((*replicas)[0].refusing.empty()) << "--status shows why";

  // Set forward to within the allowed 30 s (20 s ahead): it takes leases again, and says so.
  clock.Set(FromUnixMillis(ToUnixMillis(real.Now()) + 20'000));
  ASSERT_TRUE(replica.Beat().ok());
  EXPECT_EQ(replica.refusing(), "");
  ASSERT_EQ(said.size(), 2u);
  EXPECT_NE(said[1].find("takes leases again"), std::string::npos) << said[1];
  JobLeases::Answer run = replica.Claim("monitor:m", 60'000);
  ASSERT_EQ(run.verdict, JobLeases::Verdict::kRun) << run.why;
  replica.Finish("monitor:m", 60'000, Status::Ok());
  EXPECT_EQ(replica.Claim("monitor:m", 60'000).verdict, JobLeases::Verdict::kDoneElsewhere);
  auto runs = leases->RecentRuns(10);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].outcome, "ok");
  EXPECT_EQ((*runs)[0].replica_id, replica.id());
}

}  // namespace
}  // namespace dw::observe::watch
