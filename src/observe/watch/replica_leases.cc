#include "observe/watch/replica_leases.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace dw::observe::watch {
namespace {

std::string SlotKey(const std::string& job, int64_t due_ms) { return job + "@" + std::to_string(due_ms); }

std::string Seconds(int64_t ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ms) / 1000.0);
  return buf;
}

}  // namespace

store::WatchReplica ThisReplica(const Clock& clock, int64_t lease_ms) {
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') std::snprintf(host, sizeof host, "unknown-host");
  store::WatchReplica r;
  r.host = host;
  r.pid = static_cast<int64_t>(getpid());
  r.started_ms = ToUnixMillis(clock.Now());
  r.lease_ms = lease_ms;
  r.id = r.host + ":" + std::to_string(r.pid) + ":" + std::to_string(r.started_ms);
  return r;
}

ReplicaLeases::ReplicaLeases(store::WatchLeases& leases, const Clock& clock, store::WatchReplica self,
                             ReplicaOptions options, std::function<void(const std::string&)> say)
    : leases_(leases),
      beat_leases_(options.heartbeat_leases != nullptr ? *options.heartbeat_leases : leases),
      clock_(clock),
      self_(std::move(self)),
      o_(options),
      say_(std::move(say)),
      share_(std::max<int64_t>(0, options.share_grace_ms)) {
  self_.lease_ms = o_.lease_ms;
}

ReplicaLeases::~ReplicaLeases() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (heartbeat_.joinable()) heartbeat_.join();
}

Status ReplicaLeases::Start() {
  DW_RETURN_IF_ERROR(Beat());
  heartbeat_ = std::thread([this] { HeartbeatLoop(); });
  return Status::Ok();
}

Status ReplicaLeases::Beat() {
  // The offset is the replica's clock at the middle of the round trip minus the database's.
  int64_t before = ToUnixMillis(clock_.Now());
  Result<int64_t> db_now = beat_leases_.DatabaseNowMs();
  if (!db_now.ok()) return db_now.status();
  int64_t after = ToUnixMillis(clock_.Now());
  int64_t offset = (before + after) / 2 - *db_now;
  std::string refusing;
  if (std::llabs(offset) > o_.max_clock_skew_ms)
    refusing = "its clock is " + Seconds(std::llabs(offset)) + (offset > 0 ? " ahead of" : " behind") +
               " the state store's (more than " + Seconds(o_.max_clock_skew_ms) +
               " apart): it would name job slots differently from the other replicas; fix its time (NTP) "
               "and it takes leases again";
  std::string was;
  store::WatchReplica beat;
  {
    std::lock_guard<std::mutex> lock(mu_);
    was = refusing_;
    refusing_ = refusing;
    self_.clock_offset_ms = offset;
    self_.refusing = refusing;
    beat = self_;
  }
  if (was != refusing && say_) {
    if (!refusing.empty())
      say_("dw watch: replica " + self_.id + " refuses to take leases: " + refusing);
    else if (!was.empty())
      say_("dw watch: replica " + self_.id + " takes leases again: its clock is within " +
           Seconds(o_.max_clock_skew_ms) + " of the state store's");
  }
  Result<int64_t> now = beat_leases_.Heartbeat(beat);
  if (!now.ok()) return now.status();
  // Who shares the batches: the replicas whose heartbeat is within their lease time. Unreadable
  // now, the last count stands (the share only spreads the work; the heartbeat itself was written).
  Result<std::vector<store::WatchReplica>> replicas = beat_leases_.Replicas();
  if (!replicas.ok()) return Status::Ok();
  // A replica refusing leases takes none: it is not counted. This one's rank is its place among
  // the live ids, so that replicas asking at once start their claims at different slots.
  std::vector<std::string> live;
  for (const auto& r : *replicas)
    if (!r.stopped_ms && r.heartbeat_ms >= *now - r.lease_ms && (r.refusing.empty() || r.id == self_.id))
      live.push_back(r.id);
  std::sort(live.begin(), live.end());
  const auto self = std::find(live.begin(), live.end(), self_.id);
  rank_.store(self == live.end() ? 0 : static_cast<int>(self - live.begin()));
  live_replicas_.store(std::max<int>(1, static_cast<int>(live.size())));
  return Status::Ok();
}

Status ReplicaLeases::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (heartbeat_.joinable()) heartbeat_.join();
  return leases_.StopReplica(self_.id);
}

std::string ReplicaLeases::refusing() const {
  std::lock_guard<std::mutex> lock(mu_);
  return refusing_;
}

int64_t ReplicaLeases::PollMs() const { return std::clamp<int64_t>(o_.lease_ms / 10, 100, 5000); }

