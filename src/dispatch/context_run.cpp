// The one call path of every problem type: ContextImpl::run (key, plan from the cache or the
// planner, execution on the context's pool) and ContextImpl::explain / plan_for. What differs
// per problem type is a handful of overloads at the top of this file, not three call paths.
#include "core/exception_status.hpp"
#include "core/post_ops.hpp"
#include "dispatch/call_log.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/planning.hpp"
#include "exec/executor.hpp"
#include "exec/executor_lowp.hpp"
#include "exec/executor_small.hpp"
#include "exec/executor_wq.hpp"
#include "exec/post_op_pass.hpp"
#include "kernels/registry.hpp"

namespace adaptcore::detail {
namespace {

// Calls that need no product: true when the call is complete.
bool finish_trivial(const GemmProblem& p, const ContextImpl& ctx,
                    const ContextImpl::Config& cfg) noexcept {
  if (p.m == 0 || p.n == 0) return true;
  if (p.k == 0 || p.alpha == 0.0f) {
    scale_c(p, ctx.kernels(cfg));  // C = post(beta C), on the call's path
    return true;
  }
  return false;
}
bool finish_trivial(const LowpProblem& p, const ContextImpl&, const ContextImpl::Config&) noexcept {
  const bool post = p.post != nullptr && !p.post->empty();
  PostPass pass{.c = p.c,
                .element = p.dtype() == DType::U8S8 ? CElement::S32
                           : p.bf16_out()           ? CElement::Bf16
                                                    : CElement::F32,
                .ldc = p.ldc,
                .m = p.m,
                .n = p.n,
                .front = true};
  if (post && p.bf16_out() && lowp_needs_no_product(p)) {
    // C = round(post(beta C)), rounded once: the pass reads beta C in fp32.
    pass.scale = p.beta;
    run_post_pass(*p.post, pass);
    return true;
  }
  if (!lowp_trivial(p)) return false;
  if (post) run_post_pass(*p.post, pass);  // C = post(beta C), or the output of an int32 C
  return true;
}
bool finish_trivial(const WqProblem& p, const ContextImpl&, const ContextImpl::Config&) noexcept {
  return p.m == 0;
}

// Where a problem's A and B lie (the residency of a call, ContextImpl::cold_call).
const void* operand_a(const GemmProblem& p) noexcept { return p.a; }
const void* operand_b(const GemmProblem& p) noexcept { return p.b; }
const void* operand_a(const LowpProblem& p) noexcept { return p.a.ptr; }
const void* operand_b(const LowpProblem& p) noexcept { return p.b.ptr; }
const void* operand_a(const WqProblem& p) noexcept { return p.a; }
const void* operand_b(const WqProblem& p) noexcept { return p.w; }

// The kernel table a key's plan runs with, on the call's configuration (null: the path has
// none; never for a planned key).
const kernels::IsaKernels* call_kernels(const ContextImpl::Config&, const GemmProblem&,
                                        const ShapeKey& key) noexcept {
  return kernels::kernels_for(key.isa);
}
const kernels::LowpKernels* call_kernels(const ContextImpl::Config& cfg, const LowpProblem&,
                                         const ShapeKey& key) noexcept {
  return ContextImpl::lowp_kernels(cfg, key.dtype);
}
const kernels::WqKernels* call_kernels(const ContextImpl::Config& cfg, const WqProblem&,
                                       const ShapeKey&) noexcept {
  return &ContextImpl::wq_kernels(cfg);
}

// The small-problem path (exec/executor_small.hpp: fp32 plans that run on the calling thread
// with no pool and no workspace), reported to the caller (the tiny-call table's payload); the
// other types always go through their executor.
bool execute_inline(const Plan& plan, const GemmProblem& p, const kernels::IsaKernels& ks,
                    ContextImpl::SmallRun* small) noexcept {
  const std::optional<SmallPlan> sp = small_plan(plan, p, ks);
  if (!sp) return false;
  if (small != nullptr) small->payload = sp->encode();
  run_small(*sp, p, ks);
  return true;
}
template <class Problem, class Kernels>
bool execute_inline(const Plan&, const Problem&, const Kernels&, ContextImpl::SmallRun*) noexcept {
  return false;
}

}  // namespace

template <class Problem>
Status ContextImpl::run(const Problem& prob, const Config& cfg, SmallRun* small,
                        Residency residency) noexcept {
  if (finish_trivial(prob, *this, cfg)) return Status::Ok;
  try {
    const CallLog log(verbose_);
    // The caller's reading() section, in which it took cfg, covers the profile and the cache.
    const bool cold = cold_call(operand_a(prob), operand_b(prob), prob.c, cfg.residency, residency);
    remember_call(operand_a(prob), operand_b(prob), prob.c);
    if (small != nullptr) {
      small->cold = cold;
      small->isa = cfg.isa;
      small->threads = cfg.threads;
      small->hw = cfg.hw;
    }
    const ShapeKey key = key_for(prob, cfg, cold);
    const auto* ks = call_kernels(cfg, prob, key);
    if (ks == nullptr) return Status::InternalError;
    const Plan* cached = cache_.find(key);
    if (cached != nullptr && execute_inline(*cached, prob, *ks, small)) {
      log.done(key, *cached, true, "serial", Status::Ok);
      return Status::Ok;
    }
    const Plan plan = cached != nullptr ? *cached : plan_for(key, cfg);
    if (cached == nullptr && execute_inline(plan, prob, *ks, small)) {
      log.done(key, plan, false, "serial", Status::Ok);
      return Status::Ok;
    }
    const Status s = execute(plan, prob, *ks, pool_for(plan.threads()));
    log.done(key, plan, cached != nullptr, pool_.runner(plan.threads()), s);
    return s;
  } catch (...) {
    return exception_status(nullptr);
  }
}

template Status ContextImpl::run(const GemmProblem&, const Config&, SmallRun*, Residency) noexcept;
template Status ContextImpl::run(const LowpProblem&, const Config&, SmallRun*, Residency) noexcept;
template Status ContextImpl::run(const WqProblem&, const Config&, SmallRun*, Residency) noexcept;

Explanation ContextImpl::explain(const ShapeKey& key) const { return explain_key(key, hardware()); }

Plan ContextImpl::plan_for(const ShapeKey& key, const Config& cfg) {
  if (const Plan* p = cache_.find(key)) return *p;
  const Explanation e = explain_key(key, *cfg.hw);
  const Plan plan = e.candidates.at(e.chosen).plan;
  cache_plan(key, plan, cfg);
  return plan;
}

void ContextImpl::cache_small_call(std::uint64_t word, std::uint8_t payload,
                                   const HardwareProfile* hw) {
  // No lock, unlike cache_plan: a payload indexes the fp32 table of its word's ISA, which does
  // not depend on the profile, so one that slips in after a profile change still runs right
  // (it is only the old profile's choice). The check keeps that window to a few instructions.
  if (hw_.load(std::memory_order_acquire) == hw) small_calls_.insert(word, payload);
}

bool ContextImpl::cache_plan(const ShapeKey& key, const Plan& plan, const Config& cfg) {
  // A new profile clears the cache under config_: a plan of the old one (chosen against its
  // kernel tables) must not be inserted after that clear.
  std::lock_guard lock(config_);
  return hw_.load(std::memory_order_relaxed) == cfg.hw && cache_.insert(key, plan) != nullptr;
}

}  // namespace adaptcore::detail
