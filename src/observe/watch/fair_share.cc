#include "observe/watch/fair_share.h"

#include <algorithm>

namespace dw::observe::watch {
namespace {

// What a replica remembers of a due time or a waiting slot it has not been asked about for this
// long is dropped (a slot is asked for again within its job's period or its retry).
constexpr int64_t kForgetAfterMs = 15 * 60 * 1000;
// A kLeft slot is asked for again this soon while the replica still has share to take.
constexpr int64_t kSoonMs = 50;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

bool FairShare::Overdue(const Waiting& w, int64_t now_ms) const {
  return (w.left_since_ms >= 0 && now_ms - w.left_since_ms >= grace_ms_) ||
         (w.held_until_ms >= 0 && now_ms >= w.held_until_ms);
}

int64_t FairShare::share(int64_t due_ms, int live) const {
  auto it = wakes_.find(due_ms);
  if (it == wakes_.end()) return 0;
  return CeilDiv(static_cast<int64_t>(it->second.jobs.size()), std::max(1, live));
}

int64_t FairShare::taken(int64_t due_ms) const {
  auto it = wakes_.find(due_ms);
  return it == wakes_.end() ? 0 : it->second.taken;
}

FairShare::Plan FairShare::Before(const std::vector<store::LeaseSlot>& slots, int live, int rank, int64_t now_ms) {
  Forget(now_ms);
  live = std::max(1, live);
  last_live_ = live;
  Plan plan;
  std::set<int64_t> dues;
  std::vector<size_t> overdue, others;
  for (size_t i = 0; i < slots.size(); ++i) {
    Wake& w = wakes_[slots[i].due_ms];
    w.jobs.insert(slots[i].job);
    w.touched_ms = now_ms;
    dues.insert(slots[i].due_ms);
    auto it = waiting_.find({slots[i].job, slots[i].due_ms});
    (it != waiting_.end() && Overdue(it->second, now_ms) ? overdue : others).push_back(i);
  }
  for (int64_t due : dues) plan.max_take += std::max<int64_t>(0, share(due, live) - wakes_[due].taken);
  // And never more than this statement's own share: a wake-up of a few slots of different due
  // times (a monitor every 2 s, another every 3 s) is shared too, not taken whole by the first.
  plan.max_take = std::min<int64_t>(plan.max_take, CeilDiv(static_cast<int64_t>(others.size()), live));
  // Overdue first; the others from this replica's own place round the batch.
  const size_t start = others.empty() ? 0 : others.size() * static_cast<size_t>(std::clamp(rank, 0, live - 1)) /
                                                static_cast<size_t>(live);
  plan.order = overdue;
  for (size_t k = 0; k < others.size(); ++k) plan.order.push_back(others[(start + k) % others.size()]);
  plan.ask.reserve(plan.order.size());
  for (size_t k = 0; k < plan.order.size(); ++k) {
    store::LeaseSlot s = slots[plan.order[k]];
    s.overdue = k < overdue.size();
    plan.ask.push_back(std::move(s));
  }
  return plan;
}

void FairShare::After(const Plan& plan, const std::vector<store::LeaseClaim>& answers, int64_t now_ms) {
  for (size_t k = 0; k < plan.ask.size() && k < answers.size(); ++k) {
    const store::LeaseSlot& s = plan.ask[k];
    const store::LeaseClaim& c = answers[k];
    const std::pair<std::string, int64_t> key{s.job, s.due_ms};
    switch (c.answer) {
      case store::LeaseAnswer::kTaken:
        ++wakes_[s.due_ms].taken;
        waiting_.erase(key);
        break;
      case store::LeaseAnswer::kDone:
      case store::LeaseAnswer::kPruned:
        waiting_.erase(key);
        break;
      case store::LeaseAnswer::kLeft: {
        Waiting& w = waiting_[key];
        if (w.left_since_ms < 0) w.left_since_ms = now_ms;
        w.held_until_ms = -1;
        w.touched_ms = now_ms;
        break;
      }
      case store::LeaseAnswer::kHeld:
        // A named holder's lease ends at expires_ms on the database's clock: as far from now on ours.
        if (!c.holder.empty()) {
          Waiting& w = waiting_[key];
          w.held_until_ms = now_ms + std::max<int64_t>(0, c.expires_ms - c.db_now_ms);
          w.left_since_ms = -1;
          w.touched_ms = now_ms;
        }
        break;
    }
  }
}

int64_t FairShare::RetryLeftMs(const std::string& job, int64_t due_ms, int64_t now_ms) const {
  if (share(due_ms, last_live_) > taken(due_ms)) return kSoonMs;
  auto it = waiting_.find({job, due_ms});
  if (it == waiting_.end() || it->second.left_since_ms < 0) return kSoonMs;
  return std::max<int64_t>(1, it->second.left_since_ms + grace_ms_ - now_ms);
}

void FairShare::Forget(int64_t now_ms) {
  if (now_ms - forgot_ms_ < 60'000) return;
  forgot_ms_ = now_ms;
  std::erase_if(wakes_, [&](const auto& e) { return now_ms - e.second.touched_ms > kForgetAfterMs; });
  std::erase_if(waiting_, [&](const auto& e) { return now_ms - e.second.touched_ms > kForgetAfterMs; });
}

}  // namespace dw::observe::watch
