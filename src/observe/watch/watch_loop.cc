#include "observe/watch/watch_loop.h"

#include <algorithm>
#include <map>
#include <thread>

namespace dw::observe::watch {
namespace {

// FNV-1a: a stable per-job hash, so a job's jitter is the same on every start.
uint64_t StableHash(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

}  // namespace

WatchLoop::WatchLoop(const Clock& clock, WatchOptions options) : clock_(clock), o_(options) {
  o_.max_parallel = std::max(1, o_.max_parallel);
}

Status WatchLoop::AddJob(WatchJob job) {
  if (job.name.empty()) return InvalidArgument("a watch job needs a name");
  if (!job.run) return InvalidArgument("watch job " + job.name + " has nothing to run");
  if (job.every_ms <= 0) return InvalidArgument("watch job " + job.name + ": every must be longer than zero");
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& s : slots_)
    if (s.job.name == job.name) return InvalidArgument("watch job " + job.name + " is added twice");
  if (!job.batch.empty() && batch_runners_.count(job.batch) == 0)
    return InvalidArgument("watch job " + job.name + " names the batch runner " + job.batch + ", which was not added");
  Slot s;
  int64_t spread = static_cast<int64_t>(o_.jitter_fraction * static_cast<double>(job.every_ms));
  s.jitter_ms = spread > 0 ? static_cast<int64_t>(StableHash(job.name) % static_cast<uint64_t>(spread)) : 0;
  int64_t now = ToUnixMillis(clock_.Now());
  s.next_due_ms = now / job.every_ms * job.every_ms;
  s.job = std::move(job);
  slots_.push_back(std::move(s));
  return Status::Ok();
}

std::vector<JobLeases::Answer> JobLeases::ClaimBatch(const std::vector<SlotRef>& slots) {
  std::vector<Answer> out;
  out.reserve(slots.size());
  for (const SlotRef& s : slots) out.push_back(Claim(s.job, s.due_ms));
  return out;
}

void JobLeases::FinishBatch(const std::vector<SlotEnd>& ends) {
  for (const SlotEnd& e : ends) Finish(e.job, e.due_ms, e.outcome);
}

Status WatchLoop::AddBatchRunner(const std::string& name, BatchRunner run) {
  if (name.empty()) return InvalidArgument("a watch batch runner needs a name");
  if (!run) return InvalidArgument("watch batch runner " + name + " has nothing to run");
  std::lock_guard<std::mutex> lock(mu_);
  if (!batch_runners_.emplace(name, std::move(run)).second)
    return InvalidArgument("watch batch runner " + name + " is added twice");
  return Status::Ok();
}

void WatchLoop::ApplyNotRun(Slot& s, Pick& p, const JobLeases::Answer& a) {
  RunRecord& r = p.record;
  r.ran = false;
  const int64_t ask_again = r.started_ms + std::max<int64_t>(a.retry_in_ms, 1);
  std::lock_guard<std::mutex> lock(mu_);
  switch (a.verdict) {
    case JobLeases::Verdict::kDoneElsewhere:
      // Its slot is accounted for; a scheduled one's next slot is due as usual.
      s.held.erase(r.due_ms);
      if (p.held) break;
      s.next_due_ms = std::max(s.next_due_ms, r.due_ms + s.job.every_ms);
      s.retry_at_ms = -1;
      break;
    case JobLeases::Verdict::kHeldElsewhere:
      // A slot another replica held (or left for the others) is asked for as itself until it is
      // done or taken over here; the job's next slot is due as usual meanwhile.
      s.held[r.due_ms] = ask_again;
      if (p.held) break;
      s.next_due_ms = std::max(s.next_due_ms, r.due_ms + s.job.every_ms);
      s.retry_at_ms = -1;
      break;
    default:  // refused: the slot stays due here; the store said why
      r.status = FailedPrecondition(a.why);
      if (p.held)
        s.held[r.due_ms] = ask_again;
      else
        s.retry_at_ms = ask_again;
      break;
  }
}

int64_t WatchLoop::StartAt(const Slot& s) const {
  int64_t start = s.retry_at_ms >= 0 ? s.retry_at_ms : s.next_due_ms + s.jitter_ms;
  for (const auto& [due, ask_again] : s.held) start = std::min(start, ask_again);
  return start;
}

std::vector<RunRecord> WatchLoop::RunAllNow() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    int64_t now = ToUnixMillis(clock_.Now());
    for (auto& s : slots_) s.retry_at_ms = now;
  }
  return RunDue();
}

