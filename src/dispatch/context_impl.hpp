// The state behind adaptcore::Context: hardware profile, active ISA, thread count, plan cache
// and thread pool. Configuration changes are rare and take a mutex; the GEMM hot path reads
// only atomics and the lock-free plan cache, inside a Reclaimer section so that what a
// configuration change replaces is freed only once no call can still read it.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "core/lowp_problem.hpp"
#include "core/problem.hpp"
#include "core/shape_key.hpp"
#include "core/wq_problem.hpp"
#include "dispatch/call_config.hpp"
#include "dispatch/kernel_select.hpp"
#include "dispatch/plan_cache.hpp"
#include "dispatch/reclaimer.hpp"
#include "dispatch/small_call_table.hpp"
#include "exec/fork_guard.hpp"
#include "exec/thread_pool.hpp"
#include "kernels/lowp.hpp"
#include "kernels/ukernel.hpp"
#include "kernels/wq.hpp"
#include "planner/planner.hpp"

namespace adaptcore::detail {

class ContextImpl final : public ForkAware {
 public:
  explicit ContextImpl(const ContextOptions& options);
  ~ContextImpl();
  ContextImpl(const ContextImpl&) = delete;
  ContextImpl& operator=(const ContextImpl&) = delete;

  // An explicit count (1..kMaxThreads) fixes the threads of every call. Without one (the
  // default), calls use the host's OpenMP thread count when the process has an OpenMP runtime
  // (omp_get_max_threads; 1 inside a host parallel region), else the profile's cores.
  Status set_threads(int threads) noexcept;
  int threads() const noexcept {
    if (threads_explicit_.load(std::memory_order_relaxed))
      return threads_.load(std::memory_order_relaxed);
    return threads_implicit();
  }
  Status set_isa(Isa isa) noexcept;
  Isa isa() const noexcept { return isa_.load(std::memory_order_relaxed); }
  // The profile in use. A reference stays valid until the profile is replaced on this context
  // (load_profile), and for the whole of any call in flight.
  const HardwareProfile& hardware() const noexcept { return *hw_.load(std::memory_order_acquire); }
  Status load_profile(const std::string& path, std::string* error) noexcept;
  void clear_plan_cache() noexcept;

  // A GEMM call or any other reader of the profile and plan cache holds one of these.
  Reclaimer::Section reading() noexcept { return Reclaimer::Section(); }

  // A call's snapshot of the configuration (call_config.hpp), taken inside its reading().
  using Config = CallConfig;
  Config config() const noexcept { return {&hardware(), isa(), threads(), residency()}; }

  // The whole call of any problem type (fp32, bf16/int8, weight-quantized), written once
  // (context_run.cpp): the key, the plan from the cache (or the planner on a miss), execution
  // with the kernels the key names. When an fp32 call ran on the small-problem path and
  // `small` is given, it receives the SmallPlan's byte (the tiny-call table's payload) and the
  // key's residency.
  struct SmallRun {
    std::uint8_t payload = 0;
    bool cold = false;
    // The configuration the call ran on (its snapshot's), which the payload is for.
    Isa isa = Isa::Generic;
    int threads = 1;
    const HardwareProfile* hw = nullptr;
  };
  // `residency` is the call's own setting (CallOptions); Auto defers to the context's. The
  // configuration is the caller's snapshot when it checked the call against it (a prepacked
  // handle against the ISA path), taken inside a reading() section the caller still holds;
  // else the second form takes both.
  template <class Problem>
  Status run(const Problem& prob, const Config& cfg, SmallRun* small = nullptr,
             Residency residency = Residency::Auto) noexcept;
  template <class Problem>
  Status run(const Problem& prob, SmallRun* small = nullptr,
             Residency residency = Residency::Auto) noexcept {
    const auto section = reading();
    return run(prob, config(), small, residency);
  }

  // The key this context would use for a problem of any type, for operands in memory (cold)
  // or where they fit.
  template <class Problem>
  ShapeKey key_for(const Problem& prob, const Config& cfg, bool cold = false) const noexcept {
    ShapeKey key = make_key(prob, cfg.isa, cfg.threads);
    key.cold = cold;
    return key;
  }
  template <class Problem>
  ShapeKey key_for(const Problem& prob, bool cold = false) const noexcept {
    return key_for(prob, config(), cold);
  }