void ReplicaLeases::HeartbeatLoop() {
  const auto every = std::chrono::milliseconds(std::max<int64_t>(o_.lease_ms / 3, 50));
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, every, [this] { return stop_; })) {
    lock.unlock();
    Status beat = Beat();
    // A missed heartbeat is not fatal: the next one retries; if they keep failing for the lease
    // time, other replicas take this one's slots over and its Finish reports the lease lost.
    if (!beat.ok() && say_) say_("dw watch: replica " + self_.id + ": heartbeat failed (retrying): " + beat.message());
    lock.lock();
  }
}

JobLeases::Answer ReplicaLeases::Translate(const std::string& job, int64_t due_ms, const store::LeaseClaim& c) {
  switch (c.answer) {
    case store::LeaseAnswer::kTaken: {
      std::lock_guard<std::mutex> lock(mu_);
      run_ids_[SlotKey(job, due_ms)] = c.run_id;
      return {Verdict::kRun, 0, ""};
    }
    case store::LeaseAnswer::kDone:
      return {Verdict::kDoneElsewhere, 0, ""};
    case store::LeaseAnswer::kPruned:
      if (say_)
        say_("dw watch: replica " + self_.id + ": " + job + " due " + FormatRfc3339(FromUnixMillis(due_ms)) +
             " is older than the lease history kept and a later slot of it was run: not run again");
      return {Verdict::kDoneElsewhere, 0, ""};
    case store::LeaseAnswer::kLeft: {
      // Free, left for the other replicas to take their share: asked again soon while this
      // replica has share left, else when the share grace ends (taken here then if nobody did).
      std::lock_guard<std::mutex> lock(mu_);
      return {Verdict::kHeldElsewhere,
              std::min(PollMs(), share_.RetryLeftMs(job, due_ms, ToUnixMillis(clock_.Now()))),
              "left for the other replicas (this replica took its share of the batch)"};
    }
    case store::LeaseAnswer::kHeld:
      break;
  }
  // Ask again soon (it finishes), and no later than just after its lease expires (it died).
  int64_t until_expiry = std::max<int64_t>(c.expires_ms - c.db_now_ms + 10, 1);
  return {Verdict::kHeldElsewhere, std::min(PollMs(), until_expiry), "held by " + c.holder};
}

JobLeases::Answer ReplicaLeases::Claim(const std::string& job, int64_t due_ms) {
  std::string refusing = this->refusing();
  if (!refusing.empty()) return {Verdict::kRefused, std::max<int64_t>(o_.lease_ms / 3, 50), "refusing leases: " + refusing};
  Result<store::LeaseClaim> c = leases_.ClaimLease(job, due_ms, self_.id, o_.lease_ms);
  if (!c.ok())
    return {Verdict::kRefused, PollMs(), "could not ask the state store for the lease: " + c.status().message()};
  return Translate(job, due_ms, *c);
}

std::vector<JobLeases::Answer> ReplicaLeases::ClaimBatch(const std::vector<SlotRef>& slots) {
  std::vector<Answer> out;
  out.reserve(slots.size());
  std::string refusing = this->refusing();
  if (!refusing.empty()) {
    out.assign(slots.size(), {Verdict::kRefused, std::max<int64_t>(o_.lease_ms / 3, 50), "refusing leases: " + refusing});
    return out;
  }
  const int live = live_replicas_.load();
  const int rank = rank_.load();
  // A slot the store's answer leaves out is never run here.
  out.assign(slots.size(), {Verdict::kRefused, PollMs(), "the state store answered fewer slots than asked"});
  for (size_t from = 0; from < slots.size(); from += store::kMaxLeaseBatch) {
    const size_t to = std::min(slots.size(), from + store::kMaxLeaseBatch);
    std::vector<store::LeaseSlot> chunk;
    chunk.reserve(to - from);
    for (size_t i = from; i < to; ++i) chunk.push_back({slots[i].job, slots[i].due_ms});
    FairShare::Plan plan;
    {
      std::lock_guard<std::mutex> lock(mu_);
      plan = share_.Before(chunk, live, rank, ToUnixMillis(clock_.Now()));
    }
    Result<std::vector<store::LeaseClaim>> claims =
        leases_.ClaimLeases(plan.ask, self_.id, o_.lease_ms, plan.max_take);
    if (!claims.ok()) {
      for (size_t i = from; i < to; ++i)
        out[i] = {Verdict::kRefused, PollMs(), "could not ask the state store for the leases: " +
                                                   claims.status().message()};
      continue;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      share_.After(plan, *claims, ToUnixMillis(clock_.Now()));
    }
    for (size_t k = 0; k < plan.order.size() && k < claims->size(); ++k) {
      const size_t i = from + plan.order[k];
      out[i] = Translate(slots[i].job, slots[i].due_ms, (*claims)[k]);
    }
  }
  return out;
}