int64_t WatchLoop::MillisUntilNextDue() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (slots_.empty()) return -1;
  int64_t now = ToUnixMillis(clock_.Now());
  int64_t next = INT64_MAX;
  for (const auto& s : slots_) next = std::min(next, StartAt(s));
  return std::max<int64_t>(0, next - now);
}

std::vector<WatchLoop::JobSchedule> WatchLoop::Schedule() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<JobSchedule> out;
  out.reserve(slots_.size());
  for (const auto& s : slots_) out.push_back({s.job.name, s.job.group, s.job.every_ms, StartAt(s)});
  std::sort(out.begin(), out.end(), [](const JobSchedule& a, const JobSchedule& b) {
    return a.next_start_ms != b.next_start_ms ? a.next_start_ms < b.next_start_ms : a.name < b.name;
  });
  return out;
}

std::vector<WatchLoop::Pick> WatchLoop::PickDue(int64_t now) {
  std::vector<Pick> picks;
  std::lock_guard<std::mutex> lock(mu_);
  picks.reserve(slots_.size());
  for (size_t i = 0; i < slots_.size(); ++i) {
    const Slot& s = slots_[i];
    Pick p;
    p.slot = i;
    RunRecord& r = p.record;
    r.job = s.job.name;
    r.started_ms = now;
    // A held slot whose time to ask again has come first (the earliest such): it waited longest.
    if (o_.leases != nullptr) {
      for (const auto& [due, ask_again] : s.held)
        if (ask_again <= now) {
          p.held = true;
          r.due_ms = due;
          break;
        }
      if (p.held) {
        picks.push_back(std::move(p));
        continue;
      }
    }
    const int64_t start = s.retry_at_ms >= 0 ? s.retry_at_ms : s.next_due_ms + s.jitter_ms;
    const bool ahead = o_.leases != nullptr && o_.claim_ahead_ms > 0 && s.retry_at_ms < 0 &&
                       s.next_due_ms <= now && start <= now + o_.claim_ahead_ms;
    if (start > now && !ahead) continue;
    // The latest slot at or before now; the ones between it and the last run were missed.
    int64_t latest_slot = now / s.job.every_ms * s.job.every_ms;
    if (latest_slot < s.next_due_ms) latest_slot = s.next_due_ms;
    r.due_ms = latest_slot;
    r.missed = static_cast<int>((latest_slot - s.next_due_ms) / s.job.every_ms);
    picks.push_back(std::move(p));
  }
  return picks;
}

void WatchLoop::Reschedule(Slot& s, const Pick& p) {
  const RunRecord& r = p.record;
  std::lock_guard<std::mutex> lock(mu_);
  if (r.status.ok()) {
    s.held.erase(r.due_ms);
    s.backoff_ms = 0;
    if (p.held) return;  // the schedule went on meanwhile
    s.next_due_ms = std::max(s.next_due_ms, r.due_ms + s.job.every_ms);
    s.retry_at_ms = -1;
  } else {
    // Keep the slot (next_due_ms, or the held one) so the retry still covers it; back off, doubling.
    s.backoff_ms = s.backoff_ms == 0 ? o_.retry_min_ms : std::min(2 * s.backoff_ms, s.job.every_ms);
    if (p.held)
      s.held[r.due_ms] = r.started_ms + s.backoff_ms;
    else
      s.retry_at_ms = r.started_ms + s.backoff_ms;
  }
}

void WatchLoop::RunUnit(std::vector<Pick>& picks, const size_t* unit, size_t n, std::vector<RunRecord>& out) {
  const int64_t started = ToUnixMillis(clock_.Now());
  const WatchJob& first = slots_[picks[unit[0]].slot].job;
  if (first.batch.empty()) {
    RunRecord& r = picks[unit[0]].record;
    r.started_ms = started;
    r.status = first.run(r.due_ms, r.missed);
  } else {
    std::vector<BatchItem> items;
    items.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      RunRecord& r = picks[unit[i]].record;
      r.started_ms = started;
      items.push_back({r.job, r.due_ms, r.missed});
    }
    const BatchRunner* runner = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = batch_runners_.find(first.batch);
      if (it != batch_runners_.end()) runner = &it->second;
    }
    std::vector<Status> statuses;
    if (runner != nullptr) statuses = (*runner)(items);
    for (size_t i = 0; i < n; ++i)
      picks[unit[i]].record.status =
          runner == nullptr ? Internal("watch batch runner " + first.batch + " was never added")
          : statuses.size() == n
              ? statuses[i]
              : Internal("watch batch runner " + first.batch + " answered " + std::to_string(statuses.size()) +
                         " outcomes for " + std::to_string(n) + " slots");
  }
  // The unit's ends in one report (one store statement with leases).
  if (o_.leases != nullptr) {
    std::vector<JobLeases::SlotEnd> ends;
    ends.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      const RunRecord& r = picks[unit[i]].record;
      ends.push_back({r.job, r.due_ms, r.status});
    }
    o_.leases->FinishBatch(ends);
  }
  for (size_t i = 0; i < n; ++i) {
    Reschedule(slots_[picks[unit[i]].slot], picks[unit[i]]);
    out.push_back(std::move(picks[unit[i]].record));
  }
}

