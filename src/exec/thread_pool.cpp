#include "exec/thread_pool.hpp"

#include "core/env_value.hpp"

#include <signal.h>

#include <cstring>
#include <thread>

#include "exec/host_openmp.hpp"

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
// halted vCPU: hundreds of microseconds against about one for a spinning worker
// (docs/RUNTIME.md, "Threads: the host's OpenMP team, or a pool of our own").
constexpr auto kSpin = std::chrono::microseconds(1000);

std::int64_t steady_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Spins until `ready()` or the deadline, then sleeps on `word` while it still equals `old`.
// Woken without `ready()` (ThreadPool::run_erased wakes sleeping workers ahead of a job), it
// spins again for as long. `woke_ns`, if given, records when it last returned from a sleep.
template <class T, class Ready>
void spin_then_wait(std::atomic<T>& word, T old, std::chrono::nanoseconds spin, Ready ready,
                    std::atomic<std::int64_t>* woke_ns = nullptr) {
  auto until = std::chrono::steady_clock::now() + spin;
  int polls = 0;
  while (!ready()) {
    if ((++polls < 64 && spin.count() > 0) || std::chrono::steady_clock::now() < until) {
      ADAPTCORE_PAUSE();
    } else {
      word.wait(old, std::memory_order_acquire);
      old = word.load(std::memory_order_acquire);
      until = std::chrono::steady_clock::now() + spin;
      if (woke_ns != nullptr) woke_ns->store(steady_ns(), std::memory_order_relaxed);
    }
  }
}
}  // namespace

bool parse_threading(const char* text, Threading& out) noexcept {
  if (text == nullptr) return false;
  try {
    const std::string w = env_word(text);
    if (w == "auto")
      out = Threading::Auto;
    else if (w == "pool")
      out = Threading::Pool;
    else if (w == "openmp" || w == "omp")
      out = Threading::OpenMP;
    else
      return false;
    return true;
  } catch (...) {
    return false;
  }
}

const char* to_string(Threading t) noexcept {
  switch (t) {
    case Threading::Auto: return "auto";
    case Threading::Pool: return "pool";
    case Threading::OpenMP: return "openmp";
  }
  return "unknown";
}

ThreadPool::ThreadPool(int max_threads) noexcept {
  register_for_fork(this, Order::Pool);
  resize(max_threads);
}

ThreadPool::~ThreadPool() {
  unregister_for_fork(this, Order::Pool);
  std::lock_guard lock(busy_);
  shrink_locked(1);
}

Status ThreadPool::resize(int threads) noexcept {
  if (threads < 1) return Status::InvalidArgument;
  std::lock_guard lock(busy_);
  const int before = max_threads();
  if (threads < before) {
    shrink_locked(threads);
  } else if (!grow_locked(threads)) {
    shrink_locked(before);
    return Status::OutOfMemory;
  }
  target_ = threads;
  // More threads than CPUs: a spinning thread would hold the CPU that the thread it waits for
  // needs, so everyone sleeps at once instead.
  const int cpus = cpus_.load(std::memory_order_relaxed);
  const bool spin =
      threads <= (cpus > 0 ? cpus : static_cast<int>(std::thread::hardware_concurrency()));
  spin_ns_.store(spin ? std::chrono::nanoseconds(kSpin).count() : 0, std::memory_order_relaxed);
  return Status::Ok;
}

