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
  Slot s;
  int64_t spread = static_cast<int64_t>(o_.jitter_fraction * static_cast<double>(job.every_ms));
  s.jitter_ms = spread > 0 ? static_cast<int64_t>(StableHash(job.name) % static_cast<uint64_t>(spread)) : 0;
  int64_t now = ToUnixMillis(clock_.Now());
  s.next_due_ms = now / job.every_ms * job.every_ms;
  s.job = std::move(job);
  slots_.push_back(std::move(s));
  return Status::Ok();
}

bool WatchLoop::ClaimSlot(Slot& s, RunRecord& r) {
  // A slot another replica held is asked for as itself until it is done (or taken over here).
  if (s.held_due_ms >= 0) {
    r.due_ms = s.held_due_ms;
    r.missed = 0;
  }
  JobLeases::Answer a = o_.leases->Claim(s.job.name, r.due_ms);
  if (a.verdict == JobLeases::Verdict::kRun) return true;
  r.ran = false;
  std::lock_guard<std::mutex> lock(mu_);
  switch (a.verdict) {
    case JobLeases::Verdict::kDoneElsewhere:
      // Its slot is accounted for; the next one is due as usual. A later slot left behind while
      // this one was held is picked up by the next run (as missed slots after downtime are).
      s.next_due_ms = std::max(s.next_due_ms, r.due_ms + s.job.every_ms);
      s.held_due_ms = -1;
      s.retry_at_ms = -1;
      break;
    case JobLeases::Verdict::kHeldElsewhere:
      s.held_due_ms = r.due_ms;
      s.retry_at_ms = r.started_ms + std::max<int64_t>(a.retry_in_ms, 1);
      break;
    default:  // refused: the slot stays due here; the store said why
      r.status = FailedPrecondition(a.why);
      s.retry_at_ms = r.started_ms + std::max<int64_t>(a.retry_in_ms, 1);
      break;
  }
  return false;
}

int64_t WatchLoop::StartAt(const Slot& s) const {
  return s.retry_at_ms >= 0 ? s.retry_at_ms : s.next_due_ms + s.jitter_ms;
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

std::vector<RunRecord> WatchLoop::RunDue() {
  int64_t now = ToUnixMillis(clock_.Now());
  // Pick what is due, grouped so that one group's jobs run one after another.
  std::map<std::string, std::vector<size_t>> groups;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < slots_.size(); ++i)
      if (StartAt(slots_[i]) <= now) groups[slots_[i].job.group].push_back(i);
  }
  std::vector<std::vector<size_t>> work;
  for (auto& [g, idx] : groups) work.push_back(idx);
  std::vector<RunRecord> records;
  std::mutex records_mu;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t w; (w = next++) < work.size();) {
      for (size_t i : work[w]) {
        Slot* s;
        {
          std::lock_guard<std::mutex> lock(mu_);
          s = &slots_[i];
        }
        RunRecord r;
        r.job = s->job.name;
        int64_t started = ToUnixMillis(clock_.Now());
        // The latest slot at or before now; the ones between it and the last run were missed.
        int64_t latest_slot = started / s->job.every_ms * s->job.every_ms;
        if (latest_slot < s->next_due_ms) latest_slot = s->next_due_ms;
        r.due_ms = latest_slot;
        r.missed = static_cast<int>((latest_slot - s->next_due_ms) / s->job.every_ms);
        r.started_ms = started;
        if (o_.leases != nullptr && !ClaimSlot(*s, r)) {
          std::lock_guard<std::mutex> lock(records_mu);
          records.push_back(std::move(r));
          continue;
        }
        r.status = s->job.run(r.due_ms, r.missed);
        if (o_.leases != nullptr) o_.leases->Finish(s->job.name, r.due_ms, r.status);
        latest_slot = r.due_ms;
        {
          std::lock_guard<std::mutex> lock(mu_);
          if (r.status.ok()) {
            s->next_due_ms = std::max(s->next_due_ms, latest_slot + s->job.every_ms);
            s->held_due_ms = -1;
            s->retry_at_ms = -1;
            s->backoff_ms = 0;
          } else {
            // Keep the slot (next_due_ms) so the retry still covers it; back off, doubling.
            s->backoff_ms = s->backoff_ms == 0 ? o_.retry_min_ms : std::min(2 * s->backoff_ms, s->job.every_ms);
            s->retry_at_ms = started + s->backoff_ms;
          }
        }
        std::lock_guard<std::mutex> lock(records_mu);
        records.push_back(std::move(r));
      }
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
