// Public weight-quantized GEMM entry points: validate, then hand over to the context.
#include "adaptcore/adaptcore.hpp"
#include "core/wq_problem.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/internal_access.hpp"

namespace adaptcore {
namespace {

Status run(Layout layout, Trans transa, int64_t m, const void* a, bool a_is_bf16, int64_t lda,
           const QuantizedWeights& w, float beta, float* c, int64_t ldc, ActivationParts parts,
           Context& ctx) noexcept {
  WqProblem prob;
  const Status s =
      make_wq_problem(layout, transa, m, a, a_is_bf16, lda, w, beta, c, ldc, parts, prob);
  if (s != Status::Ok) return s;
  if (!ctx.usable()) return Status::OutOfMemory;
  return detail::impl_of(ctx).run(prob);
}

}  // namespace

Status gemm_quantized(Layout layout, Trans transa, int64_t m, const float* a, int64_t lda,
                      const QuantizedWeights& w, float beta, float* c, int64_t ldc,
                      ActivationParts parts, Context& ctx) noexcept {
  return run(layout, transa, m, a, false, lda, w, beta, c, ldc, parts, ctx);
}

Status gemm_quantized(Layout layout, Trans transa, int64_t m, const bf16* a, int64_t lda,
                      const QuantizedWeights& w, float beta, float* c, int64_t ldc,
                      ActivationParts parts, Context& ctx) noexcept {
  return run(layout, transa, m, a, true, lda, w, beta, c, ldc, parts, ctx);
}

}  // namespace adaptcore
