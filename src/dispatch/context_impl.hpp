// The state behind adaptcore::Context: hardware profile, active ISA, thread count, plan cache
// and thread pool. Configuration changes are rare and take a mutex; the GEMM hot path reads
// only atomics and the lock-free plan cache.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "core/lowp_problem.hpp"
#include "core/problem.hpp"
#include "core/wq_problem.hpp"
#include "dispatch/plan_cache.hpp"
#include "exec/thread_pool.hpp"
#include "kernels/lowp.hpp"
#include "kernels/ukernel.hpp"
#include "kernels/wq.hpp"
#include "plan/planner.hpp"
#include "plan/shape_key.hpp"

namespace adaptcore::detail {

class ContextImpl {
 public:
  explicit ContextImpl(const ContextOptions& options);

  Status set_threads(int threads) noexcept;
  int threads() const noexcept { return threads_.load(std::memory_order_relaxed); }
  Status set_isa(Isa isa) noexcept;
  Isa isa() const noexcept { return isa_.load(std::memory_order_relaxed); }
  const HardwareProfile& hardware() const noexcept {
    return *hw_.load(std::memory_order_acquire);
  }
  Status load_profile(const std::string& path, std::string* error) noexcept;

  // The whole call: plan lookup (or planning on a miss) and execution.
  Status run(const GemmProblem& prob) noexcept;

  // The key this context would use for a problem, and the planner's reasoning for it.
  ShapeKey key_for(const GemmProblem& prob) const noexcept;
  Explanation explain(const ShapeKey& key) const;
  Plan plan_for(const ShapeKey& key);  // through the cache
  const kernels::IsaKernels& kernels() const noexcept;

  // Low precision (context_lowp.cpp): the same cache and pool, keys with a bf16/int8 dtype.
  Status run_lowp(const LowpProblem& prob) noexcept;
  ShapeKey key_for(const LowpProblem& prob) const noexcept;
  // The kernels a dtype runs with on a path (kernel_select.hpp: native where both the profile
  // and the CPU have the instructions); the planner, the executor and the plan-file check agree.
  const kernels::LowpKernels* lowp_kernels(DType dtype, Isa isa) const noexcept;
  Explanation explain_lowp(const ShapeKey& key) const;
  Plan lowp_plan_for(const ShapeKey& key);

  // Weight-quantized GEMM (context_wq.cpp): the same cache and pool, keys with a W* dtype.
  Status run_wq(const WqProblem& prob) noexcept;
  ShapeKey key_for(const WqProblem& prob) const noexcept;
  const kernels::WqKernels& wq_kernels() const noexcept;  // kernel_select.hpp: wq_kernels_for
  Explanation explain_wq(const ShapeKey& key) const;
  Plan wq_plan_for(const ShapeKey& key);

  PlanCache& cache() noexcept { return cache_; }
  Status init_status = Status::Ok;
  std::string init_message;

 private:
  ThreadPool& pool_for(int threads);

  std::atomic<const HardwareProfile*> hw_;
  std::atomic<int> threads_{1};
  std::atomic<Isa> isa_{Isa::Generic};
  PlanCache cache_;
  std::atomic<ThreadPool*> pool_{nullptr};
  std::mutex config_;
  // Owned, never freed before the context: a concurrent call may still use an older one.
  std::vector<std::unique_ptr<const HardwareProfile>> profiles_;
  std::vector<std::unique_ptr<ThreadPool>> pools_;
};

}  // namespace adaptcore::detail