bool ThreadPool::grow_locked(int threads) noexcept {
  // Workers take no signals: a host's handlers run on its own threads.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  bool ok = true;
  try {
    workers_.reserve(static_cast<std::size_t>(threads > 1 ? threads - 1 : 0));
    while (static_cast<int>(workers_.size()) + 1 < threads) {
      auto w = std::make_unique<Worker>();
      w->pool = this;
      w->tid = static_cast<int>(workers_.size()) + 1;
      w->start_generation = generation_.load(std::memory_order_relaxed);
      if (pthread_create(&w->thread, nullptr, &ThreadPool::worker_main, w.get()) != 0) {
        ok = false;
        break;
      }
      workers_.push_back(std::move(w));
      live_.store(static_cast<int>(workers_.size()), std::memory_order_release);
    }
  } catch (...) {  // the reserve or a Worker allocation
    ok = false;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return ok;
}

void ThreadPool::shrink_locked(int threads) noexcept {
  const std::size_t keep = static_cast<std::size_t>(threads > 1 ? threads - 1 : 0);
  if (workers_.size() <= keep) return;
  // Answers to a wake sent ahead first: a worker told to stop leaves without answering, and
  // the job fields change below.
  await_answers();
  for (std::size_t i = keep; i < workers_.size(); ++i)
    workers_[i]->stop.store(true, std::memory_order_relaxed);
  // A job of no tasks: the stopping workers leave, the others report as after any job.
  job_threads_ = 0;
  publish_and_join(static_cast<int>(keep));
  for (std::size_t i = keep; i < workers_.size(); ++i) pthread_join(workers_[i]->thread, nullptr);
  workers_.resize(keep);
  live_.store(static_cast<int>(keep), std::memory_order_release);
}

void ThreadPool::await_answers() noexcept {
  if (int left = pending_.load(std::memory_order_acquire); left != 0)
    spin_then_wait(pending_, left, spin(),
                   [&] { return pending_.load(std::memory_order_acquire) == 0; });
}

void ThreadPool::publish_and_join(int pending) noexcept {
  pending_.store(pending, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  if (thunk_ != nullptr && job_threads_ > 0) thunk_(ctx_, 0);
  int left = pending_.load(std::memory_order_acquire);
  spin_then_wait(pending_, left, spin(),
                 [&] { return pending_.load(std::memory_order_acquire) == 0; });
}

const HostOpenMP* ThreadPool::host_team() const noexcept {
  return threading() != Threading::Pool ? host_openmp() : nullptr;
}

bool ThreadPool::on_host_openmp() const noexcept { return host_team() != nullptr; }

const char* ThreadPool::runner(int n) const noexcept {
  if (n <= 1) return "serial";
  return on_host_openmp() ? "openmp" : "pool";
}

void ThreadPool::run_on_host_openmp(const HostOpenMP* rt, int n, Thunk thunk, void* ctx) {
  struct Job {
    const HostOpenMP* rt;
    Thunk thunk;
    void* ctx;
    int n;
  } job{rt, thunk, ctx, n};
  // The team may be smaller than asked (nested regions, OMP_DYNAMIC, thread limits): each
  // member takes every team-size-th task, so every task runs exactly once either way.
  rt->parallel(
      [](void* p) {
        const Job& j = *static_cast<const Job*>(p);
        const int team = j.rt->num_threads();
        for (int t = j.rt->thread_num(); t < j.n; t += team) j.thunk(j.ctx, t);
      },
      &job, static_cast<unsigned>(n), 0);
}

bool ThreadPool::workers_asleep(std::int64_t now) const noexcept {
  // Half the spin window: a worker that began to spin late must still be spinning.
  return now - idle_since_ns_.load(std::memory_order_relaxed) >
         spin_ns_.load(std::memory_order_relaxed) / 2;
}

double ThreadPool::wake_us() noexcept {
  // A wake since the last one sampled: its latency (futex wake to the worker running) joins
  // the running estimate. Only the latest wake is seen; one sample per wake is plenty.
  const std::int64_t woke = woke_ns_.load(std::memory_order_relaxed);
  if (woke_at_ns_ > 0 && woke > woke_at_ns_) {
    // A worker that returns within a microsecond was not woken from a sleep: it had just
    // begun to wait as the job came (its futex wait returned at once). Such a sample once set
    // the estimate to 0.1 us, and a loaded machine's next short jobs then waited for
    // sleeping workers (ThreadPool.ShortJobsRunOnTheCallerWhileWorkersSleep under ctest -j2
    // with a build beside it).
    const double sample = static_cast<double>(woke - woke_at_ns_) * 1e-3;
    if (sample >= kMinWakeSampleUs)
      wake_us_ = wake_us_ <= 0.0 ? sample : 0.75 * wake_us_ + 0.25 * sample;
    woke_at_ns_ = 0;
  }
  return wake_us_ > 0.0 ? wake_us_ : kWakeUsUnmeasured;
}

void ThreadPool::run_erased(int n, Thunk thunk, void* ctx, double work_us) {
  if (n <= 1) {
    for (int t = 0; t < n; ++t) thunk(ctx, t);
    return;
  }
  if (const HostOpenMP* rt = host_team()) {
    run_on_host_openmp(rt, n, thunk, ctx);
    return;
  }
  std::unique_lock lock(busy_, std::try_to_lock);
  // After a fork the child's workers are gone: start them again (best effort).
  if (lock.owns_lock() && max_threads() < target_) grow_locked(target_);
  if (!lock.owns_lock() || n > max_threads()) {
    for (int t = 0; t < n; ++t) thunk(ctx, t);
    return;
  }
  const std::int64_t now = steady_ns();
  // A wake sent ahead that not every worker has answered: they are still on their way.
  const bool waking = pending_.load(std::memory_order_acquire) != 0;
  if (waking || workers_asleep(now)) {
    // Split over n, the job takes work / n after the wake; here, work. A job that is faster
    // here runs here, and sleeping workers are woken to spin (wake_workers returns before they
    // run), so that a later job of a loop finds them awake.
    const bool here = work_us * (1.0 - 1.0 / n) < wake_us();
    if (!waking && woke_at_ns_ == 0) woke_at_ns_ = now;  // sample the wake sent now
    if (here) {
      if (!waking) wake_workers();
      for (int t = 0; t < n; ++t) thunk(ctx, t);
      return;
    }
  }
  // A worker still answering a wake sent ahead reads the job fields: they change only after.
  await_answers();
  thunk_ = thunk;
  ctx_ = ctx;
  job_threads_ = n;
  // Every worker reports, also those without a task this time, so none can still be reading
  // the job fields when the next job overwrites them. Plans use either one thread or all of
  // the pool, so idle workers are rare.
  publish_and_join(static_cast<int>(workers_.size()));
  thunk_ = nullptr;
  idle_since_ns_.store(steady_ns(), std::memory_order_relaxed);
}

void ThreadPool::wake_workers() noexcept {
  // A job of no tasks that nobody waits for: each worker answers it and spins again; the next
  // job waits for the answers (publish_and_join) or, if short, runs on its caller meanwhile.
  thunk_ = nullptr;
  job_threads_ = 0;
  pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
}

void* ThreadPool::worker_main(void* arg) noexcept {
  Worker& w = *static_cast<Worker*>(arg);
  w.pool->worker_loop(w);
  return nullptr;
}

void ThreadPool::worker_loop(Worker& w) noexcept {
  std::uint32_t seen = w.start_generation;
  for (;;) {
    std::uint32_t g = seen;
    spin_then_wait(
        generation_, seen, spin(),
        [&] {
          g = generation_.load(std::memory_order_acquire);
          return g != seen;
        },
        &woke_ns_);
    seen = g;
    if (w.stop.load(std::memory_order_relaxed)) return;
    const bool wake_only = job_threads_ == 0;  // read before reporting: then the fields may change
    if (w.tid < job_threads_) thunk_(ctx_, w.tid);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      // The last answer to a wake sent ahead: the workers are awake from now.
      if (wake_only) idle_since_ns_.store(steady_ns(), std::memory_order_relaxed);
      pending_.notify_one();
    }
  }
}

void ThreadPool::before_fork() noexcept { busy_.lock(); }

void ThreadPool::after_fork_parent() noexcept { busy_.unlock(); }

void ThreadPool::after_fork_child() noexcept {
  // The workers do not exist here; their records go, their stacks stay mapped (a few pages of
  // address space per fork). run() starts target_ - 1 new ones when next needed.
  for (auto& w : workers_) w.reset();
  workers_.clear();
  live_.store(0, std::memory_order_release);
  pending_.store(0, std::memory_order_relaxed);
  busy_.unlock();
}

}  // namespace adaptcore
