// Public weight-quantized GEMM entry points: validate, then hand over to the context.
#include "adaptcore/adaptcore.hpp"
#include "core/wq_problem.hpp"
#include "dispatch/context_impl.hpp"

namespace adaptcore {
namespace {

Status run(Context& ctx, Layout layout, Trans transa, int64_t m, const void* a, bool bf16,
           int64_t lda, const QuantizedWeights& w, float beta, float* c, int64_t ldc,
           ActivationParts parts) noexcept {
  WqProblem prob;
  const Status s = make_wq_problem(layout, transa, m, a, bf16, lda, w, beta, c, ldc, parts, prob);
  if (s != Status::Ok) return s;
  if (!ctx.usable()) return Status::OutOfMemory;
  return ctx.impl().run_wq(prob);
}

}  // namespace

Status gemm_quantized(Context& ctx, Layout layout, Trans transa, int64_t m, const float* a,
                      int64_t lda, const QuantizedWeights& w, float beta, float* c, int64_t ldc,
                      ActivationParts parts) noexcept {
  return run(ctx, layout, transa, m, a, false, lda, w, beta, c, ldc, parts);
}

Status gemm_quantized(Context& ctx, Layout layout, Trans transa, int64_t m,
                      const std::uint16_t* a, int64_t lda, const QuantizedWeights& w, float beta,
                      float* c, int64_t ldc, ActivationParts parts) noexcept {
  return run(ctx, layout, transa, m, a, true, lda, w, beta, c, ldc, parts);
}

}  // namespace adaptcore
