// Public GEMM entry points: validate and normalise, then hand over to the context.
#include "adaptcore/adaptcore.hpp"
#include "core/problem.hpp"
#include "dispatch/context_impl.hpp"
#include "dispatch/internal_access.hpp"

namespace adaptcore {

Status gemm(Layout layout, Trans transa, Trans transb, int64_t m, int64_t n, int64_t k,
            float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
            float* c, int64_t ldc, Context& ctx) noexcept {
  GemmProblem prob;
  const Status s =
      make_problem(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, prob);
  if (s != Status::Ok) return s;
  if (!ctx.usable()) return Status::OutOfMemory;
  return detail::impl_of(ctx).run(prob);
}

Status gemm(Trans transa, Trans transb, float alpha, MatrixView<const float> a,
            MatrixView<const float> b, float beta, MatrixView<float> c, Context& ctx) noexcept {
  GemmProblem prob;
  const Status s = make_problem(transa, transb, alpha, a, b, beta, c, prob);
  if (s != Status::Ok) return s;
  if (!ctx.usable()) return Status::OutOfMemory;
  return detail::impl_of(ctx).run(prob);
}

const char* version() noexcept { return ADAPTCORE_VERSION_STRING; }

}  // namespace adaptcore