std::vector<JobLeases::SlotRef> ReplicaLeases::Abandoned() {
  // Bounded: a sweep asks for this many; the rest come with the next ones.
  constexpr int kMaxAbandonedPerSweep = 1000;
  if (!refusing().empty()) return {};
  const int64_t now = ToUnixMillis(clock_.Now());
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (now < next_sweep_ms_) return {};
    next_sweep_ms_ = now + PollMs();
  }
  Result<std::vector<store::LeaseSlot>> found = leases_.AbandonedLeases(kMaxAbandonedPerSweep);
  if (!found.ok()) return {};
  std::vector<SlotRef> out;
  out.reserve(found->size());
  for (store::LeaseSlot& l : *found) out.push_back({std::move(l.job), l.due_ms});
  return out;
}

void ReplicaLeases::SayEnd(const std::string& job, int64_t due_ms, const Result<bool>& held) {
  if (!say_ || (held.ok() && *held)) return;
  const std::string slot = job + " due " + FormatRfc3339(FromUnixMillis(due_ms));
  if (!held.ok())
    say_("dw watch: replica " + self_.id + ": the end of " + slot + " could not be recorded (its lease expires and "
         "another replica runs it again): " + held.status().message());
  else
    say_("dw watch: replica " + self_.id + " lost the lease of " + slot +
         " before it finished (it ran longer than the lease time without a heartbeat); another replica took it over");
}

void ReplicaLeases::FinishBatch(const std::vector<SlotEnd>& ends) {
  std::vector<store::LeaseFinish> runs;
  std::vector<const SlotEnd*> of_run;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const SlotEnd& e : ends) {
      auto it = run_ids_.find(SlotKey(e.job, e.due_ms));
      if (it == run_ids_.end()) continue;
      runs.push_back({e.job, e.due_ms, it->second, e.outcome.ok(), e.outcome.message()});
      of_run.push_back(&e);
      run_ids_.erase(it);
    }
  }
  for (size_t from = 0; from < runs.size(); from += store::kMaxLeaseBatch) {
    const size_t to = std::min(runs.size(), from + store::kMaxLeaseBatch);
    std::vector<store::LeaseFinish> chunk(runs.begin() + static_cast<std::ptrdiff_t>(from),
                                          runs.begin() + static_cast<std::ptrdiff_t>(to));
    Result<std::vector<bool>> held = leases_.FinishLeases(chunk, self_.id);
    for (size_t i = from; i < to; ++i) {
      if (!held.ok())
        SayEnd(of_run[i]->job, of_run[i]->due_ms, held.status());
      else
        SayEnd(of_run[i]->job, of_run[i]->due_ms, static_cast<bool>((*held)[i - from]));
    }
  }
}

void ReplicaLeases::Finish(const std::string& job, int64_t due_ms, const Status& outcome) {
  int64_t run_id = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = run_ids_.find(SlotKey(job, due_ms));
    if (it == run_ids_.end()) return;
    run_id = it->second;
    run_ids_.erase(it);
  }
  SayEnd(job, due_ms, leases_.FinishLease(job, due_ms, self_.id, run_id, outcome.ok(), outcome.message()));
}

}  // namespace dw::observe::watch

namespace dw::observe::watch {

Result<store::WatchPrune> ReplicaLeases::PruneHistory() {
  store::WatchPrune total;
  const int64_t rows = std::max<int64_t>(1, o_.prune_rows);
  const int64_t until = ToUnixMillis(clock_.Now()) + std::max<int64_t>(0, o_.prune_budget_ms);
  for (;;) {
    Result<store::WatchPrune> step = leases_.PruneWatchHistory(o_.keep_history_ms, rows);
    if (!step.ok()) return step.status();
    total.before_ms = step->before_ms;
    total.leases += step->leases;
    total.runs += step->runs;
    total.replicas += step->replicas;
    const bool more = step->leases >= rows || step->replicas >= rows;
    if (!more || ToUnixMillis(clock_.Now()) >= until) return total;
  }
}

Status AddLeaseHistoryJob(WatchLoop& loop, ReplicaLeases& replica, int64_t every_ms,
                          std::function<void(const std::string&)> say) {
  return loop.AddJob({"prune-lease-history", "state", every_ms, [&replica, say](int64_t, int) -> Status {
                        Result<store::WatchPrune> pruned = replica.PruneHistory();
                        if (!pruned.ok())
                          return Unavailable("the lease history could not be pruned: " + pruned.status().message());
                        if (pruned->total() > 0 && say)
                          say("dw watch: pruned the lease history before " +
                              FormatRfc3339(FromUnixMillis(pruned->before_ms)) + ": " +
                              std::to_string(pruned->leases) + " finished lease(s), " +
                              std::to_string(pruned->runs) + " run(s), " + std::to_string(pruned->replicas) +
                              " silent replica(s)");
                        return Status::Ok();
                      }});
}

}  // namespace dw::observe::watch
