// The low-precision side of ContextImpl: kernel choice per dtype, planning through the shared
// plan cache (keys carry the dtype), and execution on the context's pool.
#include "core/exception_status.hpp"
#include "dispatch/call_log.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/kernel_select.hpp"
#include "exec/executor_lowp.hpp"
#include "plan/lowp_planner.hpp"

namespace adaptcore::detail {

const kernels::LowpKernels* ContextImpl::lowp_kernels(DType dtype, Isa isa) const noexcept {
  return lowp_kernels_for(hardware(), dtype, isa);
}

ShapeKey ContextImpl::key_for(const LowpProblem& prob) const noexcept {
  return make_lowp_key(prob, isa(), threads());
}

Explanation ContextImpl::explain_lowp(const ShapeKey& key) const {
  return explain_lowp_plan(key, hardware(), *lowp_kernels(key.dtype, key.isa));
}

Plan ContextImpl::lowp_plan_for(const ShapeKey& key) {
  if (const Plan* p = cache_.find(key)) return *p;
  const Plan plan = make_lowp_plan(key, hardware(), *lowp_kernels(key.dtype, key.isa));
  cache_.insert(key, plan);
  return plan;
}

Status ContextImpl::run_lowp(const LowpProblem& prob) noexcept {
  if (lowp_trivial(prob)) return Status::Ok;
  try {
    const CallLog log(verbose());
    const auto section = reading();
    const ShapeKey key = key_for(prob);
    const kernels::LowpKernels* ks = lowp_kernels(key.dtype, key.isa);
    if (ks == nullptr) return Status::InternalError;
    const Plan* cached = cache_.find(key);
    const Plan plan = cached != nullptr ? *cached : lowp_plan_for(key);
    const Status s = execute_lowp(plan, prob, *ks, pool_for(plan.threads()));
    log.done(key, plan, cached != nullptr, pool_.runner(plan.threads()), s);
    return s;
  } catch (...) {
    return exception_status(nullptr);
  }
}

}  // namespace adaptcore::detail
