// A persistent fork/join pool: workers are created once and wait between calls (spinning
// briefly, then sleeping on a futex via std::atomic::wait), so a GEMM call never creates
// threads. The calling thread runs task 0 itself.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace adaptcore {

class ThreadPool {
 public:
  explicit ThreadPool(int max_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int max_threads() const noexcept { return static_cast<int>(workers_.size()) + 1; }

  // Runs fn(tid) for tid in [0, n), n <= max_threads(), and returns when all finished. If the
  // pool is busy (another thread's call, or a nested call from a task), the caller runs every
  // tid itself in order: the result is the same because work is partitioned by tid.
  template <class F>
  void run(int n, F&& fn) {
    auto thunk = [](void* ctx, int tid) { (*static_cast<std::remove_reference_t<F>*>(ctx))(tid); };
    run_erased(n, thunk, static_cast<void*>(&fn));
  }

 private:
  using Thunk = void (*)(void*, int);
  void run_erased(int n, Thunk thunk, void* ctx);
  void worker_loop(int tid);

  std::chrono::nanoseconds spin_;  // how long waiters spin before sleeping
  std::vector<std::thread> workers_;
  std::mutex busy_;
  // Job published to the workers; generation_ changes once per job.
  Thunk thunk_ = nullptr;
  void* ctx_ = nullptr;
  int job_threads_ = 0;
  // 32-bit: std::atomic::wait sleeps on a futex directly only for 4-byte types (wider ones
  // go through a proxy with a timed back-off that costs hundreds of microseconds per wake).
  // Wrap-around is harmless: workers compare for inequality.
  alignas(64) std::atomic<std::uint32_t> generation_{0};
  alignas(64) std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace adaptcore
