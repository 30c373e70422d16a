// A replica's share of a wake-up's slots (observe/watch/fair_share.h), without a store: the
// answers a store would give are written by hand, so every rule is checked on its own.
#include "observe/watch/fair_share.h"

#include <gtest/gtest.h>

#include <set>

namespace dw::observe::watch {
namespace {
namespace fair_share_test {

using store::LeaseAnswer;
using store::LeaseClaim;
using store::LeaseSlot;

std::vector<LeaseSlot> Slots(int n, int64_t due) {
  std::vector<LeaseSlot> out;
  for (int i = 0; i < n; ++i) out.push_back({"monitor:m" + std::to_string(i), due});
  return out;
}

// The store's answers when this replica takes the first `take` free slots it asks for (overdue
// ones whatever max_take) and every other one is as `rest` says.
std::vector<LeaseClaim> Answer(const FairShare::Plan& plan, int64_t take, LeaseAnswer rest) {
  std::vector<LeaseClaim> out;
  for (const LeaseSlot& s : plan.ask) {
    LeaseClaim c;
    if (s.overdue || take > 0) {
      c.answer = LeaseAnswer::kTaken;
      if (!s.overdue) --take;
    } else {
      c.answer = rest;
    }
    out.push_back(c);
  }
  return out;
}

TEST(FairShareTest, TheShareIsCountedFromTheWakeUpNotFromWhatIsLeft) {
  FairShare share(1000);
  auto slots = Slots(10, 60'000);
  auto first = share.Before(slots, 3, 0, 0);
  EXPECT_EQ(first.max_take, 4) << "ceil(10 / 3)";
  share.After(first, Answer(first, first.max_take, LeaseAnswer::kLeft), 0);
  EXPECT_EQ(share.taken(60'000), 4);
  // The 6 left are asked for again at once: the old rule took ceil(6 / 3) = 2 more; the share of
  // this wake-up is used up, so nothing more is taken until the grace ends.
  std::vector<LeaseSlot> left(slots.begin() + 4, slots.end());
  auto again = share.Before(left, 3, 0, 10);
  EXPECT_EQ(again.max_take, 0);
  for (const auto& s : again.ask) EXPECT_FALSE(s.overdue) << s.job;
  EXPECT_EQ(share.RetryLeftMs(left[0].job, 60'000, 10), 990) << "asked again when the grace ends";
}

TEST(FairShareTest, AReplicaThatTookLessThanItsShareAsksAgainSoonAndMayTakeTheRest) {
  FairShare share(1000);
  auto slots = Slots(9, 60'000);
  auto first = share.Before(slots, 3, 1, 0);
  EXPECT_EQ(first.max_take, 3);
  // Another replica was inserting its slots at the same instant: only one taken here.
  share.After(first, Answer(first, 1, LeaseAnswer::kLeft), 0);
  EXPECT_EQ(share.RetryLeftMs(slots[0].job, 60'000, 0), 50);
  auto again = share.Before(slots, 3, 1, 50);
  EXPECT_EQ(again.max_take, 2);
}

TEST(FairShareTest, ASlotLeftFreePastTheGraceIsOverdueAndTakenWhateverTheShare) {
  FairShare share(1000);
  auto slots = Slots(6, 60'000);
  auto first = share.Before(slots, 2, 0, 0);
  share.After(first, Answer(first, first.max_take, LeaseAnswer::kLeft), 0);
  std::vector<LeaseSlot> left;
  for (size_t k = 0; k < first.ask.size(); ++k)
    if (k >= 3) left.push_back(first.ask[k]);
  auto early = share.Before(left, 2, 0, 999);
  for (const auto& s : early.ask) EXPECT_FALSE(s.overdue) << "within the grace: " << s.job;
  share.After(early, Answer(early, 0, LeaseAnswer::kLeft), 999);
  auto late = share.Before(left, 2, 0, 1000);
  EXPECT_EQ(late.max_take, 0);
  ASSERT_EQ(late.ask.size(), 3u);
  for (const auto& s : late.ask) EXPECT_TRUE(s.overdue) << "the other replica never came: " << s.job;
}

TEST(FairShareTest, AnExpiredHoldersSlotIsOverdueAtItsLeasesEndAndAskedFirst) {
  FairShare share(60'000);
  auto slots = Slots(4, 60'000);
  auto first = share.Before(slots, 2, 0, 0);
  std::vector<LeaseClaim> answers(first.ask.size());
  for (size_t k = 0; k < answers.size(); ++k) {
    answers[k].answer = k == 0 ? LeaseAnswer::kTaken : LeaseAnswer::kDone;
    if (k == 3) {
      answers[k].answer = LeaseAnswer::kHeld;
      answers[k].holder = "dead-replica";
      answers[k].db_now_ms = 5'000'000;
      answers[k].expires_ms = 5'030'000;  // 30 s from now on the database's clock
    }
  }
  share.After(first, answers, 0);
  const std::string held = first.ask[3].job;
  auto before_expiry = share.Before({{held, 60'000}}, 2, 0, 29'999);
  EXPECT_FALSE(before_expiry.ask[0].overdue);
  auto after_expiry = share.Before({{"monitor:other", 60'000}, {held, 60'000}}, 2, 0, 30'000);
  ASSERT_EQ(after_expiry.ask.size(), 2u);
  EXPECT_EQ(after_expiry.ask[0].job, held) << "overdue slots are asked for first";
  EXPECT_TRUE(after_expiry.ask[0].overdue) << "a takeover never waits for the share";
  EXPECT_EQ(after_expiry.order[0], 1u);
}

TEST(FairShareTest, EachReplicaStartsAtItsOwnPlaceSoThreeAskingAtOnceWantDifferentSlots) {
  auto slots = Slots(9, 60'000);
  std::set<std::string> first_of_each;
  for (int rank = 0; rank < 3; ++rank) {
    FairShare share(1000);
    auto plan = share.Before(slots, 3, rank, 0);
    ASSERT_EQ(plan.ask.size(), 9u);
    EXPECT_EQ(plan.ask[0].job, slots[static_cast<size_t>(3 * rank)].job);
    for (size_t k = 0; k < 3; ++k) first_of_each.insert(plan.ask[k].job);
    // order maps back to the slots given.
    for (size_t k = 0; k < plan.ask.size(); ++k) EXPECT_EQ(plan.ask[k].job, slots[plan.order[k]].job);
  }
  EXPECT_EQ(first_of_each.size(), 9u) << "the three shares are disjoint";
}

TEST(FairShareTest, TheShareOfEachDueTimeIsCountedApartAndAloneAReplicaTakesAll) {
  FairShare share(1000);
  auto a = Slots(4, 60'000), b = Slots(2, 120'000);
  std::vector<LeaseSlot> both = a;
  both.insert(both.end(), b.begin(), b.end());
  EXPECT_EQ(share.Before(both, 2, 0, 0).max_take, 2 + 1);
  FairShare alone(1000);
  EXPECT_EQ(alone.Before(both, 1, 0, 0).max_take, 6);
}

TEST(FairShareTest, AFewSlotsOfDifferentDueTimesAreSharedNotTakenWholeByTheFirstToAsk) {
  FairShare share(1000);
  // A monitor every 2 s and one every 3 s, due at one wake-up: one slot each of two due times.
  auto plan = share.Before({{"monitor:fast", 2000}, {"monitor:slow", 3000}}, 3, 0, 0);
  EXPECT_EQ(plan.max_take, 1) << "ceil(2 / 3): the others take the other one";
}

}  // namespace fair_share_test
}  // namespace
}  // namespace dw::observe::watch
