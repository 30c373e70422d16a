// Group commit: several batches in one transaction end as if applied one after another, many
// concurrent callers are all stored, a bad batch fails alone, and a failed commit fails every
// caller of its group.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <thread>

#include "tests/graph/graph_test_support.h"

namespace dw::graph {
namespace {
namespace group_commit_test {

using test_support::GraphFixture;

constexpr uint8_t kOlBit = 1u << static_cast<int>(Origin::kOpenLineage);

SourceBatch Ol(std::vector<EdgeFacts> edges, std::string scope = "") {
  return test_support::Batch(Origin::kOpenLineage, std::move(edges), std::move(scope));
}

const char* kJob = "flink://flink/job";

class GroupCommitTest : public GraphFixture {};

TEST_F(GroupCommitTest, InOrderEndsLikeOneAfterAnother) {
  Apply(Ol({{"kafka://k/old", kJob, "feeds", nullptr}}));
  // 1: asserts a and b; 2: the job's COMPLETE run asserts b and c only; 3: asserts d afterwards.
  SourceBatch one = Ol({{"kafka://k/a", kJob, "feeds", nullptr}, {"kafka://k/b", kJob, "feeds", nullptr}});
  SourceBatch two = Ol({{"kafka://k/b", kJob, "feeds", nullptr}, {kJob, "kafka://k/c", "feeds", nullptr}}, kJob);
  SourceBatch three = Ol({{"kafka://k/d", kJob, "feeds", nullptr}});
  auto r = graph_->ApplyInOrder({&one, &two, &three});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->edges_marked_stale, 2);  // old (from the index) and a (from this group)
  auto stale = [&](const char* src, const char* dst) {
    const EdgeEntry* e = Edge(src, dst);
    EXPECT_NE(e, nullptr) << src << " -> " << dst;
    return e != nullptr && (e->stale & kOlBit) != 0;
  };
  EXPECT_TRUE(stale("kafka://k/old", kJob));
  EXPECT_TRUE(stale("kafka://k/a", kJob));
  EXPECT_FALSE(stale("kafka://k/b", kJob));
  EXPECT_FALSE(stale(kJob, "kafka://k/c"));
  EXPECT_FALSE(stale("kafka://k/d", kJob));
  // The store says the same after a reload.
  Open();
  EXPECT_TRUE(stale("kafka://k/a", kJob));
  EXPECT_FALSE(stale("kafka://k/d", kJob));
}

TEST_F(GroupCommitTest, ConcurrentCallersAreAllStoredAndShareTransactions) {
  constexpr int kThreads = 8, kEach = 40;
  std::atomic<int> failures{0};
  std::atomic<size_t> max_group{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t)
    pool.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        std::vector<SourceBatch> batches;
        batches.push_back(Ol({{"kafka://k/t" + std::to_string(t) + "-" + std::to_string(i), kJob, "feeds", nullptr}}));
        auto r = graph_->ApplyGrouped(std::move(batches));
        if (!r.ok()) {
          ++failures;
          continue;
        }
        size_t seen = max_group.load();
        while (r->group_batches > seen && !max_group.compare_exchange_weak(seen, r->group_batches)) {
        }
      }
    });
  for (auto& th : pool) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GE(max_group.load(), 1u);
  Open();  // from the store
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kEach; ++i)
      EXPECT_NE(Edge("kafka://k/t" + std::to_string(t) + "-" + std::to_string(i), kJob), nullptr);
}

TEST_F(GroupCommitTest, AnInvalidBatchFailsAloneAndStoresNothing) {
  std::vector<SourceBatch> bad;
  bad.push_back(Ol({{"kafka://k/a", kJob, "feeds", nullptr}}));
  bad.push_back(Ol({{"not an id", kJob, "feeds", nullptr}}));
  auto r = graph_->ApplyGrouped(std::move(bad));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Edge("kafka://k/a", kJob), nullptr);
  std::vector<SourceBatch> good;
  good.push_back(Ol({{"kafka://k/a", kJob, "feeds", nullptr}}));
  EXPECT_TRUE(graph_->ApplyGrouped(std::move(good)).ok());
  EXPECT_NE(Edge("kafka://k/a", kJob), nullptr);
}

TEST_F(GroupCommitTest, AFailedCommitFailsEveryCallerOfTheGroup) {
  // Break the store underneath the graph: its edge table disappears.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir_.path() / "state.db").string().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DROP TABLE graph_edges", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  std::atomic<int> failed{0}, invalid{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < 4; ++t)
    pool.emplace_back([&, t] {
      std::vector<SourceBatch> batches;
      batches.push_back(Ol({{"kafka://k/x" + std::to_string(t), kJob, "feeds", nullptr}}));
      auto r = graph_->ApplyGrouped(std::move(batches));
      if (!r.ok()) ++failed;
      if (!r.ok() && r.status().code() == StatusCode::kInvalidArgument) ++invalid;
    });
  for (auto& th : pool) th.join();
  EXPECT_EQ(failed.load(), 4);
  EXPECT_EQ(invalid.load(), 0);  // a store failure, not the caller's input
  EXPECT_EQ(Edge("kafka://k/x0", kJob), nullptr);
}

}  // namespace group_commit_test
}  // namespace
}  // namespace dw::graph
