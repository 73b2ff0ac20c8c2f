// The weight-quantized side of ContextImpl: kernel choice, planning through the shared plan
// cache (keys carry the W* dtype, the weight group and the activation type), and execution on
// the context's pool.
#include "core/exception_status.hpp"
#include "dispatch/call_log.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/kernel_select.hpp"
#include "exec/executor_wq.hpp"
#include "plan/wq_planner.hpp"

namespace adaptcore::detail {

const kernels::WqKernels& ContextImpl::wq_kernels() const noexcept {
  return wq_kernels_for(hardware(), isa());
}

ShapeKey ContextImpl::key_for(const WqProblem& prob) const noexcept {
  return make_wq_key(prob, isa(), threads());
}

Explanation ContextImpl::explain_wq(const ShapeKey& key) const {
  return explain_wq_plan(key, hardware(), wq_kernels());
}

Plan ContextImpl::wq_plan_for(const ShapeKey& key) {
  if (const Plan* p = cache_.find(key)) return *p;
  const Plan plan = make_wq_plan(key, hardware(), wq_kernels());
  cache_.insert(key, plan);
  return plan;
}

Status ContextImpl::run_wq(const WqProblem& prob) noexcept {
  if (prob.m == 0) return Status::Ok;
  try {
    const CallLog log(verbose());
    const auto section = reading();
    const ShapeKey key = key_for(prob);
    const kernels::WqKernels& ks = wq_kernels();
    const Plan* cached = cache_.find(key);
    const Plan plan = cached != nullptr ? *cached : wq_plan_for(key);
    const Status s = execute_wq(plan, prob, ks, pool_for(plan.threads()));
    log.done(key, plan, cached != nullptr, pool_.runner(plan.threads()), s);
    return s;
  } catch (...) {
    return exception_status(nullptr);
  }
}

}  // namespace adaptcore::detail
