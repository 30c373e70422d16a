// A thread pool that grows on demand up to a cap and shrinks back when idle. Work on the HTTP
// server blocks by nature (a keep-alive connection waiting for its next request, an SSE stream
// waiting for a tool that waits for the client's sampling answer), so a fixed pool would let a few
// slow clients starve everyone; a thread per task would pay thread creation on the hot path.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace dw::net {

class WorkerPool {
 public:
  // Keeps `min_threads` threads alive, starts more (up to `max_threads`) when every thread is
  // busy, and lets extra threads exit after `idle_timeout` without work.
  // REQUIRES: 1 <= min_threads <= max_threads.
  WorkerPool(size_t min_threads, size_t max_threads, std::chrono::milliseconds idle_timeout);
  // Calls Shutdown().
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues `task`. Returns false (and drops the task) once Shutdown() has begun. When all
  // `max_threads` threads are busy the task waits in the queue.
  bool Submit(std::function<void()> task);

  // Stops accepting tasks, lets the queued ones run, and joins every thread. Idempotent.
  void Shutdown();

  // Threads currently alive (for tests and diagnostics).
  size_t thread_count() const;

 private:
  void StartThreadLocked();
  void Run(size_t id);
  void JoinExitedLocked(std::vector<std::thread>* out);

  const size_t min_threads_;
  const size_t max_threads_;
  const std::chrono::milliseconds idle_timeout_;

  mutable std::mutex mu_;
  std::condition_variable work_cv_;
  std::deque<std::function<void()>> tasks_;
  std::map<size_t, std::thread> threads_;  // by id; exited threads move to exited_ to be joined
  std::vector<size_t> exited_;
  size_t next_id_ = 0;
  size_t idle_ = 0;
  bool shutdown_ = false;
};

}  // namespace dw::net
