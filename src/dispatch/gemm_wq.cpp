// Public weight-quantized GEMM entry points: validate, then hand over to the context.
#include "adaptcore/adaptcore.hpp"
#include "core/operand_bytes.hpp"
#include "core/post_ops.hpp"
#include "core/wq_problem.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/internal_access.hpp"
#include "exec/post_op_pass.hpp"

namespace adaptcore {
namespace {

// Validation, then the call with its post-ops fused per finished row block (a SwiGlu along a
// column-major C's columns as a pass afterwards).
Status run(Layout layout, Trans transa, int64_t m, const void* a, bool a_is_bf16, int64_t lda,
           const QuantizedWeights& w, float beta, float* c, int64_t ldc, ActivationParts parts,
           const CallOptions& options, Context& ctx) noexcept {
  if (!detail::ContextImpl::valid_residency(options.residency)) return Status::InvalidArgument;
  WqProblem prob;
  Status s = make_wq_problem(layout, transa, m, a, a_is_bf16, lda, w, beta, c, ldc, parts, prob);
  if (s != Status::Ok) return s;
  const bool row = layout == Layout::RowMajor;
  const int64_t n = w.n();
  PostOpChain chain;
  const ByteOperand C = stored_operand(c, m, n, row, false, ldc, 4);
  const auto w_len = static_cast<int64_t>(prob.w->packed_size());
  const ByteOperand reads[2] = {ByteOperand{a, m, w.k(), prob.a_rs, prob.a_cs, a_is_bf16 ? 2 : 4},
                                ByteOperand{prob.w->packed.get(), 1, w_len, w_len, 1, 1}};
  if (s = make_post_op_chain(options, layout, m, n, C, !row, chain, reads); s != Status::Ok)
    return s;
  if (!ctx.usable()) return Status::OutOfMemory;
  prob.post = chain.empty() ? nullptr : &chain;
  prob.post_transposed = !row;
  s = detail::impl_of(ctx).run(prob, nullptr, options.residency);
  if (s == Status::Ok && chain.deferred_last)  // the normalised C is C^T: n x m
    run_post_pass(chain, PostPass{.c = c, .ldc = ldc, .m = n, .n = m, .last = true});
  return s;
}

}  // namespace

Status gemm_quantized(Layout layout, Trans transa, int64_t m, const float* a, int64_t lda,
                      const QuantizedWeights& w, float beta, float* c, int64_t ldc,
                      ActivationParts parts, Context& ctx) noexcept {
  return run(layout, transa, m, a, false, lda, w, beta, c, ldc, parts, CallOptions{}, ctx);
}

Status gemm_quantized(Layout layout, Trans transa, int64_t m, const float* a, int64_t lda,
                      const QuantizedWeights& w, float beta, float* c, int64_t ldc,
                      const CallOptions& options, ActivationParts parts, Context& ctx) noexcept {
  return run(layout, transa, m, a, false, lda, w, beta, c, ldc, parts, options, ctx);
}

Status gemm_quantized(Layout layout, Trans transa, int64_t m, const bf16* a, int64_t lda,
                      const QuantizedWeights& w, float beta, float* c, int64_t ldc,
                      const CallOptions& options, ActivationParts parts, Context& ctx) noexcept {
  return run(layout, transa, m, a, true, lda, w, beta, c, ldc, parts, options, ctx);
}

Status gemm_quantized(Layout layout, Trans transa, int64_t m, const bf16* a, int64_t lda,
                      const QuantizedWeights& w, float beta, float* c, int64_t ldc,
                      ActivationParts parts, Context& ctx) noexcept {
  return run(layout, transa, m, a, true, lda, w, beta, c, ldc, parts, CallOptions{}, ctx);
}

}  // namespace adaptcore