void WatchLoop::RunGroup(std::vector<Pick>& picks, const std::vector<size_t>& members, std::vector<RunRecord>& out) {
  // A batched job's unit is all the group's due jobs naming its runner, run where the first of
  // them comes; the others run one by one, in the group's order.
  std::map<std::string, std::vector<size_t>> batches;
  for (size_t k : members)
    if (const std::string& b = slots_[picks[k].slot].job.batch; !b.empty()) batches[b].push_back(k);
  for (size_t k : members) {
    const std::string& b = slots_[picks[k].slot].job.batch;
    if (b.empty()) {
      RunUnit(picks, &k, 1, out);
      continue;
    }
    const std::vector<size_t>& unit = batches[b];
    if (unit.front() == k) RunUnit(picks, unit.data(), unit.size(), out);
  }
}

void WatchLoop::AdoptAbandoned(int64_t now) {
  std::vector<JobLeases::SlotRef> abandoned = o_.leases->Abandoned();
  if (abandoned.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, Slot*> by_name;
  for (Slot& s : slots_) by_name[s.job.name] = &s;
  for (const JobLeases::SlotRef& ref : abandoned) {
    auto it = by_name.find(ref.job);
    // A slot its schedule has not passed is asked for by the schedule itself.
    if (it == by_name.end() || ref.due_ms >= it->second->next_due_ms) continue;
    it->second->held.emplace(ref.due_ms, now);
  }
}

std::vector<RunRecord> WatchLoop::RunDue() {
  const int64_t now = ToUnixMillis(clock_.Now());
  if (o_.leases != nullptr) AdoptAbandoned(now);
  std::vector<Pick> picks = PickDue(now);
  std::vector<RunRecord> records;
  records.reserve(picks.size());
  // With leases, the whole batch is asked for at once; only the slots this replica holds run.
  if (o_.leases != nullptr && !picks.empty()) {
    std::vector<JobLeases::SlotRef> refs;
    refs.reserve(picks.size());
    for (const Pick& p : picks) refs.push_back({p.record.job, p.record.due_ms});
    std::vector<JobLeases::Answer> answers = o_.leases->ClaimBatch(refs);
    std::vector<Pick> held_here;
    for (size_t k = 0; k < picks.size(); ++k) {
      JobLeases::Answer a = k < answers.size() ? answers[k]
                                               : JobLeases::Answer{JobLeases::Verdict::kRefused, 1000,
                                                                   "the leases answered fewer slots than asked"};
      if (a.verdict == JobLeases::Verdict::kRun) {
        held_here.push_back(std::move(picks[k]));
        continue;
      }
      ApplyNotRun(slots_[picks[k].slot], picks[k], a);
      records.push_back(std::move(picks[k].record));
    }
    picks = std::move(held_here);
  }
  // Grouped so that one group's jobs run one after another, groups in parallel.
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t k = 0; k < picks.size(); ++k) groups[slots_[picks[k].slot].job.group].push_back(k);
  std::vector<const std::vector<size_t>*> work;
  for (const auto& [g, members] : groups) work.push_back(&members);
  std::mutex records_mu;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t w; (w = next++) < work.size();) {
      std::vector<RunRecord> done;
      done.reserve(work[w]->size());
      RunGroup(picks, *work[w], done);
      std::lock_guard<std::mutex> lock(records_mu);
      for (auto& r : done) records.push_back(std::move(r));
    }
  };
  size_t threads = std::min<size_t>(static_cast<size_t>(o_.max_parallel), work.size());
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  std::sort(records.begin(), records.end(),
            [](const RunRecord& a, const RunRecord& b) { return a.job < b.job; });
  return records;
}

size_t WatchLoop::Run(const std::atomic<bool>& stop, const std::function<void(int64_t)>& wait,
                      const std::function<void(const RunRecord&)>& on_run) {
  size_t runs = 0;
  while (!stop.load()) {
    for (const RunRecord& r : RunDue()) {
      ++runs;
      if (on_run) on_run(r);
    }
    if (stop.load()) break;
    int64_t ms = MillisUntilNextDue();
    wait(ms < 0 ? 1000 : ms);
  }
  return runs;
}

}  // namespace dw::observe::watch