  // A Residency value the library knows (set_residency and the per-call CallOptions check it).
  static bool valid_residency(Residency r) noexcept {
    return r == Residency::Auto || r == Residency::Cached || r == Residency::Memory;
  }
  Status set_residency(Residency r) noexcept;
  Residency residency() const noexcept { return residency_.load(std::memory_order_relaxed); }
  // Whether a call on these operands finds them in memory (ShapeKey::cold): the call's own
  // residency, else the context's setting, or under Auto, whether they differ from the
  // previous call's on this thread. remember_call records a call's operands for the next one.
  bool cold_call(const void* a, const void* b, const void* c,
                 Residency call = Residency::Auto) const noexcept {
    return cold_call(a, b, c, residency(), call);
  }
  // The same with the context's residency from a call's snapshot.
  static bool cold_call(const void* a, const void* b, const void* c, Residency r,
                        Residency call) noexcept {
    if (call != Residency::Auto) return call == Residency::Memory;
    if (r != Residency::Auto) return r == Residency::Memory;
    const LastCall& l = last_call();
    return l.a != a || l.b != b || l.c != c;
  }
  static void remember_call(const void* a, const void* b, const void* c) noexcept {
    last_call() = LastCall{a, b, c};  // whatever this context's setting: the caches are shared
  }
  // The planner's reasoning for a key of any dtype (planning.hpp: the implementation that
  // applies), and the plan through the cache. A plan made for a profile that was replaced while
  // it was planned is used by its call but not cached (the cache holds the new profile's).
  Explanation explain(const ShapeKey& key) const;
  Plan plan_for(const ShapeKey& key, const Config& cfg);
  Plan plan_for(const ShapeKey& key) { return plan_for(key, config()); }
  // Inserts a plan made for cfg's profile into the cache; false when the profile was replaced
  // since (the plan may not suit the new one's kernels) or the cache is full.
  bool cache_plan(const ShapeKey& key, const Plan& plan, const Config& cfg);
  // Files a tiny call's word and payload (dispatch/small_call.hpp), planned on profile hw,
  // unless that profile was replaced since.
  void cache_small_call(std::uint64_t word, std::uint8_t payload, const HardwareProfile* hw);

  // The kernels the executors run (kernel_select.hpp): what this context's profile and CPU
  // allow on a path, the same tables the planner and the plan-file check use.
  const kernels::IsaKernels& kernels(const Config& cfg) const noexcept;  // fp32, cfg's path
  const kernels::IsaKernels& kernels() const noexcept { return kernels(config()); }
  // The fp32 table of an ISA given as its number, as a packed tiny-call word holds it (0..15;
  // null for none): kernels::kernels_for looked up once, for kernels() and the tiny-call path.
  const kernels::IsaKernels* kernels_of_isa_bits(std::uint64_t isa_bits) const noexcept {
    return fp32_kernels_[isa_bits & 15];
  }
  // The level whose fp32 table a level runs (its own, or the one below it registering it): what
  // a tiny-call word holds, so that every level over one fp32 table fits its two ISA bits.
  Isa tiny_isa(Isa level) const noexcept {
    const kernels::IsaKernels* ks = kernels_of_isa_bits(static_cast<std::uint64_t>(level));
    return ks != nullptr ? ks->isa : Isa::Auto;
  }
  static const kernels::LowpKernels* lowp_kernels(const Config& cfg, DType dtype) noexcept {
    return lowp_kernels_for(*cfg.hw, dtype, cfg.isa);
  }
  static const kernels::WqKernels& wq_kernels(const Config& cfg) noexcept {
    return wq_kernels_for(*cfg.hw, cfg.isa);
  }
  // The same on the profile in use now, for a path given by the caller (tools, explain).
  const kernels::LowpKernels* lowp_kernels(DType dtype, Isa isa) const noexcept {
    return lowp_kernels_for(hardware(), dtype, isa);
  }
  const kernels::WqKernels& wq_kernels(Isa isa) const noexcept {
    return wq_kernels_for(hardware(), isa);
  }

  PlanCache& cache() noexcept { return cache_; }
  // The tiny-call table (dispatch/small_call.hpp).
  SmallCallTable& small_calls() noexcept { return small_calls_; }
  ThreadPool& pool() noexcept { return pool_; }
  bool verbose() const noexcept { return verbose_; }
  Status init_status = Status::Ok;
  std::string init_message;

  void before_fork() noexcept override;
  void after_fork_parent() noexcept override;
  void after_fork_child() noexcept override;

 private:
  // The pool, sized for a plan's threads when it will run the call (not when the host's
  // OpenMP team does).
  ThreadPool& pool_for(int threads) noexcept;
  // The operands of this thread's previous call (on any context: the caches are shared).
  struct LastCall {
    const void* a = nullptr;
    const void* b = nullptr;
    const void* c = nullptr;
  };
  static LastCall& last_call() noexcept {
    thread_local LastCall last;
    return last;
  }
  int threads_implicit() const noexcept;
  // With config_ held: drops every plan; the old ones are freed once no call can read them.
  void clear_plans_locked();

  std::atomic<const HardwareProfile*> hw_;
  std::unique_ptr<const HardwareProfile> profile_;  // what hw_ points to
  std::atomic<int> threads_{1};
  std::atomic<bool> threads_explicit_{false};
  std::atomic<Isa> isa_{Isa::Generic};
  std::array<const kernels::IsaKernels*, 16> fp32_kernels_{};  // kernels_for(Isa(i))
  std::atomic<Residency> residency_{Residency::Auto};
  bool verbose_ = false;
  PlanCache cache_;
  SmallCallTable small_calls_;
  ThreadPool pool_;
  std::mutex config_;
  Reclaimer reclaimer_;  // under config_
};

}  // namespace adaptcore::detail
