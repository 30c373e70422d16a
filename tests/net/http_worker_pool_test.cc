// The elastic pool behind the HTTP server's connections and tool calls.
#include "net/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

namespace dw::net {
namespace {

TEST(McpHttpWorkerPool, RunsEveryTask) {
  std::atomic<int> ran{0};
  {
    WorkerPool pool(2, 4, std::chrono::seconds(1));
    for (int i = 0; i < 1000; ++i) ASSERT_TRUE(pool.Submit([&] { ran.fetch_add(1); }));
  }  // destruction drains the queue
  EXPECT_EQ(ran.load(), 1000);
}

TEST(McpHttpWorkerPool, GrowsWhenTasksBlockAndShrinksWhenIdle) {
  WorkerPool pool(1, 8, std::chrono::milliseconds(50));
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::atomic<int> started{0};
  for (int i = 0; i < 6; ++i) {
    pool.Submit([&] {
      started.fetch_add(1);
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return release; });
    });
  }
  // Six blocking tasks all run at once: the pool grew instead of queueing them.
  for (int i = 0; i < 200 && started.load() < 6; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(started.load(), 6);
  EXPECT_GE(pool.thread_count(), 6u);
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
  }
  cv.notify_all();
  for (int i = 0; i < 200 && pool.thread_count() > 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(pool.thread_count(), 1u);
  // Still works after shrinking.
  std::atomic<bool> ran{false};
  pool.Submit([&] { ran = true; });
  pool.Shutdown();
  EXPECT_TRUE(ran.load());
  EXPECT_FALSE(pool.Submit([] {}));
}

TEST(McpHttpWorkerPool, CapsThreadsAndQueuesTheRest) {
  WorkerPool pool(1, 2, std::chrono::seconds(1));
  std::atomic<int> running{0};
  std::atomic<int> peak{0};
  std::atomic<int> done{0};
  for (int i = 0; i < 10; ++i) {
    pool.Submit([&] {
      int now = running.fetch_add(1) + 1;
      int p = peak.load();
      while (now > p && !peak.compare_exchange_weak(p, now)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      running.fetch_sub(1);
      done.fetch_add(1);
    });
  }
  pool.Shutdown();
  EXPECT_EQ(done.load(), 10);
  EXPECT_LE(peak.load(), 2);
}

}  // namespace
}  // namespace dw::net
