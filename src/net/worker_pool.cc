#include "net/worker_pool.h"

#include <utility>

namespace dw::net {

WorkerPool::WorkerPool(size_t min_threads, size_t max_threads,
                       std::chrono::milliseconds idle_timeout)
    : min_threads_(min_threads < 1 ? 1 : min_threads),
      max_threads_(max_threads < min_threads_ ? min_threads_ : max_threads),
      idle_timeout_(idle_timeout) {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < min_threads_; ++i) StartThreadLocked();
}

WorkerPool::~WorkerPool() { Shutdown(); }

void WorkerPool::StartThreadLocked() {
  size_t id = next_id_++;
  threads_.emplace(id, std::thread([this, id] { Run(id); }));
}

void WorkerPool::JoinExitedLocked(std::vector<std::thread>* out) {
  for (size_t id : exited_) {
    auto it = threads_.find(id);
    if (it == threads_.end()) continue;
    out->push_back(std::move(it->second));
    threads_.erase(it);
  }
  exited_.clear();
}

bool WorkerPool::Submit(std::function<void()> task) {
  std::vector<std::thread> finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shutdown_) return false;
    JoinExitedLocked(&finished);
    tasks_.push_back(std::move(task));
    // Only grow when no thread is free to take the task; threads that are exiting were already
    // removed from the idle count, so they are not counted as free.
    if (idle_ < tasks_.size() && threads_.size() - exited_.size() < max_threads_) StartThreadLocked();
  }
  work_cv_.notify_one();
  // Joining happens outside the lock; these threads have already left Run().
  for (auto& t : finished) t.join();
  return true;
}

void WorkerPool::Run(size_t id) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    ++idle_;
    bool timed_out = !work_cv_.wait_for(lock, idle_timeout_,
                                        [this] { return shutdown_ || !tasks_.empty(); });
    --idle_;
    if (tasks_.empty()) {
      if (shutdown_) break;
      // An idle thread beyond the minimum leaves; the minimum stays warm.
      if (timed_out && threads_.size() - exited_.size() > min_threads_) break;
      continue;
    }
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    task();
    task = nullptr;  // destroy captured state outside the lock
    lock.lock();
  }
  exited_.push_back(id);
}

void WorkerPool::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shutdown_ && threads_.empty()) return;
    shutdown_ = true;
  }
  work_cv_.notify_all();
  // Threads may still be running tasks; join them one at a time, taking each out under the lock
  // so that a concurrent Submit (which fails now) never sees a half-moved map.
  for (;;) {
    std::thread t;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (threads_.empty()) break;
      auto it = threads_.begin();
      t = std::move(it->second);
      threads_.erase(it);
    }
    if (t.joinable()) t.join();
  }
  std::lock_guard<std::mutex> lock(mu_);
  exited_.clear();
}

size_t WorkerPool::thread_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return threads_.size() - exited_.size();
}

}  // namespace dw::net
