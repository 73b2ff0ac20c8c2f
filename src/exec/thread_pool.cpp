#include "exec/thread_pool.hpp"

#include <chrono>
#include <type_traits>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ADAPTCORE_PAUSE() _mm_pause()
#else
#define ADAPTCORE_PAUSE() ((void)0)
#endif

namespace adaptcore {
namespace {
// How long an idle worker spins before sleeping: long enough that GEMM calls separated by
// other work find it awake, short enough not to hold a core for long. Waking a sleeping
// thread is a futex wake, and in a virtual machine the hypervisor must also reschedule the
// halted vCPU: about 400 us measured here, against about 1 us for a spinning worker.
constexpr auto kSpin = std::chrono::microseconds(1000);
}  // namespace

ThreadPool::ThreadPool(int max_threads)
    // More threads than CPUs: a spinning thread would hold the CPU that the thread it waits
    // for needs, so everyone sleeps at once instead.
    : spin_(max_threads <= static_cast<int>(std::thread::hardware_concurrency())
                ? std::chrono::duration_cast<std::chrono::nanoseconds>(kSpin)
                : std::chrono::nanoseconds(0)) {
  const int workers = max_threads > 1 ? max_threads - 1 : 0;
  workers_.reserve(static_cast<std::size_t>(workers));
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this, i] { worker_loop(i + 1); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true, std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  generation_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::run_erased(int n, Thunk thunk, void* ctx) {
  if (n <= 1 || workers_.empty()) {
    for (int t = 0; t < n; ++t) thunk(ctx, t);
    return;
  }
  std::unique_lock lock(busy_, std::try_to_lock);
  if (!lock.owns_lock() || n > max_threads()) {
    for (int t = 0; t < n; ++t) thunk(ctx, t);
    return;
  }
  thunk_ = thunk;
  ctx_ = ctx;
  job_threads_ = n;
  // Every worker reports, also those without a task this time, so none can still be reading
  // the job fields when the next job overwrites them. Plans use either one thread or all of
  // the pool, so idle workers are rare.
  pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  thunk(ctx, 0);
  // Join: spin, then sleep until the last worker reports.
  const auto until = std::chrono::steady_clock::now() + spin_;
  int left;
  while ((left = pending_.load(std::memory_order_acquire)) != 0) {
    if (std::chrono::steady_clock::now() < until) {
      ADAPTCORE_PAUSE();
    } else {
      pending_.wait(left, std::memory_order_acquire);
    }
  }
}

void ThreadPool::worker_loop(int tid) {
  // Jobs are numbered from 1; a worker that starts late must still see the first one.
  std::uint32_t seen = 0;
  for (;;) {
    // Wait for a new generation: spin first, then sleep.
    std::uint32_t g;
    const auto until = std::chrono::steady_clock::now() + spin_;
    int polls = 0;
    while ((g = generation_.load(std::memory_order_acquire)) == seen) {
      if ((++polls < 64 && spin_.count() > 0) || std::chrono::steady_clock::now() < until) {
        ADAPTCORE_PAUSE();
      } else {
        generation_.wait(seen, std::memory_order_acquire);
      }
    }
    seen = g;
    if (stop_.load(std::memory_order_acquire)) return;
    if (tid < job_threads_) thunk_(ctx_, tid);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
  }
}

}  // namespace adaptcore
