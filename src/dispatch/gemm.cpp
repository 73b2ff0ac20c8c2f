// Public GEMM entry points: validate and normalise, then hand over to the context.
#include "adaptcore/adaptcore.hpp"
#include "core/problem.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/internal_access.hpp"
#include "dispatch/post_op_call.hpp"
#include "dispatch/small_call.hpp"

namespace adaptcore {

namespace {

// Every call the tiny-call path does not finish: validation, normalisation, the plan cache or
// the planner, the executor; a tiny call run on the small-problem path is remembered. The
// arguments one by one, as the entry got them: an argument struct shared with the tiny-call
// path would have to be built in memory on every call, for this function's sake.
[[gnu::noinline]] Status gemm_full(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n,
                                   int64_t k, float alpha, const float* a, int64_t lda,
                                   const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
                                   Residency residency, Context& ctx) noexcept {
  GemmProblem prob;
  const Status s =
      make_problem(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, prob);
  if (s != Status::Ok) return s;
  if (!ctx.usable()) return Status::OutOfMemory;
  detail::ContextImpl::SmallRun small;
  const Status r = detail::impl_of(ctx).run(prob, &small, residency);
  if (small.payload != 0)
    detail::remember_small_call(
        detail::impl_of(ctx),
        {layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc}, small);
  return r;
}

// Both layout entries: the tiny-call path, else the full one. Inline, so the entry without
// CallOptions passes its constant Auto in a register.
[[gnu::always_inline]] inline Status gemm_args(Layout layout, Trans transa, Trans transb, int64_t m,
                                               int64_t n, int64_t k, float alpha, const float* a,
                                               int64_t lda, const float* b, int64_t ldb, float beta,
                                               float* c, int64_t ldc, Residency residency,
                                               Context& ctx) noexcept {
  if (ctx.usable() &&
      detail::small_call(detail::impl_of(ctx),
                         {layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc},
                         residency))
    return Status::Ok;
  return gemm_full(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, residency,
                   ctx);
}

}  // namespace

Status gemm(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k, float alpha,
            const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
            int64_t ldc, Context& ctx) noexcept {
  return gemm_args(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                   Residency::Auto, ctx);
}

Status gemm(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k, float alpha,
            const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
            int64_t ldc, const CallOptions& options, Context& ctx) noexcept {
  if (!detail::ContextImpl::valid_residency(options.residency)) return Status::InvalidArgument;
  if (options.post_op_count == 0)
    return gemm_args(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                     options.residency, ctx);
  // A fused epilogue: never the tiny-call path (its payload has no room for one).
  GemmProblem prob;
  const Status s =
      make_problem(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, prob);
  if (s != Status::Ok) return s;
  return detail::run_with_post_ops(prob, layout, m, n, c, ldc, options, ctx);
}

Status gemm(Trans transa, Trans transb, float alpha, MatrixView<const float> a,
            MatrixView<const float> b, float beta, MatrixView<float> c, Context& ctx) noexcept {
  return gemm(transa, transb, alpha, a, b, beta, c, CallOptions{}, ctx);
}

Status gemm(Trans transa, Trans transb, float alpha, MatrixView<const float> a,
            MatrixView<const float> b, float beta, MatrixView<float> c, const CallOptions& options,
            Context& ctx) noexcept {
  if (!detail::ContextImpl::valid_residency(options.residency)) return Status::InvalidArgument;
  GemmProblem prob;
  const Status s = make_problem(transa, transb, alpha, a, b, beta, c, prob);
  if (s != Status::Ok) return s;
  if (options.post_op_count != 0)
    return detail::run_with_post_ops(prob, c.layout, c.rows, c.cols, c.data, c.ld, options, ctx);
  if (!ctx.usable()) return Status::OutOfMemory;
  return detail::impl_of(ctx).run(prob, nullptr, options.residency);
}

const char* version() noexcept { return ADAPTCORE_VERSION_STRING; }

}  // namespace adaptcore
