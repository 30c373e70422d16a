// The metric-housekeeping part of the StateStore contract (marks, retention deletes, incidents by
// window), on every backend: SQLite on a temporary file, PostgreSQL on its own schema in
// $DW_TEST_PG_URL (skipped when unset; see scripts/with-postgres.sh).
#include <gtest/gtest.h>

#include "store/migrations.h"
#include "store/sql_state_store.h"
#include "store/state_store.h"
#include "store_test_support.h"

namespace dw::store {
namespace {
namespace metric_store_test {

using test_support::ScratchLocation;

constexpr int64_t kStartMs = 1'800'000'000'000;  // 2027-01-15T08:00:00Z
TimePoint At(int64_t minutes) { return FromUnixMillis(kStartMs + minutes * 60'000); }

class MetricStoreTest : public test_support::ScratchOnEachBackend {
 protected:
  MetricStoreTest() : ScratchOnEachBackend(At(0)) {}
};

TEST_P(MetricStoreTest, MarksSurviveAReopenAndAreFoundByOverlap) {
  {
    std::unique_ptr<StateStore> store = Open();
    ASSERT_NE(store, nullptr);
    Result<int64_t> a = store->AddMetricMark({0, "orders", At(60), At(120), "holiday", {}, "ana@example.com"});
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    Result<int64_t> b = store->AddMetricMark({0, "orders", At(10), At(10), "", {}, "bo@example.com"});
    ASSERT_TRUE(b.ok());
    EXPECT_NE(*a, *b);
    ASSERT_TRUE(store->AddMetricMark({0, "other", At(0), At(500), "x", {}, "ana@example.com"}).ok());
  }
  clock_.Advance(std::chrono::hours(1));
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  Result<std::vector<MetricMark>> all = store->MetricMarks("orders", At(0), At(1000));
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].from, At(10));  // ordered by from
  EXPECT_EQ((*all)[1].note, "holiday");
  EXPECT_EQ((*all)[1].to, At(120));
  EXPECT_EQ((*all)[1].created_at, At(0));
  EXPECT_EQ((*all)[1].author, "ana@example.com");  // who said these points are expected
  EXPECT_EQ((*all)[0].author, "bo@example.com");
  // Both ends are inclusive: a window touching the mark's last instant finds it.
  Result<std::vector<MetricMark>> touching = store->MetricMarks("orders", At(120), At(200));
  ASSERT_TRUE(touching.ok());
  ASSERT_EQ(touching->size(), 1u);
  EXPECT_EQ((*touching)[0].note, "holiday");
  Result<std::vector<MetricMark>> none = store->MetricMarks("orders", At(121), At(200));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_P(MetricStoreTest, AMarkMustNameAMetricAndAnOrderedRange) {
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->AddMetricMark({0, "", At(0), At(1), "", {}}).status().code(),
            StatusCode::kInvalidArgument);
  Result<int64_t> backwards = store->AddMetricMark({0, "m", At(2), At(1), "", {}, "ana@example.com"});
  EXPECT_EQ(backwards.status().code(), StatusCode::kInvalidArgument);
  // A mark silences its monitor over its range: one without its author is refused.
  Result<int64_t> anonymous = store->AddMetricMark({0, "m", At(1), At(2), "", {}, ""});
  EXPECT_EQ(anonymous.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(anonymous.status().message().find("author"), std::string::npos) << anonymous.status().ToString();
  Result<std::vector<MetricMark>> marks = store->MetricMarks("m", At(0), At(10));
  ASSERT_TRUE(marks.ok());
  EXPECT_TRUE(marks->empty());
}

TEST_P(MetricStoreTest, DeletesOnlyOlderPointsOfOneMetricAndCountsThem) {
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->UpsertMetricPoints("a", {{At(0), 1}, {At(1), 2}, {At(2), 3}}).ok());
  ASSERT_TRUE(store->UpsertMetricPoints("b", {{At(0), 1}}).ok());
  Result<int64_t> deleted = store->DeleteMetricPointsBefore("a", At(2));
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(*deleted, 2);
  Result<std::vector<MetricPoint>> left = store->MetricPoints("a", At(0), At(10));
  ASSERT_TRUE(left.ok());
  ASSERT_EQ(left->size(), 1u);
  EXPECT_EQ((*left)[0].ts, At(2));
  deleted = store->DeleteMetricPointsBefore("a", At(2));
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, 0);
  Result<std::vector<std::string>> names = store->MetricNames();
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"a", "b"}));
}

TEST_P(MetricStoreTest, IncidentsOverlappingAWindow) {
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  IncidentRecord closed{"inc-closed", "resolved", "t", "table://main/a", At(10), At(20), At(20), Json::object()};
  IncidentRecord open{"inc-open", "open", "t", "table://main/a", At(100), At(100), std::nullopt, Json::object()};
  ASSERT_TRUE(store->PutIncident(closed).ok());
  ASSERT_TRUE(store->PutIncident(open).ok());
  auto ids = [&](int64_t from, int64_t to) {
    std::vector<std::string> out;
    Result<std::vector<IncidentRecord>> got = store->IncidentsOverlapping(At(from), At(to));
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    if (got.ok())
      for (const auto& i : *got) out.push_back(i.id);
    return out;
  };
  EXPECT_EQ(ids(0, 1000), (std::vector<std::string>{"inc-closed", "inc-open"}));
  EXPECT_EQ(ids(20, 100), (std::vector<std::string>{}));  // closed at 20, the open one at 100
  EXPECT_EQ(ids(15, 16), (std::vector<std::string>{"inc-closed"}));
  EXPECT_EQ(ids(5000, 6000), (std::vector<std::string>{"inc-open"}));  // open: no end
}

TEST_P(MetricStoreTest, AVersion1StoreIsUpgradedKeepingItsPoints) {
  {
    Result<std::unique_ptr<SqlConnection>> conn = scratch_->Connect();
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    Result<std::unique_ptr<StateStore>> v1 =
        SqlStateStore::Open(std::move(conn).value(), AllMigrations().first(1), clock_);
    ASSERT_TRUE(v1.ok()) << v1.status().ToString();
    EXPECT_EQ((*v1)->schema_version(), 1);
    ASSERT_TRUE((*v1)->UpsertMetricPoints("orders", {{At(0), 4.0}}).ok());
  }
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->schema_version(), CurrentSchemaVersion());  // every later migration applied
  Result<std::vector<MetricPoint>> kept = store->MetricPoints("orders", At(0), At(1));
  ASSERT_TRUE(kept.ok());
  ASSERT_EQ(kept->size(), 1u);
  EXPECT_TRUE(store->AddMetricMark({0, "orders", At(0), At(0), "", {}, "ana@example.com"}).ok());
}

INSTANTIATE_TEST_SUITE_P(Store, MetricStoreTest, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace metric_store_test
}  // namespace
}  // namespace dw::store
