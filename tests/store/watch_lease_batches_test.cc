// The batch statements of the watch leases (store/watch_leases.h: ClaimLeases, FinishLeases) on
// PostgreSQL ($DW_TEST_PG_URL; skipped when unset, like the other PG tests): a replica takes at
// most its share of a batch and leaves the rest, a slot taken is held for the others and done once
// finished, an expired batch is taken over and its late finish refused, a failure gives a slot
// back, bad batches are refused whole, and three replicas racing for the same slots in batches
// take each exactly once without deadlocking.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <set>
#include <thread>

#include "store/watch_leases.h"
#include "tests/store/store_test_support.h"

namespace dw::store {
namespace {
namespace watch_lease_batches_test {

using namespace std::chrono_literals;

class WatchLeaseBatchesTest : public test_support::StoreOnEachBackend {
 protected:
  // The leases, or nullptr on SQLite (which offers none).
  WatchLeases* Leases() {
    WatchLeases* l = WatchLeasesOf(*store_);
    if (GetParam() == "sqlite") {
      EXPECT_EQ(l, nullptr);
    }
    return l;
  }
};

std::vector<LeaseSlot> Slots(const std::string& job, int n) {
  std::vector<LeaseSlot> out;
  for (int i = 0; i < n; ++i) out.push_back({job + std::to_string(i % 4), int64_t{i / 4} * 60'000});
  return out;
}

TEST_P(WatchLeaseBatchesTest, AReplicaTakesItsShareAndLeavesTheRestThenFinishedSlotsAreDone) {
  WatchLeases* leases = Leases();
  if (leases == nullptr) return;
  const auto slots = Slots("monitor:m", 10);
  auto a = leases->ClaimLeases(slots, "ra", 30'000, 4);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_EQ(a->size(), 10u);
  std::set<int64_t> run_ids;
  for (size_t i = 0; i < 10; ++i) {
    if (i < 4) {
      EXPECT_EQ((*a)[i].answer, LeaseAnswer::kTaken) << i;
      EXPECT_GT((*a)[i].run_id, 0);
      EXPECT_GT((*a)[i].expires_ms, (*a)[i].db_now_ms);
      run_ids.insert((*a)[i].run_id);
    } else {
      EXPECT_EQ((*a)[i].answer, LeaseAnswer::kLeft) << "beyond the share: " << i;
    }
  }
  EXPECT_EQ(run_ids.size(), 4u) << "one run per slot taken";

  // The next replica finds the first four held by ra and takes the next share.
  auto b = leases->ClaimLeases(slots, "rb", 30'000, 4);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  for (size_t i = 0; i < 10; ++i) {
    if (i < 4) {
      EXPECT_EQ((*b)[i].answer, LeaseAnswer::kHeld) << i;
      EXPECT_EQ((*b)[i].holder, "ra");
    } else if (i < 8) {
      EXPECT_EQ((*b)[i].answer, LeaseAnswer::kTaken) << i;
    } else {
      EXPECT_EQ((*b)[i].answer, LeaseAnswer::kLeft) << i;
    }
  }

  // ra finishes its four in one statement: all still its own.
  std::vector<LeaseFinish> ends;
  for (size_t i = 0; i < 4; ++i) ends.push_back({slots[i].job, slots[i].due_ms, (*a)[i].run_id, true, ""});
  auto held = leases->FinishLeases(ends, "ra");
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  EXPECT_EQ(*held, std::vector<bool>(4, true));
  auto c = leases->ClaimLeases(slots, "rc", 30'000, 100);
  ASSERT_TRUE(c.ok());
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ((*c)[i].answer, LeaseAnswer::kDone) << i;
  for (size_t i = 4; i < 8; ++i) EXPECT_EQ((*c)[i].answer, LeaseAnswer::kHeld) << i;
  for (size_t i = 8; i < 10; ++i) EXPECT_EQ((*c)[i].answer, LeaseAnswer::kTaken) << i;

  // The runs table says the same: ra's four ok, rb's four and rc's two running.
  auto runs = leases->RecentRuns(100);
  ASSERT_TRUE(runs.ok());
  std::map<std::string, std::map<std::string, int>> by;
  for (const auto& r : *runs) ++by[r.replica_id][r.outcome];
  EXPECT_EQ(by["ra"], (std::map<std::string, int>{{"ok", 4}}));
  EXPECT_EQ(by["rb"], (std::map<std::string, int>{{"running", 4}}));
  EXPECT_EQ(by["rc"], (std::map<std::string, int>{{"running", 2}}));
  auto open = leases->OpenLeases();
  ASSERT_TRUE(open.ok());
  EXPECT_EQ(open->size(), 6u);
}

TEST_P(WatchLeaseBatchesTest, AnExpiredBatchIsTakenOverItsLateFinishRefusedAndAFailureGivesTheSlotBack) {
  WatchLeases* leases = Leases();
  if (leases == nullptr) return;
  const auto slots = Slots("check:t", 3);
  auto a = leases->ClaimLeases(slots, "ra", 300, 3);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  for (const auto& c : *a) ASSERT_EQ(c.answer, LeaseAnswer::kTaken);
  // ra goes silent past its lease time (the database's clock): rb takes the three over at once.
  std::this_thread::sleep_for(400ms);
  auto b = leases->ClaimLeases(slots, "rb", 30'000, 3);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  for (const auto& c : *b) EXPECT_EQ(c.answer, LeaseAnswer::kTaken);
  auto open = leases->OpenLeases();
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 3u);
  for (const auto& l : *open) {
    EXPECT_EQ(l.holder, "rb");
    EXPECT_EQ(l.attempts, 2);
  }
  // ra wakes up: none of its ends count.
  std::vector<LeaseFinish> late;
  for (size_t i = 0; i < 3; ++i) late.push_back({slots[i].job, slots[i].due_ms, (*a)[i].run_id, true, ""});
  auto refused = leases->FinishLeases(late, "ra");
  ASSERT_TRUE(refused.ok()) << refused.status().ToString();
  EXPECT_EQ(*refused, std::vector<bool>(3, false));
  // rb: two succeed, one fails (its message is prose, stored redacted) and is given back.
  std::vector<LeaseFinish> ends;
  for (size_t i = 0; i < 3; ++i)
    ends.push_back({slots[i].job, slots[i].due_ms, (*b)[i].run_id, i != 1,
                    i != 1 ? "" : "warehouse down: postgresql://bob:UrlPass99@db.internal/analytics"});
  auto held = leases->FinishLeases(ends, "rb");
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  EXPECT_EQ(*held, std::vector<bool>(3, true));
  auto retry = leases->ClaimLeases(slots, "rc", 30'000, 3);
  ASSERT_TRUE(retry.ok());
  EXPECT_EQ((*retry)[0].answer, LeaseAnswer::kDone);
  EXPECT_EQ((*retry)[1].answer, LeaseAnswer::kTaken) << "the failed slot is any replica's to retry";
  EXPECT_EQ((*retry)[2].answer, LeaseAnswer::kDone);

  auto runs = leases->RecentRuns(100);
  ASSERT_TRUE(runs.ok());
  std::map<std::string, int> outcomes;
  for (const auto& r : *runs) {
    ++outcomes[r.replica_id + "/" + r.outcome];
    if (r.outcome == "failed") {
      EXPECT_EQ(r.message.find("UrlPass99"), std::string::npos) << r.message;
      EXPECT_NE(r.message.find("warehouse down"), std::string::npos) << r.message;
    }
  }
  EXPECT_EQ(outcomes, (std::map<std::string, int>{{"ra/lost", 3}, {"rb/ok", 2}, {"rb/failed", 1}, {"rc/running", 1}}));
}

TEST_P(WatchLeaseBatchesTest, ABadBatchIsRefusedWholeNamingWhatIsWrong) {
  WatchLeases* leases = Leases();
  if (leases == nullptr) return;
  auto twice = leases->ClaimLeases({{"m", 0}, {"n", 0}, {"m", 0}}, "ra", 1000, 10);
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(twice.status().message().find("m@0 twice"), std::string::npos) << twice.status().message();
  EXPECT_FALSE(leases->ClaimLeases({{"", 0}}, "ra", 1000, 10).ok());
  EXPECT_FALSE(leases->ClaimLeases({{std::string("a\0b", 3), 0}}, "ra", 1000, 10).ok());
  EXPECT_FALSE(leases->ClaimLeases({{"m", 0}}, "", 1000, 10).ok());
  EXPECT_FALSE(leases->ClaimLeases({{"m", 0}}, "ra", 0, 10).ok());
  EXPECT_FALSE(leases->ClaimLeases({{"m", 0}}, "ra", 1000, -1).ok());
  std::vector<LeaseSlot> huge(kMaxLeaseBatch + 1, {"m", 0});
  auto over = leases->ClaimLeases(huge, "ra", 1000, 10);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.status().message().find("over the limit"), std::string::npos) << over.status().message();
  auto dup_run = leases->FinishLeases({{"m", 0, 7, true, ""}, {"n", 0, 7, true, ""}}, "ra");
  ASSERT_FALSE(dup_run.ok());
  EXPECT_NE(dup_run.status().message().find("run 7 twice"), std::string::npos) << dup_run.status().message();
  // Nothing was written by any of them.
  auto open = leases->OpenLeases();
  ASSERT_TRUE(open.ok());
  EXPECT_TRUE(open->empty());
  // An empty batch is nothing to do.
  auto none = leases->ClaimLeases({}, "ra", 1000, 10);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  // A NUL in a run's message is stored as a space (jsonb holds none), not refused.
  auto one = leases->ClaimLeases({{"m", 0}}, "ra", 1000, 1);
  ASSERT_TRUE(one.ok());
  auto ended = leases->FinishLeases({{"m", 0, (*one)[0].run_id, false, std::string("bad\0byte", 8)}}, "ra");
  ASSERT_TRUE(ended.ok()) << ended.status().ToString();
  EXPECT_EQ(*ended, std::vector<bool>{true});
}

TEST_P(WatchLeaseBatchesTest, ThreeReplicasRacingInBatchesTakeEachSlotExactlyOnce) {
  WatchLeases* leases = Leases();
  if (leases == nullptr) return;
  constexpr int kSlots = 600;
  const auto slots = Slots("race:", kSlots);
  std::vector<std::unique_ptr<StateStore>> stores;
  for (int r = 0; r < 3; ++r) {
    auto s = OpenStateStore(scratch_->location(), clock_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    stores.push_back(std::move(s).value());
  }
  std::atomic<int> errors{0};
  std::vector<std::map<std::string, int>> taken(3);  // slot -> times taken, per replica
  std::vector<std::thread> threads;
  for (int r = 0; r < 3; ++r)
    threads.emplace_back([&, r] {
      WatchLeases* l = WatchLeasesOf(*stores[r]);
      const std::string id = "r" + std::to_string(r);
      // Ask for the whole batch, taking a third at most, until every slot is done or held by
      // someone else; finish what was taken in one statement each round.
      for (int round = 0; round < 50; ++round) {
        auto c = l->ClaimLeases(slots, id, 30'000, kSlots / 3);
        if (!c.ok()) {
          ++errors;
          return;
        }
        std::vector<LeaseFinish> ends;
        bool open = false;
        for (size_t i = 0; i < slots.size(); ++i) {
          if ((*c)[i].answer == LeaseAnswer::kTaken) {
            ++taken[r][slots[i].job + "@" + std::to_string(slots[i].due_ms)];
            ends.push_back({slots[i].job, slots[i].due_ms, (*c)[i].run_id, true, ""});
          }
          open = open || (*c)[i].answer != LeaseAnswer::kDone;
        }
        if (!ends.empty()) {
          auto f = l->FinishLeases(ends, id);
          if (!f.ok()) ++errors;
        }
        if (!open) return;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0) << "no statement failed (no deadlock between the batches)";
  std::map<std::string, int> total;
  for (int r = 0; r < 3; ++r) {
    EXPECT_LE(static_cast<int>(taken[r].size()), kSlots) << r;
    for (const auto& [slot, n] : taken[r]) total[slot] += n;
  }
  EXPECT_EQ(total.size(), static_cast<size_t>(kSlots)) << "every slot taken";
  for (const auto& [slot, n] : total) EXPECT_EQ(n, 1) << slot << " taken " << n << " times";
  auto runs = leases->RecentRuns(10 * kSlots);
  ASSERT_TRUE(runs.ok());
  int ok = 0;
  for (const auto& r : *runs) ok += r.outcome == "ok";
  EXPECT_EQ(ok, kSlots);
  EXPECT_EQ(static_cast<int>(runs->size()), kSlots) << "no attempt beyond one per slot";
}

INSTANTIATE_TEST_SUITE_P(Backends, WatchLeaseBatchesTest, ::testing::Values("sqlite", "postgresql"));

}  // namespace watch_lease_batches_test
}  // namespace
}  // namespace dw::store
