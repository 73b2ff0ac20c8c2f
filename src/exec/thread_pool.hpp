// The fork/join runner of every parallel GEMM section.
//
// Inside a process with an OpenMP runtime (a framework such as PyTorch), sections run as the
// host's own parallel regions (host_openmp.hpp): the host's idle threads, which spin between
// its operators, do the work instead of fighting a second team for the cores. Elsewhere a
// persistent pool of workers runs them: created when the pool is sized, never per call, waiting
// between calls by spinning briefly and then sleeping on a futex. The calling thread runs task
// 0 itself.
//
// The pool is one object for the life of its owner: resizing starts or stops workers in place
// (nothing is left behind), a thread the system refuses is reported as a status with the pool
// unchanged, and fork() is safe (fork_guard.hpp): a fork waits for a call in flight, and the
// child starts its workers again on its first parallel call.
#pragma once

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

#include "adaptcore/types.hpp"
#include "exec/fork_guard.hpp"

namespace adaptcore {

struct HostOpenMP;

// Where parallel sections run.
enum class Threading : int {
  Auto = 0,    // the host's OpenMP team when the process has an OpenMP runtime, else the pool
  Pool = 1,    // always adaptcore's own workers
  OpenMP = 2,  // the host's OpenMP team (the pool when no runtime is loaded)
};
bool parse_threading(const char* text, Threading& out) noexcept;
const char* to_string(Threading t) noexcept;

class ThreadPool final : public ForkAware {
 public:
  // Starts max_threads - 1 workers, or as many as the system allows (see max_threads()).
  explicit ThreadPool(int max_threads = 1) noexcept;
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Workers for `threads` participants (the caller included): starts or stops workers. Waits
  // for a call in flight. OutOfMemory, with the pool unchanged, when a thread cannot be made.
  Status resize(int threads) noexcept;
  // Participants available now: workers + the caller.
  int max_threads() const noexcept { return live_.load(std::memory_order_acquire) + 1; }

  // The CPUs the pool's threads may run on (its owner's count of the affinity mask and the
  // cgroup quota, hw/usable_cpus.hpp): with more participants than CPUs a spinning thread would
  // hold the CPU the thread it waits for needs, so they sleep at once instead. Takes effect at
  // the next resize. Until set: the machine's CPUs.
  void set_cpus(int cpus) noexcept { cpus_.store(cpus > 0 ? cpus : 1, std::memory_order_relaxed); }
  // Whether waiters spin before sleeping (the last resize's decision).
  bool spins() const noexcept { return spin_ns_.load(std::memory_order_relaxed) > 0; }

  void set_threading(Threading t) noexcept { threading_.store(t, std::memory_order_relaxed); }
  Threading threading() const noexcept { return threading_.load(std::memory_order_relaxed); }

  // True when parallel sections go to the host's OpenMP team (Threading and a loaded runtime).
  bool on_host_openmp() const noexcept;
  // Where a call of n tasks runs: "serial", "openmp" or "pool" (for logs).
  const char* runner(int n) const noexcept;

  // Runs fn(tid) for tid in [0, n) and returns when all finished. On the pool: if it is busy
  // (another thread's call, or a nested call from a task) or n > max_threads(), the caller runs
  // every tid itself in order; the result is the same because work is partitioned by tid.
  // work_us, the job's time on one core: when the workers sleep, a job that is faster on the
  // caller than split after waking them (wake_us()) runs on the caller, and wakes them for the
  // next one.
  template <class F>
  void run(int n, F&& fn, double work_us = kLongJob) {
    auto thunk = [](void* ctx, int tid) { (*static_cast<std::remove_reference_t<F>*>(ctx))(tid); };
    run_erased(n, thunk, static_cast<void*>(&fn), work_us);
  }
  static constexpr double kLongJob = 1e300;
  // Waking a worker from its futex costs tens of microseconds on a bare host and up to
  // milliseconds in a virtual machine, where the hypervisor must reschedule the halted vCPU
  // (2 ms on a 2-vCPU KVM guest; docs/RUNTIME.md, "Threads"). Until the pool has seen a wake
  // of its own, it assumes this.
  static constexpr double kWakeUsUnmeasured = 50.0;
  // Shorter samples are not wakes from a sleep (see wake_us()).
  static constexpr double kMinWakeSampleUs = 1.0;

  void before_fork() noexcept override;
  void after_fork_parent() noexcept override;
  void after_fork_child() noexcept override;

 private:
  using Thunk = void (*)(void*, int);
  struct Worker {
    ThreadPool* pool = nullptr;
    int tid = 0;
    std::uint32_t start_generation = 0;
    std::atomic<bool> stop{false};
    pthread_t thread{};
  };

  void run_erased(int n, Thunk thunk, void* ctx, double work_us);
  // Whether the workers were last seen longer ago than they spin: asleep on the futex.
  bool workers_asleep(std::int64_t now_ns) const noexcept;
  // The latency of waking a sleeping worker, as this pool measured it (with busy_ held).
  double wake_us() noexcept;
  // With busy_ held: wakes sleeping workers without a job and without waiting for them.
  void wake_workers() noexcept;
  // With busy_ held: waits until every worker answered the last job or wake (pending_ == 0).
  void await_answers() noexcept;
  // The host's OpenMP runtime when sections go to its team (Threading and a loaded runtime).
  const HostOpenMP* host_team() const noexcept;
  void run_on_host_openmp(const HostOpenMP* rt, int n, Thunk thunk, void* ctx);
  // With busy_ held: start workers up to `threads` participants; false if one could not be
  // started (those started stay).
  bool grow_locked(int threads) noexcept;
  // With busy_ held: stops and joins the workers of tid >= threads.
  void shrink_locked(int threads) noexcept;
  void publish_and_join(int pending) noexcept;
  static void* worker_main(void* arg) noexcept;
  void worker_loop(Worker& w) noexcept;

  std::chrono::nanoseconds spin() const noexcept {
    return std::chrono::nanoseconds(spin_ns_.load(std::memory_order_relaxed));
  }

  std::atomic<std::int64_t> spin_ns_{0};          // how long waiters spin before sleeping
  std::atomic<int> cpus_{0};                      // set_cpus; 0: hardware_concurrency
  std::vector<std::unique_ptr<Worker>> workers_;  // tid 1.., changed only with busy_ held
  std::atomic<int> live_{0};
  int target_ = 1;  // participants asked for by resize(); the child of a fork starts them again
  std::atomic<Threading> threading_{Threading::Auto};
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
  // When the last job ended (steady clock, ns): the workers spin until spin() after it.
  std::atomic<std::int64_t> idle_since_ns_{0};
  // Wake latency: when a worker last returned from its futex, and (with busy_ held) when the
  // wake being sampled was sent (0: none) and the running estimate (0: none yet).
  std::atomic<std::int64_t> woke_ns_{0};
  std::int64_t woke_at_ns_ = 0;
  double wake_us_ = 0.0;
};

}  // namespace adaptcore
